package ui

import (
	"image"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
	"waymark/ui/overlay"
)

// LiveView shows the page at exactly 800×600 logical pixels and turns mouse,
// wheel and keyboard input into viewport-pixel input for its sink; the
// Record and Sessions screens show their browser in one. Put it in
// a layout that gives it its MinSize (container.NewCenter), or positions
// stop being exact. All methods must be called on the Fyne goroutine.
type LiveView struct {
	widget.BaseWidget

	// Sink gets the input; nil refuses everything.
	Sink InputSink
	// OnShortcut gets shortcuts that are not page input (toolbar keys).
	OnShortcut func(fyne.Shortcut) bool
	// OnTouched is called on any pointer or key input (e.g. to leave the
	// step preview).
	OnTouched func()
	// Schedule runs fn on the Fyne goroutine after d (set by the bridge);
	// without it the click marker stays until the next click.
	Schedule func(d time.Duration, fn func())

	img       *canvas.Image
	still     *overlay.View
	bg        *canvas.Rectangle
	hint      *canvas.Text
	marker    *canvas.Circle
	markDot   *canvas.Circle
	badgeBG   *canvas.Rectangle
	badge     *canvas.Text
	banner    *canvas.Rectangle
	bannerTx  *canvas.Text
	bannerBox *fyne.Container
	keysTx    *canvas.Text         // where keystrokes go, in the banner's strip while no step is shown
	focusBox  [4]*canvas.Rectangle // top, bottom, left, right bars
	stillAct  *action.Action

	focused  bool
	rec      bool // an episode records: keys reach the page
	shift    bool
	keys     KeyGuard // a shortcut's key types nothing until released
	down     bool
	downPos  fyne.Position
	lastPos  fyne.Position
	markGen  int
	frames   uint64
	lastSize fyne.Size
}

var (
	_ fyne.Widget            = (*LiveView)(nil)
	_ desktop.Mouseable      = (*LiveView)(nil)
	_ desktop.Keyable        = (*LiveView)(nil)
	_ fyne.Draggable         = (*LiveView)(nil)
	_ fyne.Scrollable        = (*LiveView)(nil)
	_ fyne.Tabbable          = (*LiveView)(nil)
	_ fyne.Shortcutable      = (*LiveView)(nil)
	_ fyne.Focusable         = (*LiveView)(nil)
	_ desktop.Cursorable     = (*LiveView)(nil)
	_ fyne.SecondaryTappable = (*LiveView)(nil)
	_ desktop.Hoverable      = (*LiveView)(nil)
)

// NewLiveView makes an empty live view.
func NewLiveView(sink InputSink) *LiveView {
	v := &LiveView{Sink: sink}
	v.img = &canvas.Image{ScaleMode: canvas.ImageScaleFastest, FillMode: canvas.ImageFillStretch}
	v.still = overlay.New()
	v.still.Hide()
	v.bg = canvas.NewRectangle(color.NRGBA{0x1f, 0x24, 0x2b, 0xff})
	v.hint = canvas.NewText("Choose a task and press Start", color.NRGBA{0xc8, 0xd0, 0xd8, 0xff})
	v.hint.TextSize = 18
	v.hint.Alignment = fyne.TextAlignCenter
	v.marker = &canvas.Circle{StrokeColor: color.NRGBA{0xff, 0x3b, 0x30, 0xff}, StrokeWidth: 3, FillColor: color.NRGBA{0xff, 0x3b, 0x30, 0x40}}
	v.markDot = &canvas.Circle{FillColor: color.NRGBA{0xff, 0x3b, 0x30, 0xff}}
	v.marker.Hide()
	v.markDot.Hide()
	v.badgeBG = canvas.NewRectangle(color.NRGBA{0x10, 0x10, 0x10, 0xd0})
	v.badgeBG.CornerRadius = 4
	v.badge = canvas.NewText("", color.White)
	v.badge.TextSize = 13
	v.badge.TextStyle = fyne.TextStyle{Monospace: true}
	v.badgeBG.Hide()
	v.badge.Hide()
	v.banner = canvas.NewRectangle(color.NRGBA{0x0b, 0x5c, 0x8e, 0xe6})
	v.bannerTx = canvas.NewText("", color.White)
	v.bannerTx.TextSize = 13
	v.bannerTx.TextStyle = fyne.TextStyle{Bold: true}
	v.banner.Hide()
	v.bannerTx.Hide()
	v.keysTx = canvas.NewText("", theme.Color(theme.ColorNamePrimary))
	v.keysTx.TextSize = 13
	v.keysTx.TextStyle = fyne.TextStyle{Bold: true}
	v.showKeyCue()
	// The focus ring is four thin bars rather than one stroked rectangle:
	// a stroked rectangle is shaded over its whole 800×600 area on every
	// frame, which software GL pays for at each live frame.
	for i := range v.focusBox {
		v.focusBox[i] = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
		v.focusBox[i].Hide()
	}
	v.ExtendBaseWidget(v)
	return v
}

// FocusRing is four bars (top, bottom, left, right) the container draws
// just outside the view while it has the keyboard (a widget's own objects
// are clipped to it). The Record screen's layout places them.
func (v *LiveView) FocusRing() []fyne.CanvasObject {
	return []fyne.CanvasObject{v.focusBox[0], v.focusBox[1], v.focusBox[2], v.focusBox[3]}
}

// MinSize is the viewport's size in logical units.
func (v *LiveView) MinSize() fyne.Size {
	return fyne.NewSize(action.ViewportWidth, action.ViewportHeight)
}

// SetFrame shows a new live picture. img must not be changed afterwards
// (the texture upload reads it later). Fyne goroutine only.
func (v *LiveView) SetFrame(img *image.RGBA) {
	if img == nil {
		return
	}
	v.frames++
	v.img.Image = img
	if !v.hint.Hidden {
		v.hint.Hide()
	}
	if !v.bg.Hidden {
		v.bg.Hide() // the picture covers it; one full-size fill less per frame
	}
	v.img.Refresh()
}

// FramesShown counts the frames given to SetFrame.
func (v *LiveView) FramesShown() uint64 { return v.frames }

// Frame is the picture shown now (nil before the first).
func (v *LiveView) Frame() image.Image { return v.img.Image }

// SetHint sets the text shown when there is no picture; "" keeps the
// picture. clear drops the current picture.
func (v *LiveView) SetHint(text string, clear bool) {
	v.hint.Text = text
	if clear {
		v.img.Image = nil
		v.img.Refresh()
		v.bg.Show()
	}
	if text == "" || v.img.Image != nil {
		v.hint.Hide()
	} else {
		v.hint.Show()
	}
	v.hint.Refresh()
}

// HintText is the text shown when there is no picture ("" when hidden).
func (v *LiveView) HintText() string {
	if v.hint.Hidden {
		return ""
	}
	return v.hint.Text
}

// SetPending shows what is typed or queued but not yet performed ("" hides).
func (v *LiveView) SetPending(text string) {
	if text == "" {
		if !v.badge.Hidden {
			v.badge.Hide()
			v.badgeBG.Hide()
			canvas.Refresh(v)
		}
		return
	}
	v.badge.Text = text
	v.badge.Show()
	v.badgeBG.Show()
	v.badge.Refresh()
	v.layoutOverlays(v.Size())
	v.badgeBG.Refresh()
}

// PendingText is the badge's text ("" when hidden).
func (v *LiveView) PendingText() string {
	if v.badge.Hidden {
		return ""
	}
	return v.badge.Text
}

// ShowMarker draws the brief click marker at viewport pixel x,y.
func (v *LiveView) ShowMarker(x, y int) {
	v.placeMarker(x, y, 18)
	v.markGen++
	gen := v.markGen
	if v.Schedule != nil {
		v.Schedule(450*time.Millisecond, func() {
			if v.markGen == gen && v.stillAct == nil {
				v.marker.Hide()
				v.markDot.Hide()
				canvas.Refresh(v)
			}
		})
	}
}

func (v *LiveView) placeMarker(x, y int, r float32) {
	c := PageToView(x, y, v.sizeOrMin())
	v.marker.Move(fyne.NewPos(c.X-r, c.Y-r))
	v.marker.Resize(fyne.NewSize(2*r, 2*r))
	v.markDot.Move(fyne.NewPos(c.X-3, c.Y-3))
	v.markDot.Resize(fyne.NewSize(6, 6))
	v.marker.Show()
	v.markDot.Show()
	v.marker.Refresh()
	v.markDot.Refresh()
}

func (v *LiveView) sizeOrMin() fyne.Size {
	s := v.Size()
	if s.Width <= 0 || s.Height <= 0 {
		return v.MinSize()
	}
	return s
}

// ShowStill shows a recorded step's screenshot with its action drawn over
// it and a banner, leaving the live picture underneath untouched. pointer
// is the last click before the action (nil when unknown).
func (v *LiveView) ShowStill(img image.Image, a *action.Action, pointer *image.Point, banner string) {
	v.still.SetPointer(pointer)
	v.still.Set(img, a)
	v.still.Show()
	v.stillAct = a
	v.marker.Hide()
	v.markDot.Hide()
	v.bannerTx.Text = banner
	v.banner.Show()
	v.bannerTx.Show()
	v.keysTx.Hide()
	v.layoutOverlays(v.Size())
	v.bannerTx.Refresh()
	v.banner.Refresh()
	if v.bannerBox != nil {
		v.bannerBox.Refresh()
	}
}

// ShowLive leaves the still picture and shows the live page again.
func (v *LiveView) ShowLive() {
	if v.still.Hidden {
		return
	}
	v.still.Hide()
	v.still.Set(nil, nil)
	v.stillAct = nil
	v.banner.Hide()
	v.bannerTx.Hide()
	v.showKeyCue()
	canvas.Refresh(v)
}

// Key cue texts: where keystrokes go (KeyCue).
const (
	KeysToPage      = "Keys go to the page"
	KeysElsewhere   = "Keys do not reach the page: click the picture to type into it"
	KeysToPageLater = "Keys go to the page once an episode records"
)

// SetRecording says whether an episode records (keys then reach the page);
// the key cue says so.
func (v *LiveView) SetRecording(on bool) {
	if v.rec != on {
		v.rec = on
		v.showKeyCue()
	}
}

// KeyCue is the text over the picture that says where keystrokes go (""
// when none is shown): the page while the view has the keyboard, or what
// to do to give it the keyboard. The ring around the picture shows the same.
func (v *LiveView) KeyCue() string {
	if v.keysTx.Hidden {
		return ""
	}
	return v.keysTx.Text
}

// showKeyCue updates the key cue from the focus and the recording state.
func (v *LiveView) showKeyCue() {
	tx := v.keysTx
	switch {
	case v.focused && v.rec:
		tx.Text, tx.Color, tx.TextStyle.Bold = KeysToPage, theme.Color(theme.ColorNamePrimary), true
	case v.rec:
		tx.Text, tx.Color, tx.TextStyle.Bold = KeysElsewhere, theme.Color(theme.ColorNameWarning), true
	case v.focused:
		tx.Text, tx.Color, tx.TextStyle.Bold = KeysToPageLater, theme.Color(theme.ColorNamePlaceHolder), false
	default:
		tx.Text = ""
	}
	if tx.Text == "" || v.ShowingStill() {
		tx.Hide()
	} else {
		tx.Show()
	}
	tx.Refresh()
	if v.bannerBox != nil {
		v.bannerBox.Refresh()
	}
}

// ShowingStill reports whether a recorded step is shown.
func (v *LiveView) ShowingStill() bool { return !v.still.Hidden }

// StillImage is the recorded step's screenshot ShowStill shows (nil when
// there is none).
func (v *LiveView) StillImage() image.Image { return v.still.Image() }

// BannerText is the still banner's text.
func (v *LiveView) BannerText() string { return v.bannerTx.Text }

// CreateRenderer implements fyne.Widget.
func (v *LiveView) CreateRenderer() fyne.WidgetRenderer {
	return &liveRenderer{v: v, objs: []fyne.CanvasObject{v.bg, v.img, v.hint, v.still, v.marker, v.markDot, v.badgeBG, v.badge}}
}

type liveRenderer struct {
	v    *LiveView
	objs []fyne.CanvasObject
}

func (r *liveRenderer) Layout(s fyne.Size) {
	v := r.v
	for _, o := range []fyne.CanvasObject{v.bg, v.img, v.still} {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(s)
	}

	v.hint.Move(fyne.NewPos(0, s.Height/2-14))
	v.hint.Resize(fyne.NewSize(s.Width, 28))
	v.layoutOverlays(s)
	v.lastSize = s
}

func (v *LiveView) layoutOverlays(s fyne.Size) {
	if s.Width <= 0 {
		s = v.MinSize()
	}
	ts := v.badge.MinSize()
	v.badgeBG.Move(fyne.NewPos(8, s.Height-ts.Height-16))
	v.badgeBG.Resize(fyne.NewSize(ts.Width+16, ts.Height+8))
	v.badge.Move(fyne.NewPos(16, s.Height-ts.Height-12))
	v.badge.Resize(ts)
}

// Banner is the strip that names the recorded step shown (ShowStill). It
// lives outside the picture, above it (the Record screen's layout puts it
// there), so it never hides a click marker or the top of the page.
func (v *LiveView) Banner() fyne.CanvasObject {
	if v.bannerBox == nil {
		v.bannerBox = container.New(&bannerLayout{tx: v.bannerTx}, v.banner, v.bannerTx, v.keysTx)
	}
	return v.bannerBox
}

// bannerLayout stretches the background and insets the texts (the
// banner's, and the key cue shown while the banner is hidden).
type bannerLayout struct{ tx *canvas.Text }

func (l *bannerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
	for _, o := range objs[1:] {
		ts := o.MinSize()
		o.Move(fyne.NewPos(10, (size.Height-ts.Height)/2))
		o.Resize(ts)
	}
}

func (l *bannerLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(action.ViewportWidth, l.tx.MinSize().Height+10)
}

func (r *liveRenderer) MinSize() fyne.Size           { return r.v.MinSize() }
func (r *liveRenderer) Refresh()                     { r.Layout(r.v.Size()); canvas.Refresh(r.v) }
func (r *liveRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *liveRenderer) Destroy()                     {}
