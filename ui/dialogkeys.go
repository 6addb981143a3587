package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// WithKeys gives a dialog shown over w the keyboard a person expects:
// Enter (or Return) runs enter (the default button; nil: close), Escape
// closes it as Cancel would. While it is up, keys go to the dialog, not to
// the page behind (the live view loses focus and gets it back after).
// Call it after Show.
func WithKeys(w fyne.Window, d dialog.Dialog, enter func()) {
	if w == nil || d == nil {
		return
	}
	c := w.Canvas()
	prev := c.OnTypedKey()
	focused := c.Focused()
	c.Unfocus()
	done := false
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			if enter != nil {
				enter()
			} else {
				d.Hide()
			}
		case fyne.KeyEscape:
			d.Dismiss()
		}
	})
	restore := func() {
		if done {
			return
		}
		done = true
		c.SetOnTypedKey(prev)
		if focused != nil && c.Focused() == nil {
			c.Focus(focused)
		}
	}
	d.SetOnClosed(restore)
}

// ShowConfirm asks a yes/no question; Enter confirms, Escape cancels.
// Like every message dialog of the kit it has no icon: Fyne's default
// dialogs draw theirs over the top right of the text.
func ShowConfirm(w fyne.Window, title, msg string, callback func(bool)) {
	d := dialog.NewCustomConfirm(title, "Yes", "No", messageBody(msg), callback, w)
	d.Show()
	WithKeys(w, d, d.Confirm)
}

// ShowInformation shows a message; Enter or Escape closes it.
func ShowInformation(w fyne.Window, title, msg string) {
	d := dialog.NewCustom(title, "OK", messageBody(msg), w)
	d.Show()
	WithKeys(w, d, nil)
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
