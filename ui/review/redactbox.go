package review

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
	"waymark/ui"
)

// redactBoxes shows, when "Show redaction" is on, the outline of every
// box a redaction policy (or a reviewer) blacked out of the picture shown,
// and says why in the step's details; and lets a reviewer black out a box
// the policy missed: "Black out a region…" in the steps panel's "…" menu
// arms it, a drag over the picture draws
// the box, a reason is asked, and the box is burnt into the stored
// screenshot (Store.AddRedaction, in the audit log).
type redactBoxes struct {
	widget.BaseWidget

	check  *widget.Check
	item   *fyne.MenuItem // "Black out a region…" in the steps panel's "…" menu
	player *player

	on    bool
	shown []action.RedactBox // of the picture shown
	rects []*canvas.Rectangle

	arming     bool // the next drag draws a box to black out
	drag       *canvas.Rectangle
	from, to   fyne.Position
	dragging   bool
	shotIndex  int // the stored step whose screenshot is shown
	lastAdded  action.RedactBox
	askReasons func(box action.RedactBox) // the reason dialog (tests replace it)
}

// attach makes the overlay and its controls, returning view with the
// overlay laid over it.
func (r *redactBoxes) attach(p *player, view fyne.CanvasObject) fyne.CanvasObject {
	r.player = p
	r.check = widget.NewCheck("Show redaction", func(on bool) {
		r.on = on
		if p.ep != nil {
			p.show(p.cur, p.after)
		}
		p.t.unfocus()
	})
	r.item = fyne.NewMenuItem("Black out a region of the picture…", func() {
		r.arm()
		p.t.unfocus()
	})
	r.drag = &canvas.Rectangle{FillColor: color.NRGBA{A: 0xB0}, StrokeColor: color.NRGBA{R: 0xFF, G: 0x80, A: 0xFF}, StrokeWidth: 2}
	r.drag.Hide()
	r.askReasons = r.askReason
	r.ExtendBaseWidget(r)
	return container.NewStack(view, r)
}

// toggle is the "Show redaction" check.
func (r *redactBoxes) toggle() fyne.CanvasObject { return r.check }

// arm makes the next drag over the picture draw a box to black out.
func (r *redactBoxes) arm() {
	p := r.player
	if p.ep == nil {
		return
	}
	r.arming = true
	if p.info != nil {
		p.info.SetText(p.info.Text + "\nBlack out: drag over the picture to draw the box to black out.")
	}
}

// stepShown follows the player: the picture it shows now (stored step
// shotIdx) and its boxes.
func (r *redactBoxes) stepShown(shotIdx int) {
	p := r.player
	if p == nil {
		return
	}
	r.shotIndex = shotIdx
	r.shown = nil
	if shotIdx >= 0 && shotIdx < len(p.steps) {
		r.shown = p.steps[shotIdx].Redaction
	}
	if len(r.shown) > 0 && p.info != nil {
		p.info.SetText(p.info.Text + "\nRedaction: " + redactionWords(r.shown))
	}
	r.Refresh()
}

// redactionWords sums boxes up: "3 boxes (2 pattern email, input type=tel)".
func redactionWords(bs []action.RedactBox) string {
	n := map[string]int{}
	for _, b := range bs {
		n[b.Why]++
	}
	var parts []string
	for why, k := range n {
		if k > 1 {
			parts = append(parts, fmt.Sprintf("%d %s", k, why))
		} else {
			parts = append(parts, why)
		}
	}
	sort.Strings(parts)
	word := "boxes"
	if len(bs) == 1 {
		word = "box"
	}
	return fmt.Sprintf("%d %s blacked out (%s)", len(bs), word, strings.Join(parts, ", "))
}

// Dragged draws the box being drawn (when armed).
func (r *redactBoxes) Dragged(ev *fyne.DragEvent) {
	if !r.arming {
		return
	}
	if !r.dragging {
		r.dragging = true
		r.from = ev.Position.Subtract(ev.Dragged)
	}
	r.to = ev.Position
	r.Refresh()
}

// DragEnd asks why the box is blacked out, then burns it in.
func (r *redactBoxes) DragEnd() {
	if !r.arming || !r.dragging {
		return
	}
	r.arming, r.dragging = false, false
	b := r.viewportBox(r.from, r.to)
	r.Refresh()
	if b.W < 2 || b.H < 2 {
		return
	}
	r.askReasons(b)
}

// viewportBox turns two widget positions into a box in viewport pixels.
func (r *redactBoxes) viewportBox(a, b fyne.Position) action.RedactBox {
	size := r.Size()
	if size.Width <= 0 || size.Height <= 0 {
		return action.RedactBox{}
	}
	sx, sy := float32(action.ViewportWidth)/size.Width, float32(action.ViewportHeight)/size.Height
	x0, x1 := min(a.X, b.X)*sx, max(a.X, b.X)*sx
	y0, y1 := min(a.Y, b.Y)*sy, max(a.Y, b.Y)*sy
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, action.ViewportWidth), min(y1, action.ViewportHeight)
	return action.RedactBox{X: int(x0), Y: int(y0), W: int(x1+0.999) - int(x0), H: int(y1+0.999) - int(y0)}
}

// askReason asks why the box is blacked out, then adds it.
func (r *redactBoxes) askReason(b action.RedactBox) {
	p := r.player
	w := p.t.ctx.Window
	if w == nil {
		return
	}
	reason := ui.NewDialogEntry()
	reason.SetPlaceHolder("e.g. the customer's name")
	ui.ShowForm(w, "Black out this box?", "Black out", "Cancel", []*widget.FormItem{
		{Text: "Box", Widget: widget.NewLabel(fmt.Sprintf("%d,%d %d×%d on step %d's screenshot; its pixels are replaced in the store for good", b.X, b.Y, b.W, b.H, r.shotIndex))},
		{Text: "Why", Widget: reason},
	}, func(ok bool) {
		if ok {
			r.add(b, reason.Text)
		}
	}, 520)
}

// add burns the box into the shown step's stored screenshot.
func (r *redactBoxes) add(b action.RedactBox, reason string) {
	p := r.player
	if p.ep == nil {
		return
	}
	if err := p.t.store.AddRedaction(p.t.life, p.ep.ID, r.shotIndex, b, p.t.reviewer(), strings.TrimSpace(reason)); err != nil {
		p.t.form.setStatus("Not blacked out: "+err.Error(), true)
		return
	}
	r.lastAdded = b
	delete(p.shots, r.shotIndex) // read again: it changed
	p.thumbs.forget(r.shotIndex)
	if err := p.reloadSteps(); err != nil {
		p.t.form.setStatus("Blacked out, but the steps could not be read again: "+err.Error(), true)
		return
	}
	p.show(p.cur, p.after)
	p.t.form.setStatus(fmt.Sprintf("Blacked out %d×%d at %d,%d on step %d's screenshot (in the Edits log).", b.W, b.H, b.X, b.Y, r.shotIndex), false)
}

// CreateRenderer implements fyne.Widget.
func (r *redactBoxes) CreateRenderer() fyne.WidgetRenderer { return &redactRenderer{r: r} }

type redactRenderer struct{ r *redactBoxes }

func (rr *redactRenderer) Destroy()           {}
func (rr *redactRenderer) MinSize() fyne.Size { return fyne.NewSize(0, 0) }
func (rr *redactRenderer) Objects() []fyne.CanvasObject {
	out := make([]fyne.CanvasObject, 0, len(rr.r.rects)+1)
	for _, x := range rr.r.rects {
		out = append(out, x)
	}
	return append(out, rr.r.drag)
}
func (rr *redactRenderer) Refresh() {
	rr.Layout(rr.r.Size())
	for _, o := range rr.Objects() {
		o.Refresh()
	}
}

// Layout places the outlines over the picture (viewport pixels scaled to
// the widget's size) and the box being drawn.
func (rr *redactRenderer) Layout(size fyne.Size) {
	r := rr.r
	want := 0
	if r.on {
		want = len(r.shown)
	}
	for len(r.rects) < want {
		r.rects = append(r.rects, &canvas.Rectangle{StrokeColor: color.NRGBA{R: 0xFF, G: 0x8C, A: 0xFF}, StrokeWidth: 2})
	}
	sx, sy := size.Width/float32(action.ViewportWidth), size.Height/float32(action.ViewportHeight)
	for i, x := range r.rects {
		if i >= want {
			x.Hide()
			continue
		}
		b := r.shown[i]
		x.Move(fyne.NewPos(float32(b.X)*sx-1, float32(b.Y)*sy-1))
		x.Resize(fyne.NewSize(float32(b.W)*sx+2, float32(b.H)*sy+2))
		x.Show()
	}
	if r.dragging {
		x0, y0 := min(r.from.X, r.to.X), min(r.from.Y, r.to.Y)
		r.drag.Move(fyne.NewPos(x0, y0))
		r.drag.Resize(fyne.NewSize(max(r.from.X, r.to.X)-x0, max(r.from.Y, r.to.Y)-y0))
		r.drag.Show()
	} else {
		r.drag.Hide()
	}
}
