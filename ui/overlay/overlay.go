// Package overlay draws a step's screenshot with its action on it: a
// crosshair at a click, the typed text in a callout, the key name, a scroll
// arrow with its dy, a drag arrow, and back/wait/finish/goto badges. The
// Review tab's player and the Record tab's timeline use it.
//
// Coordinates: actions are in viewport pixels (800×600, origin at the top left of the page viewport). The
// view's MinSize is 800×600 logical units; at that size one viewport pixel
// is one logical unit. At other sizes the picture is stretched and the marks
// follow it.
package overlay

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
)

// Colours of the marks. Accent is what the crosshair, arrows and badges are
// drawn in; Halo is the light outline under them so they show on any page.
var (
	Accent = color.NRGBA{R: 0xFF, G: 0x1F, B: 0x5A, A: 0xFF}
	Halo   = color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xD0}
	Ink    = color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF}
	empty  = color.NRGBA{R: 0x30, G: 0x30, B: 0x34, A: 0xFF}
)

const (
	vw, vh = float32(action.ViewportWidth), float32(action.ViewportHeight)
	// crosshair geometry in viewport pixels: a ring and four ticks with a gap
	// in the middle, so the clicked pixel itself stays visible.
	ringR    = 13
	tickIn   = 5
	tickOut  = 24
	lineW    = 3
	haloW    = 6
	textSize = 14
)

// View shows one screenshot with one action drawn over it. Create it with
// New; call its methods on the Fyne goroutine.
type View struct {
	widget.BaseWidget

	img     *canvas.Image
	bg      *canvas.Rectangle
	note    *canvas.Text
	act     *action.Action
	pointer *image.Point
	marks   []mark
	min     fyne.Size
}

// mark is one drawn object and how to place it for a given scale.
type mark struct {
	obj   fyne.CanvasObject
	place func(sx, sy float32)
}

var _ fyne.Widget = (*View)(nil)

// New makes an empty view (a dark 800×600 area saying "no screenshot").
func New() *View {
	v := &View{
		img:  &canvas.Image{FillMode: canvas.ImageFillStretch, ScaleMode: canvas.ImageScaleFastest},
		bg:   canvas.NewRectangle(empty),
		note: canvas.NewText("no screenshot", color.NRGBA{0xBB, 0xBB, 0xBB, 0xFF}),
		min:  fyne.NewSize(vw, vh),
	}
	v.note.TextSize = 16
	v.note.Alignment = fyne.TextAlignCenter
	v.ExtendBaseWidget(v)
	return v
}

// SetMinSize changes the view's minimum size (default 800×600); a smaller
// size gives a scaled-down picture, e.g. for a timeline.
func (v *View) SetMinSize(s fyne.Size) {
	v.min = s
	v.Refresh()
}

// MinSize is the size set by SetMinSize (800×600 by default).
func (v *View) MinSize() fyne.Size { return v.min }

// SetPointer tells the view where the pointer was before the action (the
// last click), in viewport pixels: typed text and keys are drawn next to it
// and scrolls start there. nil means unknown (the viewport centre is used for
// scrolls, the top of the picture for typed text). Takes effect on the next
// Set.
func (v *View) SetPointer(p *image.Point) {
	if p == nil {
		v.pointer = nil
		return
	}
	q := *p
	v.pointer = &q
}

// Set shows img (any image; nil shows "no screenshot") with the action a
// drawn on it (nil draws nothing). Must be called on the Fyne goroutine. The
// image must not be changed afterwards.
func (v *View) Set(img image.Image, a *action.Action) {
	v.img.Image = img
	v.note.Hidden = img != nil
	v.act = nil
	if a != nil {
		c := *a
		v.act = &c
	}
	v.marks = buildMarks(v.act, v.pointer)
	v.Refresh()
}

// SetPNG decodes a PNG screenshot and shows it like Set. On a decoding error
// the view shows "screenshot unreadable" and the error is returned.
func (v *View) SetPNG(data []byte, a *action.Action) error {
	if len(data) == 0 {
		v.note.Text = "no screenshot for this step"
		v.Set(nil, a)
		return nil
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		v.note.Text = "screenshot unreadable"
		v.Set(nil, a)
		return fmt.Errorf("screenshot is not a readable PNG: %w", err)
	}
	v.note.Text = "no screenshot"
	v.Set(img, a)
	return nil
}

// Image is the picture shown (nil when none).
func (v *View) Image() image.Image { return v.img.Image }

// Action is the action drawn (nil when none).
func (v *View) Action() *action.Action { return v.act }

// CreateRenderer implements fyne.Widget.
func (v *View) CreateRenderer() fyne.WidgetRenderer { return &renderer{v: v} }

type renderer struct{ v *View }

func (r *renderer) Destroy() {}

func (r *renderer) MinSize() fyne.Size { return r.v.min }

func (r *renderer) Objects() []fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 0, 3+len(r.v.marks))
	objs = append(objs, r.v.bg, r.v.img, r.v.note)
	for _, m := range r.v.marks {
		objs = append(objs, m.obj)
	}
	return objs
}

func (r *renderer) Layout(size fyne.Size) {
	v := r.v
	v.bg.Resize(size)
	v.img.Resize(size)
	v.note.Resize(fyne.NewSize(size.Width, 24))
	v.note.Move(fyne.NewPos(0, size.Height/2-12))
	sx, sy := size.Width/vw, size.Height/vh
	for _, m := range v.marks {
		m.place(sx, sy)
	}
}

func (r *renderer) Refresh() {
	r.Layout(r.v.Size())
	canvas.Refresh(r.v.img)
	r.v.note.Refresh()
	for _, m := range r.v.marks {
		m.obj.Refresh()
	}
}

// --- marks ---

func line(c color.Color, w float32, x1, y1, x2, y2 float32) mark {
	l := canvas.NewLine(c)
	l.StrokeWidth = w
	return mark{obj: l, place: func(sx, sy float32) {
		l.Position1 = fyne.NewPos(x1*sx, y1*sy)
		l.Position2 = fyne.NewPos(x2*sx, y2*sy)
	}}
}

// haloLine is a line with a light outline under it.
func haloLine(x1, y1, x2, y2 float32) []mark {
	return []mark{line(Halo, haloW, x1, y1, x2, y2), line(Accent, lineW, x1, y1, x2, y2)}
}

func ring(c color.Color, w, cx, cy, rad float32) mark {
	o := &canvas.Circle{StrokeColor: c, StrokeWidth: w}
	return mark{obj: o, place: func(sx, sy float32) {
		o.Move(fyne.NewPos((cx-rad)*sx, (cy-rad)*sy))
		o.Resize(fyne.NewSize(2*rad*sx, 2*rad*sy))
	}}
}

// crosshair draws a ring and four ticks around (x, y), leaving the centre
// clear.
func crosshair(x, y float32) []mark {
	var ms []mark
	ms = append(ms, ring(Halo, haloW, x, y, ringR), ring(Accent, lineW, x, y, ringR))
	for _, d := range [][2]float32{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		ms = append(ms, line(Halo, haloW, x+d[0]*tickIn, y+d[1]*tickIn, x+d[0]*tickOut, y+d[1]*tickOut))
	}
	for _, d := range [][2]float32{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
		ms = append(ms, line(Accent, lineW, x+d[0]*tickIn, y+d[1]*tickIn, x+d[0]*tickOut, y+d[1]*tickOut))
	}
	return ms
}

// arrow draws a line from (x1,y1) to (x2,y2) with a head at the end.
func arrow(x1, y1, x2, y2 float32) []mark {
	ms := haloLine(x1, y1, x2, y2)
	ang := math.Atan2(float64(y2-y1), float64(x2-x1))
	for _, d := range []float64{math.Pi * 5 / 6, -math.Pi * 5 / 6} {
		hx := x2 + float32(14*math.Cos(ang+d))
		hy := y2 + float32(14*math.Sin(ang+d))
		ms = append(ms, haloLine(x2, y2, hx, hy)...)
	}
	return ms
}

// badge draws text on an accent box whose top-left corner is at (x, y) in
// viewport pixels, clamped inside the viewport. The box is not scaled, only
// placed.
func badge(text string, x, y float32, fill color.Color) mark {
	t := canvas.NewText(text, Ink)
	t.TextSize = textSize
	t.TextStyle = fyne.TextStyle{Bold: true}
	ts := fyne.MeasureText(text, textSize, t.TextStyle)
	w, h := ts.Width+16, ts.Height+8
	x = clamp(x, 4, vw-w-4)
	y = clamp(y, 4, vh-h-4)
	bg := &canvas.Rectangle{FillColor: fill, CornerRadius: 6, StrokeColor: Halo, StrokeWidth: 1.5}
	box := &fyne.Container{Objects: []fyne.CanvasObject{bg, t}}
	return mark{obj: box, place: func(sx, sy float32) {
		// The box keeps its size when the view is scaled: keep it inside.
		box.Move(fyne.NewPos(clamp(x*sx, 2, vw*sx-w-2), clamp(y*sy, 2, vh*sy-h-2)))
		box.Resize(fyne.NewSize(w, h))
		bg.Resize(fyne.NewSize(w, h))
		t.Move(fyne.NewPos(8, 4))
		t.Resize(ts)
	}}
}

func clamp(v, lo, hi float32) float32 {
	if hi < lo {
		return lo
	}
	return max(lo, min(v, hi))
}

// shorten cuts text to n runes, with an ellipsis.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func xy(x, y *int) (float32, float32, bool) {
	if x == nil || y == nil {
		return 0, 0, false
	}
	return float32(*x), float32(*y), true
}

// buildMarks turns an action into marks in viewport pixels.
func buildMarks(a *action.Action, pointer *image.Point) []mark {
	if a == nil {
		return nil
	}
	var ms []mark
	var px, py float32 = vw / 2, vh / 2
	hasPointer := pointer != nil
	if hasPointer {
		px, py = float32(pointer.X), float32(pointer.Y)
	}
	switch a.Op {
	case action.Click, action.DoubleClick, action.Move, action.SetValue, action.Select, action.MouseDown, action.MouseUp:
		x, y, ok := xy(a.X, a.Y)
		if !ok {
			return []mark{badge(string(a.Op)+" (no point)", 8, 8, Accent)}
		}
		ms = append(ms, crosshair(x, y)...)
		label := string(a.Op) + " " + strconv.Itoa(*a.X) + "," + strconv.Itoa(*a.Y)
		if a.Op == action.DoubleClick {
			label = "double click ×2"
		}
		if a.Op != action.Click {
			ms = append(ms, badge(label, x+tickOut+4, y-tickOut-10, Accent))
		}
	case action.Drag:
		x, y, ok := xy(a.X, a.Y)
		x2, y2, ok2 := xy(a.X2, a.Y2)
		if !ok || !ok2 {
			return []mark{badge("drag (no points)", 8, 8, Accent)}
		}
		ms = append(ms, crosshair(x, y)...)
		ms = append(ms, arrow(x, y, x2, y2)...)
		ms = append(ms, badge("drag", x2+8, y2+8, Accent))
	case action.Type:
		text := "“" + shorten(a.Text, 60) + "”"
		if hasPointer {
			ms = append(ms, line(Accent, 2, px, py, px+14, py+20))
			ms = append(ms, ring(Accent, 2, px, py, 4))
			ms = append(ms, badge("type "+text, px+10, py+20, Accent))
		} else {
			ms = append(ms, badge("type "+text, 8, 8, Accent))
		}
	case action.Key:
		ms = append(ms, badge("key "+a.Text, vw-8-fyne.MeasureText("key "+a.Text, textSize, fyne.TextStyle{Bold: true}).Width-16, 8, Accent))
		if hasPointer {
			ms = append(ms, ring(Accent, 2, px, py, 4))
		}
	case action.Scroll:
		dir := float32(1)
		if a.DY < 0 {
			dir = -1
		}
		length := float32(90)
		y2 := clamp(py+dir*length, 10, vh-10)
		ms = append(ms, arrow(px, py, px, y2)...)
		ms = append(ms, badge("scroll "+strconv.Itoa(a.DY), px+14, (py+y2)/2-12, Accent))
	case action.Back:
		ms = append(ms, badge("← back", 8, 8, Accent))
	case action.Wait:
		ms = append(ms, badge("wait", vw/2-30, 8, Accent))
	case action.Finish:
		label := "finish"
		if a.Text != "" {
			label = "finish: “" + shorten(a.Text, 70) + "”"
		}
		ms = append(ms, badge(label, vw/2-fyne.MeasureText(label, textSize, fyne.TextStyle{Bold: true}).Width/2-8, 8, color.NRGBA{0x1B, 0x8E, 0x3E, 0xFF}))
	case action.Goto:
		ms = append(ms, badge("goto "+shorten(a.URL, 70), 8, 8, Accent))
	default:
		ms = append(ms, badge(a.String(), 8, 8, Accent))
	}
	return ms
}
