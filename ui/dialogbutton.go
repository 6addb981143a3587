package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// DialogButton is a button of a dialog. A focused widget gets every key,
// and Fyne's button answers only Space: a person who tabbed to a dialog's
// button had neither Escape nor Enter. This one runs OnEscape (the
// dialog's Cancel) on Escape and taps itself on Enter, as on Space.
type DialogButton struct {
	widget.Button
	OnEscape func()
}

// NewDialogButton makes a dialog button.
func NewDialogButton(text string, icon fyne.Resource, tapped func()) *DialogButton {
	b := &DialogButton{}
	b.Text, b.Icon, b.OnTapped = text, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey runs OnEscape on Escape and taps the button on Enter.
func (b *DialogButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		if b.OnEscape != nil {
			b.OnEscape()
			return
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
		return
	}
	b.Button.TypedKey(ev)
}

// DialogSelect is a choice in a dialog: Escape runs OnEscape and Enter
// OnEnter (the dialog's Cancel and default button), which a focused
// Fyne select would swallow.
type DialogSelect struct {
	widget.Select
	OnEscape, OnEnter func()
}

// NewDialogSelect makes a dialog choice among options.
func NewDialogSelect(options []string, changed func(string)) *DialogSelect {
	s := &DialogSelect{}
	s.Options, s.OnChanged, s.PlaceHolder = options, changed, "(Select one)"
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey runs OnEscape on Escape and OnEnter on Enter.
func (s *DialogSelect) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		if s.OnEscape != nil {
			s.OnEscape()
			return
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if s.OnEnter != nil {
			s.OnEnter()
			return
		}
	}
	s.Select.TypedKey(ev)
}

// DialogCheck is a tick box in a dialog: Escape runs OnEscape and Enter
// OnEnter (the dialog's Cancel and default button), which a focused Fyne
// check would swallow (it answers Space only).
type DialogCheck struct {
	widget.Check
	OnEscape, OnEnter func()
}

// NewDialogCheck makes a dialog tick box.
func NewDialogCheck(label string, changed func(bool)) *DialogCheck {
	c := &DialogCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey runs OnEscape on Escape and OnEnter on Enter.
func (c *DialogCheck) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		if c.OnEscape != nil {
			c.OnEscape()
			return
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if c.OnEnter != nil {
			c.OnEnter()
			return
		}
	}
	c.Check.TypedKey(ev)
}

func (c *DialogCheck) dialogKeys(escape, enter func()) {
	if c.OnEscape == nil {
		c.OnEscape = escape
	}
	if c.OnEnter == nil {
		c.OnEnter = enter
	}
}

// dialogKeyed is a dialog's field or button that takes the dialog's keys
// (WithKeys gives them).
type dialogKeyed interface {
	dialogKeys(escape, enter func())
}

func (e *DialogEntry) dialogKeys(escape, enter func()) {
	if e.OnEscape == nil {
		e.OnEscape = escape
	}
	if e.OnSubmitted == nil {
		e.OnSubmitted = func(string) { enter() }
	}
}

func (s *DialogSelect) dialogKeys(escape, enter func()) {
	if s.OnEscape == nil {
		s.OnEscape = escape
	}
	if s.OnEnter == nil {
		s.OnEnter = enter
	}
}

func (b *DialogButton) dialogKeys(escape, _ func()) {
	if b.OnEscape == nil {
		b.OnEscape = escape
	}
}

// dialogFields finds the keyed fields and buttons in o (in its
// containers too), in order.
func dialogFields(o fyne.CanvasObject) []dialogKeyed {
	switch v := o.(type) {
	case dialogKeyed:
		return []dialogKeyed{v}
	case *fyne.Container:
		var out []dialogKeyed
		for _, c := range v.Objects {
			out = append(out, dialogFields(c)...)
		}
		return out
	}
	return nil
}

// Question is a dialog with Cancel and a default button, both
// DialogButton; its callback gets which one closed it (false for
// Escape).
type Question struct {
	*dialog.CustomDialog
	yes, no *DialogButton
	answer  bool
}

// NewQuestion makes a question over w: callback runs once it has closed,
// before the closed handlers added later (WithKeys's). Show it, then give
// WithKeys its Buttons.
func NewQuestion(w fyne.Window, title, confirm, dismiss string, body fyne.CanvasObject, callback func(bool)) *Question {
	q := &Question{CustomDialog: dialog.NewCustomWithoutButtons(title, body, w)}
	q.no = NewDialogButton(dismiss, theme.CancelIcon(), q.Cancel)
	q.yes = NewDialogButton(confirm, theme.ConfirmIcon(), q.Confirm)
	q.yes.Importance = widget.HighImportance
	q.SetButtons([]fyne.CanvasObject{q.no, q.yes})
	q.SetOnClosed(func() {
		if callback != nil {
			callback(q.answer)
		}
	})
	return q
}

// Confirm closes the question with its default button's answer.
func (q *Question) Confirm() { q.close(true) }

// Cancel closes it as Cancel does.
func (q *Question) Cancel() { q.close(false) }

// Buttons are its two buttons, for WithKeys.
func (q *Question) Buttons() []fyne.CanvasObject { return []fyne.CanvasObject{q.no, q.yes} }

func (q *Question) close(answer bool) {
	q.answer = answer
	q.Hide()
}
