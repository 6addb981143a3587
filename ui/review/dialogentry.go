package review

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// dialogEntry is a one-line entry in a dialog: Escape closes the dialog
// (a focused entry would otherwise swallow it).
type dialogEntry struct {
	widget.Entry
	onEscape func()
}

func newDialogEntry() *dialogEntry {
	e := &dialogEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey closes the dialog on Escape.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(ev)
}
