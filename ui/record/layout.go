package record

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// pixelCenter centres one object at exactly its MinSize, on a whole pixel
// of the window: a fractional position would make the GPU blend every
// pixel of the live picture with its neighbour.
type pixelCenter struct {
	box    *fyne.Container
	header fyne.CanvasObject // shown just above obj, as wide; room kept even when hidden
	// asking is set while Layout asks the driver where box is. That walks
	// the window's objects and makes any renderer not made yet; making an
	// AppTabs' renderer refreshes its tabs' contents, which lays box out
	// again: that inner Layout uses the last position instead of asking
	// again (asking again made the same renderer again, without end).
	asking bool
	abs    fyne.Position // box's position on the window, last asked
}

// newPixelCenter returns a container that shows obj at its MinSize,
// centred on whole pixels. frame, if given, are four bars (top, bottom,
// left, right) drawn just outside obj: a widget's own objects are clipped
// to its bounds, so a ring around it must live in its container.
func newPixelCenter(obj fyne.CanvasObject, frame ...fyne.CanvasObject) *fyne.Container {
	return newPixelCenterWithHeader(obj, nil, frame...)
}

// newPixelCenterWithHeader is newPixelCenter with header drawn just above
// obj (its height is always kept, so obj does not move when it shows).
func newPixelCenterWithHeader(obj, header fyne.CanvasObject, frame ...fyne.CanvasObject) *fyne.Container {
	l := &pixelCenter{header: header}
	objs := append([]fyne.CanvasObject{obj}, frame...)
	if header != nil {
		objs = append(objs, header)
	}
	l.box = container.New(l, objs...)
	return l.box
}

func (l *pixelCenter) headerHeight() float32 {
	if l.header == nil {
		return 0
	}
	return l.header.MinSize().Height + 2
}

func (l *pixelCenter) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	var scale float32 = 1
	if app := fyne.CurrentApp(); app != nil && l.box != nil {
		l.ask(app.Driver())
		if c := app.Driver().CanvasForObject(l.box); c != nil {
			scale = c.Scale()
		}
	}
	abs := l.abs
	if len(objs) == 0 {
		return
	}
	o := objs[0]
	m := o.MinSize()
	hh := l.headerHeight()
	x := float64(abs.X + (size.Width-m.Width)/2)
	y := float64(abs.Y + hh + (size.Height-hh-m.Height)/2)
	// Round the absolute position to a device pixel, then back to the
	// container's coordinates.
	s := float64(scale)
	x = math.Round(x*s)/s - float64(abs.X)
	y = math.Round(y*s)/s - float64(abs.Y)
	p := fyne.NewPos(float32(math.Max(0, x)), float32(math.Max(0, y)))
	o.Move(p)
	o.Resize(m)
	if l.header != nil {
		l.header.Move(fyne.NewPos(p.X, p.Y-hh))
		l.header.Resize(fyne.NewSize(m.Width, hh-2))
	}
	if len(objs) >= 5 {
		const w = 2
		place := func(b fyne.CanvasObject, x, y, bw, bh float32) {
			b.Move(fyne.NewPos(x, y))
			b.Resize(fyne.NewSize(bw, bh))
		}
		place(objs[1], p.X-w, p.Y-w, m.Width+2*w, w)
		place(objs[2], p.X-w, p.Y+m.Height, m.Width+2*w, w)
		place(objs[3], p.X-w, p.Y, w, m.Height)
		place(objs[4], p.X+m.Width, p.Y, w, m.Height)
	}
}

// ask updates abs, unless it is already asking (see asking).
func (l *pixelCenter) ask(d fyne.Driver) {
	if l.asking {
		return
	}
	l.asking = true
	defer func() { l.asking = false }()
	l.abs = d.AbsolutePositionForObject(l.box)
}

func (l *pixelCenter) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if len(objs) == 0 {
		return fyne.Size{}
	}
	return objs[0].MinSize().AddWidthHeight(4, 4+l.headerHeight())
}

// noMinHeight fills its space and asks for no height of its own.
type noMinHeight struct{}

func (noMinHeight) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (noMinHeight) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w float32
	for _, o := range objs {
		w = max(w, o.MinSize().Width)
	}
	return fyne.NewSize(w, 0)
}
