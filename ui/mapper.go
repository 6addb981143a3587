package ui

import (
	"fmt"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"waymark/engine/action"
)

// Default pauses of the input mapper.
const (
	// TypingPause is how long typing must pause before the buffered text is
	// sent as one type action.
	TypingPause = 600 * time.Millisecond
	// WheelPause ends a wheel gesture: notches closer together than this
	// become one scroll action.
	WheelPause = 400 * time.Millisecond
	// DoubleClickDelay is how long the extended set holds a click to see
	// whether a second one makes it a double click (the default set sends
	// each click at once, so two quick clicks are two clicks).
	DoubleClickDelay = 350 * time.Millisecond
	// HoverRest is how long the pointer must rest, in the extended set, for
	// the spot to be sent as a move (hover menus open on the page).
	HoverRest = 600 * time.Millisecond
	// hoverMinDistance (viewport pixels) from the last pointer position sent
	// makes a rest worth a move.
	hoverMinDistance = 12
	// WheelPixelsPerUnit turns Fyne's wheel units (25 per notch on Linux)
	// into page pixels (100 per notch, as Chrome scrolls).
	WheelPixelsPerUnit = 4
)

// MapperEvents are what a Mapper reports. Each may be nil. They are called
// with the mapper's lock held, on whatever goroutine fed the input or fired
// a pause timer: they must not block and must not call back into the Mapper.
type MapperEvents struct {
	// Emit receives every action, in the order the person made the inputs.
	Emit func(action.Action)
	// Pending shows the text typed but not sent yet ("" when none), and the
	// scroll being gathered (0 when none).
	Pending func(text string, scrollDY int)
	// Refused explains an input the action set cannot express.
	Refused func(msg string)
}

// Mapper turns raw input from the live view into actions of one action set:
// runes are buffered and sent as one type action on a pause, a click, a
// special key or any other action; wheel notches are gathered into one
// scroll per gesture. It is safe for concurrent use (the pause timers fire on
// their own goroutines).
type Mapper struct {
	mu         sync.Mutex
	set        action.Set
	ev         MapperEvents
	typePause  time.Duration
	wheelPause time.Duration

	buf       []rune
	typeGen   int
	wheel     float64 // page pixels, positive = down
	wheelOn   bool
	wheelGen  int
	typeStop  func() bool // stops the typing pause's timer
	whStop    func() bool // stops the wheel pause's timer
	hoverGen  int
	hoverRest time.Duration
	pointer   *[2]int        // the last pointer position the page got (click, move, drag end)
	held      *action.Action // a click waiting for a possible second one
	heldAt    time.Time
	heldGen   int
	dblDelay  time.Duration
	clock     clock
}

// clock is the time the mapper's pauses run on: the wall clock, or in tests
// one moved by hand, so that a slow machine cannot end a pause early.
type clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine after d; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// NewMapper makes a mapper for the action set with the default pauses.
func NewMapper(set action.Set, ev MapperEvents) *Mapper {
	return &Mapper{set: set, ev: ev, typePause: TypingPause, wheelPause: WheelPause, dblDelay: DoubleClickDelay, hoverRest: HoverRest, clock: wallClock{}}
}

// SetPauses changes the typing and wheel pauses (tests shorten them).
func (m *Mapper) SetPauses(typing, wheel time.Duration) {
	m.mu.Lock()
	m.typePause, m.wheelPause = typing, wheel
	m.mu.Unlock()
}

// SetHoverRest changes how long the pointer must rest to send a move.
func (m *Mapper) SetHoverRest(d time.Duration) {
	m.mu.Lock()
	m.hoverRest = d
	m.mu.Unlock()
}

// Hover notes the pointer at viewport pixel x,y (no button down). In a set
// with move, a rest of HoverRest at least 12 px from where the page last
// had the pointer sends a move, so hover menus open; any other input
// cancels the pending rest. The default set ignores hovering.
func (m *Mapper) Hover(x, y int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.set.HasOp(action.Move) {
		return
	}
	m.hoverGen++
	gen := m.hoverGen
	if x < 0 || y < 0 {
		return // the pointer left the page: no rest to report
	}
	if p := m.pointer; p != nil && abs(p[0]-x) < hoverMinDistance && abs(p[1]-y) < hoverMinDistance {
		return
	}
	m.clock.AfterFunc(m.hoverRest, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.hoverGen == gen {
			m.emitLocked(action.Action{Op: action.Move, X: action.Int(x), Y: action.Int(y)})
		}
	})
}

// SetDoubleClickDelay changes how long the extended set holds a click.
func (m *Mapper) SetDoubleClickDelay(d time.Duration) {
	m.mu.Lock()
	m.dblDelay = d
	m.mu.Unlock()
}

// Set is the action set the mapper produces.
func (m *Mapper) Set() action.Set {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.set
}

// Rune buffers one typed character.
func (m *Mapper) Rune(r rune) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r < ' ' || r == 0x7f {
		return // control characters arrive as keys
	}
	m.flushHeldLocked()
	m.flushWheelLocked()
	m.buf = append(m.buf, r)
	if len(m.buf) >= action.MaxTextLen {
		m.flushTextLocked()
		return
	}
	m.typeGen++
	gen := m.typeGen
	if m.typeStop != nil {
		m.typeStop()
	}
	m.typeStop = m.clock.AfterFunc(m.typePause, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.typeGen == gen {
			m.flushTextLocked()
		}
	})
	m.pendingLocked()
}

// Text types a whole string at once (a paste): pending text is kept in
// front of it and everything goes out as soon as the pause ends.
func (m *Mapper) Text(s string) {
	for _, r := range s {
		switch r {
		case '\n':
			m.Key(fyne.KeyReturn, false)
		case '\t':
			m.Key(fyne.KeyTab, false)
		case '\r':
		default:
			m.Rune(r)
		}
	}
}

// Key handles a typed key. Action keys flush pending input and become a key
// action; keys that type characters are ignored (their runes arrive);
// others are refused.
func (m *Mapper) Key(k fyne.KeyName, shift bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name, res := MapKey(k, shift, m.set)
	switch res {
	case KeyAction:
		m.emitLocked(action.PressKey(name))
	case KeyRefused:
		m.refuseLocked(fmt.Sprintf("Key %s not sent: the %s action set has no such key.", readableKey(name), m.set))
	}
}

// Shortcut handles a Ctrl/Alt combination. Ctrl+A becomes CTRL+A and a paste
// types the clipboard's text; it reports false for the others, which are
// not page input (the caller may treat them as app shortcuts).
func (m *Mapper) Shortcut(s fyne.Shortcut) bool {
	switch sc := s.(type) {
	case *fyne.ShortcutSelectAll:
		m.Do(action.PressKey("CTRL+A"))
		return true
	case *fyne.ShortcutPaste:
		if sc.Clipboard != nil {
			if txt := sc.Clipboard.Content(); txt != "" {
				m.Text(txt)
				return true
			}
		}
		m.Refuse("Paste not sent: the clipboard holds no text.")
		return true
	}
	return false
}

// Click flushes pending input, then sends a click at viewport pixel x,y. In
// a set with double_click, the click waits DoubleClickDelay: a second click
// within 3 px in that time makes the pair one double_click.
func (m *Mapper) Click(x, y int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.set.HasOp(action.DoubleClick) {
		m.emitLocked(action.ClickAt(x, y))
		return
	}
	if h := m.held; h != nil && m.clock.Now().Sub(m.heldAt) <= m.dblDelay && abs(*h.X-x) <= 3 && abs(*h.Y-y) <= 3 {
		m.held = nil
		m.heldGen++
		m.send(action.Action{Op: action.DoubleClick, X: h.X, Y: h.Y})
		return
	}
	m.emitLocked(action.Action{}) // flushes; the empty action is not sent
	a := action.ClickAt(x, y)
	m.held, m.heldAt = &a, m.clock.Now()
	m.heldGen++
	gen := m.heldGen
	m.clock.AfterFunc(m.dblDelay, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.heldGen == gen {
			m.flushHeldLocked()
		}
	})
}

func (m *Mapper) flushHeldLocked() {
	if m.held == nil {
		return
	}
	a := *m.held
	m.held = nil
	m.heldGen++
	m.send(a)
}

// Drag is a press at x,y and a release at x2,y2 more than a few pixels
// away: the extended set records it as a drag; the default set cannot.
func (m *Mapper) Drag(x, y, x2, y2 int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.set.HasOp(action.Drag) {
		m.refuseLocked("Drag not sent: the default action set has no drag (choose the extended set in Settings).")
		return
	}
	m.emitLocked(action.Action{Op: action.Drag, X: action.Int(x), Y: action.Int(y), X2: action.Int(x2), Y2: action.Int(y2)})
}

// Wheel adds one wheel event. fyneDY is Fyne's ScrollEvent.Scrolled.DY:
// positive when the wheel turns up (away from the person), which scrolls
// the page up, so the page delta is its negation.
func (m *Mapper) Wheel(fyneDY float32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fyneDY == 0 {
		return
	}
	m.flushHeldLocked()
	m.flushTextLocked()
	m.wheel += -float64(fyneDY) * WheelPixelsPerUnit
	m.wheelOn = true
	m.wheelGen++
	gen := m.wheelGen
	if m.whStop != nil {
		m.whStop()
	}
	m.whStop = m.clock.AfterFunc(m.wheelPause, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.wheelGen == gen {
			m.flushWheelLocked()
		}
	})
	m.pendingLocked()
}

// Do flushes pending text and scroll, then emits a.
func (m *Mapper) Do(a action.Action) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.emitLocked(a)
}

// Flush sends pending text and scroll now.
func (m *Mapper) Flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.flushHeldLocked()
	m.flushTextLocked()
	m.flushWheelLocked()
}

// Drop forgets pending text and scroll without sending them (the episode
// was discarded).
func (m *Mapper) Drop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.buf = nil
	m.typeGen++
	m.held = nil
	m.heldGen++
	m.wheel, m.wheelOn = 0, false
	m.wheelGen++
	m.pendingLocked()
}

// Refuse reports input that cannot be sent.
func (m *Mapper) Refuse(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refuseLocked(msg)
}

func (m *Mapper) emitLocked(a action.Action) {
	m.flushHeldLocked()
	m.flushTextLocked()
	m.flushWheelLocked()
	if a.Op != "" {
		m.send(a)
	}
}

func (m *Mapper) flushTextLocked() {
	m.typeGen++
	if len(m.buf) == 0 {
		return
	}
	text := string(m.buf)
	m.buf = nil
	m.send(action.TypeText(text))
	m.pendingLocked()
}

func (m *Mapper) flushWheelLocked() {
	m.wheelGen++
	if !m.wheelOn {
		return
	}
	dy := int(math.Round(m.wheel))
	m.wheel, m.wheelOn = 0, false
	dy = clamp(dy, -action.MaxScroll, action.MaxScroll)
	if dy != 0 {
		m.send(action.ScrollBy(dy))
	}
	m.pendingLocked()
}

func (m *Mapper) send(a action.Action) {
	m.hoverGen++ // any action ends a pending rest
	switch {
	case a.Op == action.Drag && a.X2 != nil:
		m.pointer = &[2]int{*a.X2, *a.Y2}
	case a.X != nil && a.Y != nil:
		m.pointer = &[2]int{*a.X, *a.Y}
	}
	if m.ev.Emit != nil {
		m.ev.Emit(a)
	}
}

func (m *Mapper) pendingLocked() {
	if m.ev.Pending != nil {
		dy := 0
		if m.wheelOn {
			dy = clamp(int(math.Round(m.wheel)), -action.MaxScroll, action.MaxScroll)
		}
		m.ev.Pending(string(m.buf), dy)
	}
}

func (m *Mapper) refuseLocked(msg string) {
	if m.ev.Refused != nil {
		m.ev.Refused(msg)
	}
}

// readableKey names a key for a message.
func readableKey(name string) string {
	switch fyne.KeyName(name) {
	case fyne.KeyPageUp:
		return "Page Up"
	case fyne.KeyPageDown:
		return "Page Down"
	}
	return name
}
