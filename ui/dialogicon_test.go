package ui

import (
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The kit's message dialogs draw no icon: Fyne's default ones put a large
// icon over the top right of the text, where it covers words of a long
// message. The text wraps inside the dialog instead.
func TestMessageDialogsHaveNoIconOverTheText(t *testing.T) {
	long := "The file notes.txt has no rows (columns found: this is not a task file at all, just some words that go on for a while so that the message is long)"
	for name, show := range map[string]func(fyne.Window){
		"information": func(w fyne.Window) { ShowInformation(w, "Import done", long) },
		"confirm":     func(w fyne.Window) { ShowConfirm(w, "Discard?", long, func(bool) {}) },
		"error":       func(w fyne.Window) { ShowError(errors.New(long), w) },
	} {
		test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
		w := test.NewTempWindow(t, nil)
		w.Resize(fyne.NewSize(1000, 700))
		show(w)
		top := w.Canvas().Overlays().Top()
		if top == nil {
			t.Fatalf("%s: no dialog", name)
		}
		var text *widget.Label
		var images []*canvas.Image
		for _, o := range test.LaidOutObjects(top) {
			switch o := o.(type) {
			case *canvas.Image:
				if o.Visible() {
					images = append(images, o)
				}
			case *widget.Label:
				if o.Text == long || o.Text == "T"+long[1:] {
					text = o
				}
			}
		}
		if text == nil {
			t.Fatalf("%s: the message is not shown", name)
		}
		d := fyne.CurrentApp().Driver()
		tp, ts := d.AbsolutePositionForObject(text), text.Size()
		for _, im := range images {
			ip, is := d.AbsolutePositionForObject(im), im.Size()
			if ip.X < tp.X+ts.Width && tp.X < ip.X+is.Width && ip.Y < tp.Y+ts.Height && tp.Y < ip.Y+is.Height {
				t.Errorf("%s: an icon at %v size %v covers the message at %v size %v", name, ip, is, tp, ts)
			}
		}
		if s := text.Size(); s.Width > messageWidth+1 || s.Height < 2*theme.TextSize() {
			t.Errorf("%s: the message is %v, want it wrapped within %d", name, s, messageWidth)
		}
	}
}
