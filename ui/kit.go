package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// The shared kit: small pieces more than one screen uses.

// CategoryColor is the colour that marks a task category (the dot in task
// lists, the badge over the live view).
func CategoryColor(c string) color.Color {
	switch c {
	case dataset.Information:
		return color.NRGBA{0x2b, 0x7b, 0xd6, 0xff}
	case dataset.Navigation:
		return color.NRGBA{0x1e, 0x9e, 0x6a, 0xff}
	case dataset.Interaction:
		return color.NRGBA{0xd9, 0x7a, 0x16, 0xff}
	}
	return color.NRGBA{0x80, 0x80, 0x80, 0xff}
}

// SetEnabled enables or disables a button.
func SetEnabled(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// FixedSize gives its objects one size.
type FixedSize struct{ S fyne.Size }

// Layout implements fyne.Layout.
func (f *FixedSize) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(f.S)
	}
}

// MinSize implements fyne.Layout.
func (f *FixedSize) MinSize([]fyne.CanvasObject) fyne.Size { return f.S }

// TightVBox stacks objects with no padding between them.
type TightVBox struct{}

// Layout implements fyne.Layout.
func (TightVBox) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var y float32
	for _, o := range objs {
		h := o.MinSize().Height - 8
		o.Move(fyne.NewPos(0, y-4))
		o.Resize(fyne.NewSize(size.Width, h+8))
		y += h
	}
}

// MinSize implements fyne.Layout.
func (TightVBox) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height - 8
	}
	return s
}
