package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func press(c fyne.Canvas, k fyne.KeyName) {
	if h := c.OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
	}
}

// A dialog opened from another dialog's button keeps Enter and Escape:
// Fyne runs the first dialog's callback before its closed handler, which
// used to put the window's own key handler back over the second dialog's.
func TestDialogOpenedFromADialogKeepsItsKeys(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("keys")
	w.Resize(fyne.NewSize(600, 400))
	var base []fyne.KeyName
	w.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) { base = append(base, e.Name) })

	var second dialog.Dialog
	secondAnswer := ""
	first := dialog.NewCustomConfirm("First", "Go on", "Cancel", widget.NewLabel("one"), func(ok bool) {
		if !ok {
			return
		}
		second = dialog.NewCustomConfirm("Second", "Yes", "No", widget.NewLabel("two"), func(ok bool) {
			if ok {
				secondAnswer = "yes"
			} else {
				secondAnswer = "no"
			}
		}, w)
		second.Show()
		WithKeys(w, second, second.(*dialog.ConfirmDialog).Confirm)
	}, w)
	first.Show()
	WithKeys(w, first, first.Confirm)
	w.Show()

	press(w.Canvas(), fyne.KeyReturn) // confirms the first, which opens the second
	if second == nil {
		t.Fatal("Enter did not confirm the first dialog")
	}
	press(w.Canvas(), fyne.KeyEscape)
	if secondAnswer != "no" {
		t.Fatalf("Escape in the second dialog: answer %q, window got %v; want the second dialog cancelled", secondAnswer, base)
	}
	if len(base) != 0 {
		t.Fatalf("the window got %v while a dialog was up", base)
	}
	press(w.Canvas(), fyne.KeyF5)
	if len(base) != 1 || base[0] != fyne.KeyF5 {
		t.Fatalf("after both dialogs closed the window got %v, want [F5]", base)
	}
}
