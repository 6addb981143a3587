package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
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

// ShowConfirm is dialog.ShowConfirm with WithKeys: Enter confirms, Escape
// cancels.
func ShowConfirm(w fyne.Window, title, msg string, callback func(bool)) {
	d := dialog.NewConfirm(title, msg, callback, w)
	d.Show()
	WithKeys(w, d, d.Confirm)
}

// ShowInformation is dialog.ShowInformation with WithKeys: Enter or
// Escape closes it.
func ShowInformation(w fyne.Window, title, msg string) {
	d := dialog.NewInformation(title, msg, w)
	d.Show()
	WithKeys(w, d, nil)
}
