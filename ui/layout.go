package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
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
