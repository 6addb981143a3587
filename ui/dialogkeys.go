package ui

import (
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// WithKeys gives a dialog shown over w the keyboard a person expects:
// Enter (or Return) runs enter (the default button; nil: close), Escape
// closes it as Cancel would. While it is up, keys go to the dialog, not to
// the page behind (the live view loses focus and gets it back after).
// Call it after Show. Dialogs stack: one opened from another's button
// keeps its keys although Fyne closes the first one (and runs its closed
// handler) after that button's callback has opened the second.
//
// fields are the dialog's fields and buttons (DialogEntry, DialogSelect,
// DialogButton, or containers holding them): a focused widget gets every
// key, so each one is given the same keys, Escape closing the dialog and
// Enter running enter (a field's own OnEscape or OnSubmitted stays; a
// button takes Enter as a tap of its own), and the first text field gets
// the focus, so typing goes into the dialog from the first key.
func WithKeys(w fyne.Window, d dialog.Dialog, enter func(), fields ...fyne.CanvasObject) {
	if w == nil || d == nil {
		return
	}
	if enter == nil {
		enter = d.Hide
	}
	c := w.Canvas()
	keyStacksMu.Lock()
	st := keyStacks[c]
	if st == nil {
		st = &keyStack{base: c.OnTypedKey(), focused: c.Focused()}
		keyStacks[c] = st
	}
	keyStacksMu.Unlock()
	c.Unfocus()
	layer := &keyLayer{handle: func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			enter()
		case fyne.KeyEscape:
			d.Dismiss()
		}
	}}
	st.layers = append(st.layers, layer)
	c.SetOnTypedKey(layer.handle)
	var first fyne.Focusable
	for _, f := range fields {
		for _, k := range dialogFields(f) {
			k.dialogKeys(d.Dismiss, enter)
			if e, ok := k.(*DialogEntry); ok && first == nil && !e.Disabled() {
				first = e
			}
		}
	}
	if first != nil {
		c.Focus(first)
	}
	done := false
	d.SetOnClosed(func() {
		if done {
			return
		}
		done = true
		st.pop(c, layer)
	})
}

// keyStacks holds, per window canvas, the key handlers of the dialogs that
// are up, newest last. The UI thread uses it; the lock is for widget tests
// that run windows side by side.
var (
	keyStacksMu sync.Mutex
	keyStacks   = map[fyne.Canvas]*keyStack{}
)

type keyLayer struct{ handle func(*fyne.KeyEvent) }

type keyStack struct {
	base    func(*fyne.KeyEvent) // the window's own handler
	focused fyne.Focusable       // what had focus before the first dialog
	layers  []*keyLayer
}

// pop removes a closed dialog's layer; the newest dialog still up gets the
// keys, or the window's own handler and focus come back when none is.
func (st *keyStack) pop(c fyne.Canvas, l *keyLayer) {
	for i, x := range st.layers {
		if x == l {
			st.layers = append(st.layers[:i], st.layers[i+1:]...)
			break
		}
	}
	if n := len(st.layers); n > 0 {
		c.SetOnTypedKey(st.layers[n-1].handle)
		return
	}
	keyStacksMu.Lock()
	delete(keyStacks, c)
	keyStacksMu.Unlock()
	c.SetOnTypedKey(st.base)
	if st.focused != nil && c.Focused() == nil {
		c.Focus(st.focused)
	}
}

// FormDialog is a form dialog shown by ShowForm.
type FormDialog struct {
	*Question
	w     fyne.Window
	items []*widget.FormItem
}

// Submit confirms the form when every field is right; otherwise each
// wrong field says why and the first one gets the focus.
func (d *FormDialog) Submit() {
	if formValid(d.w, d.items) {
		d.close(true)
	}
}

// ShowForm shows a form dialog over w, width wide, with the keys of
// WithKeys: Enter in any field (or outside them, or on its confirm
// button) submits it, Escape cancels it (on its buttons too), and the
// first field has the focus. Its text fields must be DialogEntry (and its
// choices DialogSelect) for the keys to reach the dialog from inside
// them. callback gets true only when every field is right: a form
// confirmed with a field wrong stays open, that field saying what is
// wrong and focused. (Fyne's form dialog enabled its button as soon as
// the field changed last was valid, and its buttons took no Enter or
// Escape once tabbed to.)
func ShowForm(w fyne.Window, title, confirm, dismiss string, items []*widget.FormItem, callback func(bool), width float32) *FormDialog {
	d := &FormDialog{w: w, items: items}
	d.Question = NewQuestion(w, title, confirm, dismiss, fitWindow(w, widget.NewForm(items...)), callback)
	d.yes.OnTapped = d.Submit
	fields := []fyne.CanvasObject{d.no, d.yes}
	for _, it := range items {
		fields = append(fields, it.Widget)
	}
	d.Resize(fyne.NewSize(width, 0))
	d.Show()
	WithKeys(w, d, d.Submit, fields...)
	return d
}

// dialogChrome is the height a dialog takes besides its body: the title,
// the buttons, the padding and a margin to the window's edges.
const dialogChrome = 170

// fitWindow shows body whole when the window has room, else as high as
// the window allows with a scroll bar for the rest: a tall form (Settings)
// ran past an 800-high window, its buttons over its last field.
func fitWindow(w fyne.Window, body fyne.CanvasObject) fyne.CanvasObject {
	if w == nil {
		return body
	}
	return container.New(capHeight(func() float32 { return w.Canvas().Size().Height - dialogChrome }), container.NewVScroll(body))
}

// capHeight asks for its content's minimum size, but at most the height
// limit returns (and the content's width); the content fills what it
// gets.
type capHeight func() float32

func (c capHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (c capHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		content := o
		if s, ok := o.(*container.Scroll); ok {
			content = s.Content
		}
		m = m.Max(content.MinSize())
	}
	if limit := c(); limit > 0 && m.Height > limit {
		m.Height = limit
	}
	// A form's widest hint is drawn inset by the inner padding, past the
	// width the form asks for.
	m.Width += 2 * theme.InnerPadding()
	return m
}

// formValid validates every field of a form, so that each wrong one says
// why, and focuses the first wrong one; it reports whether all are right.
func formValid(w fyne.Window, items []*widget.FormItem) bool {
	var bad fyne.CanvasObject
	check := func(o fyne.CanvasObject) {
		if v, ok := o.(fyne.Validatable); ok && v.Validate() != nil && bad == nil {
			bad = o
		}
	}
	for _, it := range items {
		if _, ok := it.Widget.(*fyne.Container); ok {
			for _, e := range DialogEntries(it.Widget) {
				check(e)
			}
			continue
		}
		check(it.Widget)
	}
	if bad == nil {
		return true
	}
	if f, ok := bad.(fyne.Focusable); ok && w != nil {
		w.Canvas().Focus(f)
	}
	return false
}

// DialogEntries finds the dialog fields in o (in its containers too), in
// order.
func DialogEntries(o fyne.CanvasObject) []*DialogEntry {
	switch v := o.(type) {
	case *DialogEntry:
		return []*DialogEntry{v}
	case *fyne.Container:
		var out []*DialogEntry
		for _, c := range v.Objects {
			out = append(out, DialogEntries(c)...)
		}
		return out
	}
	return nil
}

// ShowConfirm asks a yes/no question; Enter confirms, Escape cancels.
// Like every message dialog of the kit it has no icon: Fyne's default
// dialogs draw theirs over the top right of the text.
func ShowConfirm(w fyne.Window, title, msg string, callback func(bool)) {
	d := NewQuestion(w, title, "Yes", "No", messageBody(msg), callback)
	d.Show()
	WithKeys(w, d, d.Confirm, d.Buttons()...)
}

// ShowInformation shows a message; Enter or Escape closes it.
func ShowInformation(w fyne.Window, title, msg string) {
	var d *dialog.CustomDialog
	ok := NewDialogButton("OK", nil, func() { d.Hide() })
	ok.Importance = widget.HighImportance
	d = dialog.NewCustomWithoutButtons(title, messageBody(msg), w)
	d.SetButtons([]fyne.CanvasObject{ok})
	d.Show()
	WithKeys(w, d, nil, ok)
}

// ShowError says what went wrong, under the title "Error"; Enter or
// Escape closes it.
func ShowError(err error, w fyne.Window) {
	if err == nil {
		return
	}
	msg := err.Error()
	if r := []rune(msg); len(r) > 0 {
		msg = strings.ToUpper(string(r[0])) + string(r[1:])
	}
	ShowInformation(w, "Error", msg)
}

// messageWidth is the widest a dialog's message runs before it wraps.
const messageWidth = 480

// messageBody is a dialog's message: one line when it fits, else wrapped
// at messageWidth.
func messageBody(msg string) fyne.CanvasObject {
	l := widget.NewLabel(msg)
	if l.MinSize().Width <= messageWidth {
		return l
	}
	l.Wrapping = fyne.TextWrapWord
	return NewFixedWidth(messageWidth, l)
}
