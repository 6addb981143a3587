package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// DialogEntry is a text field of a dialog: Escape runs OnEscape (the
// dialog's Cancel) and Enter runs OnSubmitted, also in a multi-line field
// whose lines only wrap (a goal, a reason), where Enter would otherwise
// start a new line. Shift+Enter still starts one there.
type DialogEntry struct {
	widget.Entry
	OnEscape func()
	shift    bool
}

// NewDialogEntry makes a one-line dialog field.
func NewDialogEntry() *DialogEntry {
	e := &DialogEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// NewDialogWrapEntry makes a dialog field whose text wraps over rows lines.
func NewDialogWrapEntry(rows int) *DialogEntry {
	e := &DialogEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(rows)
	return e
}

// AcceptsTab is false: Tab moves to the dialog's next field, also from a
// multi-line field, where Fyne would type a tab into the text.
func (e *DialogEntry) AcceptsTab() bool { return false }

// KeyDown tracks Shift (desktop.Keyable).
func (e *DialogEntry) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(ev)
}

// KeyUp tracks Shift (desktop.Keyable).
func (e *DialogEntry) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(ev)
}

// TypedKey runs OnEscape on Escape and OnSubmitted on Enter.
func (e *DialogEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyEscape:
		if e.OnEscape != nil {
			e.OnEscape()
			return
		}
	case fyne.KeyReturn, fyne.KeyEnter:
		if e.MultiLine && e.OnSubmitted != nil {
			if !e.shift {
				e.OnSubmitted(e.Text)
				return
			}
			// Fyne's multi-line entry submits on Shift+Enter when it
			// has OnSubmitted; here Shift+Enter starts a new line.
			submit := e.OnSubmitted
			e.OnSubmitted = nil
			e.Entry.TypedKey(ev)
			e.OnSubmitted = submit
			return
		}
	}
	e.Entry.TypedKey(ev)
}
