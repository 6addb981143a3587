package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// fixedWidth gives its content a fixed width and its own height.
type fixedWidth float32

// NewFixedWidth shows obj at width w and its own height.
func NewFixedWidth(w float32, obj fyne.CanvasObject) *fyne.Container {
	return container.New(fixedWidth(w), obj)
}

func (f fixedWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f fixedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(float32(f), h)
}

// fixedHeight gives its content the height h returns (read at each layout,
// so it follows the theme's text size and zoom) and the full width.
type fixedHeight func() float32

// NewFixedHeight shows obj at the height h returns and the width given; a
// scroll container inside shows what does not fit. Screens use it so a
// longer text above a picture does not move the picture.
func NewFixedHeight(h func() float32, obj fyne.CanvasObject) *fyne.Container {
	return container.New(fixedHeight(h), obj)
}

func (f fixedHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f fixedHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, f())
}

// LabelsHeight is the height of labels stacked in a VBox holding lines
// lines of text in all: each label adds its inner padding, each gap the
// theme's padding.
func LabelsHeight(labels, lines int) float32 {
	lineH := fyne.MeasureText("Mg", theme.TextSize(), fyne.TextStyle{}).Height
	return float32(lines)*lineH + float32(labels)*2*theme.InnerPadding() + float32(max(labels-1, 0))*theme.Padding()
}
