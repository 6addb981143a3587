package ui

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ProgressBar shows a fraction from 0 to 1 as a filled part of a track.
// Fyne's own progress bar paints its empty part in a faded primary colour,
// which on the dark theme reads as a full bar at 0 %; here the empty part
// is the input background (a grey track) and only the done part is the
// primary colour.
type ProgressBar struct {
	widget.BaseWidget
	// Value is the fraction done (set it with SetValue).
	Value float64
}

// NewProgressBar is an empty progress bar.
func NewProgressBar() *ProgressBar {
	p := &ProgressBar{}
	p.ExtendBaseWidget(p)
	return p
}

// SetValue sets the fraction done, clamped to 0…1.
func (p *ProgressBar) SetValue(v float64) {
	if math.IsNaN(v) || v < 0 {
		v = 0
	}
	p.Value = min(v, 1)
	p.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (p *ProgressBar) CreateRenderer() fyne.WidgetRenderer {
	r := &progressRenderer{p: p, track: &canvas.Rectangle{}, bar: &canvas.Rectangle{}, label: canvas.NewText("", nil)}
	r.label.Alignment = fyne.TextAlignCenter
	r.Refresh()
	return r
}

type progressRenderer struct {
	p          *ProgressBar
	track, bar *canvas.Rectangle
	label      *canvas.Text
}

func (r *progressRenderer) MinSize() fyne.Size {
	th := r.p.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	s := fyne.MeasureText("100%", th.Size(theme.SizeNameText), fyne.TextStyle{})
	return fyne.NewSize(s.Width+2*pad, s.Height+2*pad)
}

func (r *progressRenderer) Layout(size fyne.Size) {
	r.track.Resize(size)
	r.bar.Resize(fyne.NewSize(size.Width*float32(r.p.Value), size.Height))
	r.label.Resize(size)
}

func (r *progressRenderer) Refresh() {
	th := r.p.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	radius := th.Size(theme.SizeNameInputRadius)
	r.track.FillColor = th.Color(theme.ColorNameInputBackground, v)
	r.track.StrokeColor = th.Color(theme.ColorNameInputBorder, v)
	r.track.StrokeWidth = th.Size(theme.SizeNameInputBorder)
	r.track.CornerRadius = radius
	r.bar.FillColor = th.Color(theme.ColorNamePrimary, v)
	r.bar.CornerRadius = radius
	r.bar.Hidden = r.p.Value <= 0
	r.label.Text = fmt.Sprintf("%d%%", int(r.p.Value*100))
	r.label.Color = th.Color(theme.ColorNameForeground, v)
	r.label.TextSize = th.Size(theme.SizeNameText)
	r.Layout(r.p.Size())
	r.track.Refresh()
	r.bar.Refresh()
	r.label.Refresh()
}

func (r *progressRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.bar, r.label}
}

func (r *progressRenderer) Destroy() {}
