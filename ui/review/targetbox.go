package review

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
)

// targetBox draws, when "Show target" is on, the box of the element the
// step's action was aimed at (its bid, role and name beside it) over the
// player's screenshot, scaled with the picture.
//
// The target is read from the page just before the action, so it is drawn
// on the BEFORE picture: the screenshot the action was taken on, where the
// crosshair is too, and where a reviewer asks "did the click land on the
// right thing?". On the AFTER picture the page may have changed (a new
// page, a menu closed, the element moved), so a box there would point at
// whatever is now at that place; it is not drawn, and the line beside the
// toggle says why.
type targetBox struct {
	widget.BaseWidget

	check *widget.Check
	// line is what the step's details say about the target ("" when
	// off): the player's info gets it as a "Target: …" line.
	line string

	on     bool
	shown  *action.Target // the target drawn; nil draws nothing
	rect   *canvas.Rectangle
	halo   *canvas.Rectangle
	label  *canvas.Text
	tagBg  *canvas.Rectangle
	player *player
}

const (
	targetStroke = 3
	targetText   = 13
)

// attach makes the box and its toggle, and returns view with the box laid
// over it (same size).
func (b *targetBox) attach(p *player, view fyne.CanvasObject) fyne.CanvasObject {
	b.player = p
	b.rect = &canvas.Rectangle{FillColor: color.NRGBA{R: 0x00, G: 0xA0, B: 0xFF, A: 0x22},
		StrokeColor: color.NRGBA{R: 0x00, G: 0x78, B: 0xD7, A: 0xFF}, StrokeWidth: targetStroke}
	b.halo = &canvas.Rectangle{StrokeColor: color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xD0}, StrokeWidth: targetStroke + 3}
	b.label = canvas.NewText("", color.White)
	b.label.TextSize = targetText
	b.tagBg = canvas.NewRectangle(color.NRGBA{R: 0x00, G: 0x78, B: 0xD7, A: 0xFF})
	b.check = widget.NewCheck("Show target", func(on bool) {
		b.on = on
		if p.ep != nil {
			p.show(p.cur, p.after) // redraws the step, which calls stepShown
		}
		p.t.unfocus()
	})
	b.ExtendBaseWidget(b)
	return container.NewStack(view, b)
}

// toggle is the check box.
func (b *targetBox) toggle() fyne.CanvasObject { return b.check }

// stepShown follows the player: the step and picture it shows now. It
// runs after the player has set the step's details, and adds the target's
// line to them.
func (b *targetBox) stepShown() {
	p := b.player
	b.shown = nil
	msg := ""
	switch {
	case p == nil || p.ep == nil || p.cur <= 0 || p.cur >= len(p.steps):
		// the start page was reached by no action
	case p.steps[p.cur].Target == nil:
		msg = "none recorded for this step"
	case p.after:
		msg = "drawn on the BEFORE picture (Space)"
	default:
		t := p.steps[p.cur].Target
		msg = targetWords(t)
		_, _, _, _, ok := targetRect(t)
		bb := t.BBox
		switch {
		case bb[2] <= 0 || bb[3] <= 0:
			msg += " · it has no box on the page"
		case !ok:
			msg += boxWords(bb) + " · outside the visible page"
		default:
			msg += boxWords(bb)
			b.shown = t
		}
	}
	if !b.on {
		b.shown, msg = nil, ""
	}
	b.line = msg
	if msg != "" && p.info != nil {
		p.info.SetText(p.info.Text + "\nTarget: " + msg)
	}
	b.Refresh()
}

// boxWords says where a box is, in whole viewport pixels (Chromium gives
// fractions: 152.78125,10 (473.515625×32) reads as 153,10 (474×32)).
func boxWords(bb [4]float64) string {
	return fmt.Sprintf(" at %.0f,%.0f (%.0f×%.0f)", bb[0], bb[1], bb[2], bb[3])
}

// targetWords names a target: [bid] role “name”.
func targetWords(t *action.Target) string {
	s := ""
	if t.Bid != "" {
		s = "[" + t.Bid + "] "
	}
	kind := t.Role
	if kind == "" {
		kind = t.Tag
	}
	s += kind
	if t.Name != "" {
		s += " “" + shortName(t.Name) + "”"
	}
	return s
}

func shortName(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}

// targetRect is the part of the target's box inside the 800×600 viewport,
// in viewport pixels; ok is false when nothing of it is inside.
func targetRect(t *action.Target) (x, y, w, h float32, ok bool) {
	x0, y0 := float32(t.BBox[0]), float32(t.BBox[1])
	x1, y1 := x0+float32(t.BBox[2]), y0+float32(t.BBox[3])
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, float32(action.ViewportWidth)), min(y1, float32(action.ViewportHeight))
	if x1 <= x0 || y1 <= y0 {
		return 0, 0, 0, 0, false
	}
	return x0, y0, x1 - x0, y1 - y0, true
}

// CreateRenderer implements fyne.Widget.
func (b *targetBox) CreateRenderer() fyne.WidgetRenderer { return &targetRenderer{b: b} }

type targetRenderer struct{ b *targetBox }

func (r *targetRenderer) Destroy()           {}
func (r *targetRenderer) MinSize() fyne.Size { return fyne.NewSize(0, 0) }
func (r *targetRenderer) Objects() []fyne.CanvasObject {
	b := r.b
	return []fyne.CanvasObject{b.halo, b.rect, b.tagBg, b.label}
}

func (r *targetRenderer) Refresh() {
	r.Layout(r.b.Size())
	for _, o := range r.Objects() {
		o.Refresh()
	}
}

// Layout places the box: viewport pixels scaled to the widget's size (the
// picture's, as the box is stacked on the view).
func (r *targetRenderer) Layout(size fyne.Size) {
	b := r.b
	objs := []fyne.CanvasObject{b.halo, b.rect, b.tagBg, b.label}
	if b.shown == nil || size.Width <= 0 || size.Height <= 0 {
		for _, o := range objs {
			o.Hide()
		}
		return
	}
	for _, o := range objs {
		o.Show()
	}
	x, y, w, h, _ := targetRect(b.shown)
	sx, sy := size.Width/float32(action.ViewportWidth), size.Height/float32(action.ViewportHeight)
	pos, sz := fyne.NewPos(x*sx, y*sy), fyne.NewSize(w*sx, h*sy)
	b.rect.Move(pos)
	b.rect.Resize(sz)
	b.halo.Move(pos)
	b.halo.Resize(sz)
	b.label.Text = targetWords(b.shown)
	ls := fyne.MeasureText(b.label.Text, targetText, b.label.TextStyle)
	pad := float32(3)
	// The name tag sits above the box, or inside its top when there is no
	// room above; it never leaves the picture on the right.
	tx := min(pos.X, max(0, size.Width-ls.Width-2*pad))
	ty := pos.Y - ls.Height - 2*pad
	if ty < 0 {
		ty = pos.Y
	}
	b.tagBg.Move(fyne.NewPos(tx, ty))
	b.tagBg.Resize(fyne.NewSize(ls.Width+2*pad, ls.Height+2*pad))
	b.label.Move(fyne.NewPos(tx+pad, ty+pad))
	b.label.Resize(ls)
}

// drawn is the box as drawn, in the widget's units; ok is false when
// nothing is drawn.
func (b *targetBox) drawn() (fyne.Position, fyne.Size, bool) {
	if b.shown == nil || !b.rect.Visible() {
		return fyne.Position{}, fyne.Size{}, false
	}
	return b.rect.Position(), b.rect.Size(), true
}
