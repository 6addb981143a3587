package ui

import (
	"fmt"
	"image"
	"image/color"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"waymark/engine/action"
)

// sink collects what a Mapper emits.
type sink struct {
	mu      sync.Mutex
	acts    []action.Action
	refused []string
	pending string
	dy      int
	clock   *handClock // the mapper's clock (newTestView)
}

// handClock is a clock the test moves: its timers fire only inside
// Advance, earliest first, on the test's goroutine. The mapper's pauses
// then end when the test says, however slow the machine is.
type handClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*handTimer
}

type handTimer struct {
	at   time.Time
	f    func()
	done bool // fired or stopped
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &handTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

// Advance moves the clock on by d and runs the timers that came due.
func (c *handClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, waiting []*handTimer
	for _, t := range c.timers {
		switch {
		case t.done:
		case !t.at.After(c.now):
			t.done = true
			due = append(due, t)
		default:
			waiting = append(waiting, t)
		}
	}
	c.timers = waiting
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *handTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.f()
	}
}

func (s *sink) events() MapperEvents {
	return MapperEvents{
		Emit:    func(a action.Action) { s.mu.Lock(); s.acts = append(s.acts, a); s.mu.Unlock() },
		Refused: func(m string) { s.mu.Lock(); s.refused = append(s.refused, m); s.mu.Unlock() },
		Pending: func(t string, dy int) { s.mu.Lock(); s.pending, s.dy = t, dy; s.mu.Unlock() },
	}
}

func (s *sink) strings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.acts))
	for i, a := range s.acts {
		out[i] = a.String()
	}
	return out
}

func (s *sink) refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestViewToPage(t *testing.T) {
	full := fyne.NewSize(800, 600)
	cases := []struct {
		pos    fyne.Position
		size   fyne.Size
		x, y   int
		inside bool
	}{
		{fyne.NewPos(0, 0), full, 0, 0, true},
		{fyne.NewPos(312.4, 188.9), full, 312, 188, true},
		{fyne.NewPos(799.9, 599.9), full, 799, 599, true},
		{fyne.NewPos(800, 600), full, 799, 599, false},
		{fyne.NewPos(-1, 10), full, 0, 10, false},
		// A view drawn at another logical size still maps onto 800×600.
		{fyne.NewPos(200, 150), fyne.NewSize(400, 300), 400, 300, true},
		{fyne.NewPos(533.3334, 400), fyne.NewSize(1066.6667, 800), 400, 300, true},
		{fyne.NewPos(99.99998, 50), full, 100, 50, true},
	}
	for _, c := range cases {
		x, y, ok := ViewToPage(c.pos, c.size)
		if x != c.x || y != c.y || ok != c.inside {
			t.Errorf("ViewToPage(%v, %v) = %d,%d,%v; want %d,%d,%v", c.pos, c.size, x, y, ok, c.x, c.y, c.inside)
		}
	}
	// Round trip: the centre of every 37th pixel maps back to itself.
	for x := 0; x < 800; x += 37 {
		for y := 0; y < 600; y += 41 {
			px, py, ok := ViewToPage(PageToView(x, y, full), full)
			if !ok || px != x || py != y {
				t.Fatalf("round trip %d,%d → %d,%d", x, y, px, py)
			}
		}
	}
}

// newTestView puts a live view in a window at the given canvas scale and
// returns it with the sink its mapper feeds.
func newTestView(t *testing.T, scale float32, set action.Set) (*LiveView, *sink, *Mapper, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	s := &sink{clock: &handClock{now: time.Unix(1e9, 0)}}
	m := NewMapper(set, s.events())
	m.clock = s.clock
	m.SetPauses(60*time.Millisecond, 40*time.Millisecond)
	v := NewLiveView(m)
	w := test.NewTempWindow(t, container.NewCenter(v))
	w.SetPadded(false)
	w.Canvas().(test.WindowlessCanvas).SetScale(scale)
	w.Resize(fyne.NewSize(1000, 700))
	return v, s, m, w
}

func click(v *LiveView, p fyne.Position) {
	ev := &desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: p}, Button: desktop.MouseButtonPrimary}
	v.MouseDown(ev)
	v.MouseUp(ev)
}

func TestClickPositionsAtScales(t *testing.T) {
	for _, scale := range []float32{1, 1.5} {
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			v, s, _, w := newTestView(t, scale, action.SetDefault)
			if got := v.Size(); got != fyne.NewSize(800, 600) {
				t.Fatalf("view size %v, want exactly 800x600 logical", got)
			}
			// The view's pixel size follows the scale; positions stay logical.
			pxX, _ := w.Canvas().PixelCoordinateForPosition(fyne.NewPos(800, 600))
			if want := int(800 * scale); pxX < want-1 || pxX > want+1 {
				t.Fatalf("800 logical = %d px at scale %v", pxX, scale)
			}
			click(v, fyne.NewPos(312.5, 188.2))
			if !v.marker.Visible() {
				t.Fatal("the click marker is not shown")
			}
			c := v.marker.Position().Add(fyne.NewPos(v.marker.Size().Width/2, v.marker.Size().Height/2))
			if c.X < 312 || c.X > 313.5 || c.Y < 188 || c.Y > 189.5 {
				t.Fatalf("marker centred at %v, want near 312.5,188.5", c)
			}
			click(v, fyne.NewPos(0.2, 599.7))
			equal(t, s.strings(), []string{"click 312,188", "click 0,599"})
			if !v.Focused() {
				t.Fatal("a press must give the view the keyboard")
			}
		})
	}
}

func TestBufferedTypingIsOneAction(t *testing.T) {
	v, s, _, _ := newTestView(t, 1, action.SetDefault)
	test.Type(v, "red shoes")
	s.mu.Lock()
	pending := s.pending
	s.mu.Unlock()
	if pending != "red shoes" {
		t.Fatalf("pending text %q while typing", pending)
	}
	equal(t, s.strings(), nil) // nothing sent before the pause
	s.clock.Advance(59 * time.Millisecond)
	equal(t, s.strings(), nil)
	s.clock.Advance(time.Millisecond)
	equal(t, s.strings(), []string{`type "red shoes"`})
	s.clock.Advance(time.Second)
	equal(t, s.strings(), []string{`type "red shoes"`})
	// Each character starts the pause again.
	test.Type(v, "a")
	s.clock.Advance(50 * time.Millisecond)
	test.Type(v, "b")
	s.clock.Advance(50 * time.Millisecond)
	equal(t, s.strings(), []string{`type "red shoes"`})
	s.clock.Advance(10 * time.Millisecond)
	equal(t, s.strings(), []string{`type "red shoes"`, `type "ab"`})

	// A click and a special key flush the text first, in order.
	test.Type(v, "abc")
	click(v, fyne.NewPos(10, 20))
	test.Type(v, "d")
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	equal(t, s.strings(), []string{`type "red shoes"`, `type "ab"`, `type "abc"`, "click 10,20", `type "d"`, "key ENTER"})
}

func TestKeyMapping(t *testing.T) {
	cases := []struct {
		key   fyne.KeyName
		shift bool
		set   action.Set
		name  string
		res   KeyResult
	}{
		{fyne.KeyReturn, false, action.SetDefault, "ENTER", KeyAction},
		{fyne.KeyEnter, false, action.SetDefault, "ENTER", KeyAction},
		{fyne.KeyTab, false, action.SetDefault, "TAB", KeyAction},
		{fyne.KeyEscape, false, action.SetDefault, "ESCAPE", KeyAction},
		{fyne.KeyBackspace, false, action.SetDefault, "BACKSPACE", KeyAction},
		{fyne.KeyUp, false, action.SetDefault, "UP", KeyAction},
		{fyne.KeyDown, false, action.SetDefault, "DOWN", KeyAction},
		{fyne.KeyLeft, false, action.SetDefault, "LEFT", KeyAction},
		{fyne.KeyRight, false, action.SetDefault, "RIGHT", KeyAction},
		{fyne.KeyA, false, action.SetDefault, "", KeyIgnored},
		{fyne.KeySpace, false, action.SetDefault, "", KeyIgnored},
		{desktop.KeyShiftLeft, false, action.SetDefault, "", KeyIgnored},
		{fyne.KeyPageDown, false, action.SetDefault, "PAGE_DOWN", KeyRefused},
		{fyne.KeyPageDown, false, action.SetExtended, "PAGE_DOWN", KeyAction},
		{fyne.KeyDelete, false, action.SetDefault, "DELETE", KeyRefused},
		{fyne.KeyTab, true, action.SetDefault, "SHIFT+TAB", KeyRefused},
		{fyne.KeyTab, true, action.SetExtended, "SHIFT+TAB", KeyAction},
		{fyne.KeyF5, false, action.SetExtended, "F5", KeyRefused},
	}
	for _, c := range cases {
		name, res := MapKey(c.key, c.shift, c.set)
		if name != c.name || res != c.res {
			t.Errorf("MapKey(%q, shift=%v, %s) = %q,%v; want %q,%v", c.key, c.shift, c.set, name, res, c.name, c.res)
		}
	}
	// Through the widget: Tab and Escape reach the page; Ctrl+A is a key.
	v, s, _, w := newTestView(t, 1, action.SetDefault)
	w.Canvas().Focus(v)
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	if w.Canvas().Focused() != v {
		t.Fatal("Tab moved the focus away from the view")
	}
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	v.TypedShortcut(&fyne.ShortcutSelectAll{})
	v.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab}) // Shift+Tab: not in the default set
	v.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	equal(t, s.strings(), []string{"key TAB", "key ESCAPE", "key CTRL+A"})
	if r := s.refusals(); len(r) != 1 || r[0] == "" {
		t.Fatalf("Shift+Tab should be refused once with a message, got %q", r)
	}
}

func TestWheelCoalescingAndSign(t *testing.T) {
	v, s, _, _ := newTestView(t, 1, action.SetDefault)
	// Three notches down: Fyne reports −25 each; the page scrolls down (+).
	for range 3 {
		v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -25}})
	}
	s.mu.Lock()
	dy := s.dy
	s.mu.Unlock()
	if dy != 300 {
		t.Fatalf("pending scroll %d, want 300", dy)
	}
	equal(t, s.strings(), nil) // the gesture goes on until the pause
	s.clock.Advance(40 * time.Millisecond)
	equal(t, s.strings(), []string{"scroll 300"})
	// One notch up scrolls up.
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 25}})
	s.clock.Advance(40 * time.Millisecond)
	equal(t, s.strings(), []string{"scroll 300", "scroll -100"})
	// A long spin is clamped to the action's limit.
	for range 40 {
		v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -25}})
		s.clock.Advance(30 * time.Millisecond) // notches closer than the pause are one gesture
	}
	s.clock.Advance(10 * time.Millisecond)
	equal(t, s.strings(), []string{"scroll 300", "scroll -100", "scroll 1200"})
	// A click during a gesture sends the scroll first.
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -25}})
	click(v, fyne.NewPos(5, 5))
	equal(t, s.strings(), []string{"scroll 300", "scroll -100", "scroll 1200", "scroll 100", "click 5,5"})
	// Up and down in one gesture that cancel out send nothing.
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -25}})
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 25}})
	s.clock.Advance(time.Second)
	if n := len(s.strings()); n != 5 {
		t.Fatalf("a net-zero gesture sent an action: %q", s.strings())
	}
}

func TestInexpressibleInputIsRefused(t *testing.T) {
	v, s, _, _ := newTestView(t, 1, action.SetDefault)
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(50, 50)}, Button: desktop.MouseButtonSecondary})
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(50, 50)}, Button: desktop.MouseButtonSecondary})
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyF5})
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
	v.TypedShortcut(&fyne.ShortcutCopy{})
	// A drag: press, move 100 px, release outside the view.
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Button: desktop.MouseButtonPrimary})
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(900, 100)}})
	v.DragEnd()
	equal(t, s.strings(), nil)
	r := s.refusals()
	if len(r) != 5 {
		t.Fatalf("want 5 refusals, got %q", r)
	}
	for i, want := range []string{"Right click", "Key F5", "Key PAGE_DOWN", "Shortcut Copy", "Drag"} {
		if len(r[i]) < len(want) || r[i][:len(want)] != want {
			t.Errorf("refusal %d = %q, want it to start with %q", i, r[i], want)
		}
	}
	// The extended set records the same drag, clamped to the viewport.
	v2, s2, _, _ := newTestView(t, 1, action.SetExtended)
	v2.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Button: desktop.MouseButtonPrimary})
	v2.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(900, 120)}})
	v2.DragEnd()
	equal(t, s2.strings(), []string{"drag 100,100→799,120"})
}

func TestLiveViewShowsFramePixelExact(t *testing.T) {
	v, _, _, w := newTestView(t, 1, action.SetDefault)
	w.Resize(fyne.NewSize(800, 600))
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := range 600 {
		for x := range 800 {
			img.Set(x, y, color.RGBA{uint8(x % 256), uint8(y % 256), 0, 255})
		}
	}
	// A one-pixel white line at x=401 must stay one pixel wide and in place.
	for y := range 600 {
		img.Set(401, y, color.White)
	}
	v.SetFrame(img)
	out := w.Canvas().Capture()
	off := v.Position()
	for _, x := range []int{400, 401, 402} {
		c := color.RGBAModel.Convert(out.At(int(off.X)+x, int(off.Y)+300)).(color.RGBA)
		white := c.R > 250 && c.G > 250 && c.B > 250
		if white != (x == 401) {
			t.Fatalf("pixel %d,300 = %v (view at %v)", x, c, off)
		}
	}
	if v.FramesShown() != 1 {
		t.Fatalf("frames shown %d", v.FramesShown())
	}
}

func TestDoubleClickInTheExtendedSet(t *testing.T) {
	v, s, m, _ := newTestView(t, 1, action.SetExtended)
	m.SetDoubleClickDelay(150 * time.Millisecond)
	click(v, fyne.NewPos(100, 100))
	click(v, fyne.NewPos(101, 99)) // within 3 px and the delay
	equal(t, s.strings(), []string{"double_click 100,100"})
	click(v, fyne.NewPos(300, 300)) // alone: sent once the delay passes
	s.clock.Advance(149 * time.Millisecond)
	equal(t, s.strings(), []string{"double_click 100,100"})
	s.clock.Advance(time.Millisecond)
	equal(t, s.strings(), []string{"double_click 100,100", "click 300,300"})
	click(v, fyne.NewPos(300, 300)) // the same place after the delay: a click of its own
	s.clock.Advance(150 * time.Millisecond)
	equal(t, s.strings(), []string{"double_click 100,100", "click 300,300", "click 300,300"})
	click(v, fyne.NewPos(10, 10))
	test.Type(v, "x") // other input sends the held click first, in order
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	equal(t, s.strings(), []string{"double_click 100,100", "click 300,300", "click 300,300", "click 10,10", `type "x"`, "key ENTER"})
	// The default set has no double_click: two quick clicks are two clicks.
	v2, s2, _, _ := newTestView(t, 1, action.SetDefault)
	click(v2, fyne.NewPos(100, 100))
	click(v2, fyne.NewPos(100, 100))
	equal(t, s2.strings(), []string{"click 100,100", "click 100,100"})
}

func TestHoverRestSendsMoveInTheExtendedSet(t *testing.T) {
	v, s, m, _ := newTestView(t, 1, action.SetExtended)
	m.SetHoverRest(60 * time.Millisecond)
	m.SetDoubleClickDelay(10 * time.Millisecond)
	move := func(x, y float32) {
		v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(x, y)}})
	}
	move(100, 100)
	move(300, 200) // only where the pointer rests counts
	s.clock.Advance(59 * time.Millisecond)
	equal(t, s.strings(), nil)
	s.clock.Advance(time.Millisecond)
	equal(t, s.strings(), []string{"move 300,200"})
	move(305, 204) // too close to where the page has the pointer
	s.clock.Advance(time.Second)
	equal(t, s.strings(), []string{"move 300,200"})
	move(400, 400)
	v.MouseOut() // left before the rest ended
	s.clock.Advance(time.Second)
	equal(t, s.strings(), []string{"move 300,200"})
	click(v, fyne.NewPos(500, 500))
	move(503, 502) // next to the click: nothing
	s.clock.Advance(time.Second)
	equal(t, s.strings(), []string{"move 300,200", "click 500,500"})

	v2, s2, m2, _ := newTestView(t, 1, action.SetDefault)
	m2.SetHoverRest(10 * time.Millisecond)
	v2.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(300, 200)}})
	s2.clock.Advance(time.Second)
	equal(t, s2.strings(), nil) // the default set has no move
}
