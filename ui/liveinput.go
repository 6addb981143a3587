package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
)

// The live view's input: pointer, wheel and keyboard events become
// viewport-pixel input for its sink (a Mapper while the person acts on
// the page).

// InputSink receives what the person does in the live view, already mapped
// to viewport pixels: a *Mapper while the person acts on the page (Record's
// episode, a session taken over), otherwise a screen's sink that says why
// the input goes nowhere.
type InputSink interface {
	Click(x, y int)
	Drag(x, y, x2, y2 int)
	Rune(r rune)
	Key(k fyne.KeyName, shift bool)
	Wheel(fyneDY float32)
	Hover(x, y int)
	Shortcut(s fyne.Shortcut) bool
	Refuse(msg string)
}

// dragThreshold is how far (viewport pixels) the pointer must move between
// press and release for the gesture to be a drag rather than a click.
const dragThreshold = 4

func (v *LiveView) touched() {
	if v.OnTouched != nil {
		v.OnTouched()
	}
}

// MouseDown focuses the view (Fyne does not on its own) and starts a press.
func (v *LiveView) MouseDown(ev *desktop.MouseEvent) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil && !v.focused {
		c.Focus(v)
	}
	if !v.ShowingStill() { // a press on a still picture only returns to live (on release)
		v.touched()
	}
	switch ev.Button {
	case desktop.MouseButtonPrimary:
		v.down = true
		v.downPos, v.lastPos = ev.Position, ev.Position
	case desktop.MouseButtonSecondary:
		v.refuse("Right click not sent: the action set has no right click.")
	default:
		v.refuse("Middle click not sent: the action set has no middle click.")
	}
}

// MouseUp ends a press over the view.
func (v *LiveView) MouseUp(ev *desktop.MouseEvent) {
	if ev.Button == desktop.MouseButtonPrimary && v.down {
		v.release(ev.Position)
	}
}

// TappedSecondary is implemented so a right click lands here rather than
// on a widget behind; MouseDown already refused it.
func (v *LiveView) TappedSecondary(*fyne.PointEvent) {}

// Dragged tracks a press that moves (its events continue outside the view).
func (v *LiveView) Dragged(ev *fyne.DragEvent) {
	if v.down {
		v.lastPos = ev.Position
	}
}

// DragEnd is the release of a press that moved, wherever it happened.
func (v *LiveView) DragEnd() {
	if v.down {
		v.release(v.lastPos)
	}
}

func (v *LiveView) release(at fyne.Position) {
	v.down = false
	if v.Sink == nil {
		return
	}
	size := v.sizeOrMin()
	x, y, ok := ViewToPage(v.downPos, size)
	if !ok {
		return
	}
	x2, y2, _ := ViewToPage(at, size)
	if abs(x2-x) <= dragThreshold && abs(y2-y) <= dragThreshold {
		if v.ShowingStill() {
			v.ShowLive()
			v.touched()
			v.refuse("Back to the live page: that click was not sent. Click again to act on the page.")
			return
		}
		v.ShowMarker(x, y)
		v.Sink.Click(x, y)
		return
	}
	v.Sink.Drag(x, y, x2, y2)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// MouseIn starts tracking the pointer over the page.
func (v *LiveView) MouseIn(ev *desktop.MouseEvent) { v.MouseMoved(ev) }

// MouseMoved reports where the pointer rests (the extended set sends a move
// for hover menus; the default set ignores it).
func (v *LiveView) MouseMoved(ev *desktop.MouseEvent) {
	if v.Sink == nil || v.down || v.ShowingStill() {
		return
	}
	if x, y, ok := ViewToPage(ev.Position, v.sizeOrMin()); ok {
		v.Sink.Hover(x, y)
	}
}

// MouseOut cancels a pending hover.
func (v *LiveView) MouseOut() {
	if v.Sink != nil {
		v.Sink.Hover(-1, -1)
	}
}

// Scrolled gathers wheel notches.
func (v *LiveView) Scrolled(ev *fyne.ScrollEvent) {
	v.touched()
	if v.Sink != nil && ev.Scrolled.DY != 0 {
		v.Sink.Wheel(ev.Scrolled.DY)
	} else if ev.Scrolled.DX != 0 && ev.Scrolled.DY == 0 {
		v.refuse("Sideways scroll not sent: the action set scrolls only up and down.")
	}
}

// Cursor is a crosshair over the page.
func (v *LiveView) Cursor() desktop.Cursor { return desktop.CrosshairCursor }

// FocusGained shows the focus ring and says keys go to the page.
func (v *LiveView) FocusGained() {
	v.focused = true
	for _, b := range v.focusBox {
		b.Show()
		b.Refresh()
	}
	v.showKeyCue()
}

// FocusLost hides the ring and says how to give the page the keyboard.
func (v *LiveView) FocusLost() {
	v.focused, v.shift = false, false
	v.keys.Reset()
	for _, b := range v.focusBox {
		b.Hide()
		canvas.Refresh(b)
	}
	v.showKeyCue()
}

// Focused reports whether the view has the keyboard.
func (v *LiveView) Focused() bool { return v.focused }

// AcceptsTab keeps Tab for the page instead of moving Fyne's focus.
func (v *LiveView) AcceptsTab() bool { return true }

// TypedRune buffers typed text (not the character of a shortcut's key
// still held: see KeyGuard).
func (v *LiveView) TypedRune(r rune) {
	if !v.keys.TypedRune() {
		return
	}
	v.touched()
	if v.Sink != nil {
		v.Sink.Rune(r)
	}
}

// TypedKey maps special keys (not a shortcut's key still held).
func (v *LiveView) TypedKey(ev *fyne.KeyEvent) {
	if !v.keys.TypedKey(ev.Name) {
		return
	}
	v.touched()
	if v.Sink != nil {
		v.Sink.Key(ev.Name, v.shift)
	}
}

// KeyDown tracks Shift (for Shift+Tab) and the keys held.
func (v *LiveView) KeyDown(ev *fyne.KeyEvent) {
	v.keys.KeyDown(ev.Name)
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = true
	}
}

// KeyUp tracks Shift and the keys held.
func (v *LiveView) KeyUp(ev *fyne.KeyEvent) {
	v.keys.KeyUp(ev.Name)
	if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
		v.shift = false
	}
}

// HoldShortcutKey keeps the key of s from typing into the page until it is
// released. The view calls it for the shortcuts it gets; the Record tab
// calls it for those the window took while the view did not have the
// keyboard (a shortcut such as Ctrl+Shift+S that focuses the view while
// its key is still down).
func (v *LiveView) HoldShortcutKey(s fyne.Shortcut) { v.keys.ShortcutTyped(s) }

// TypedShortcut sends Ctrl+A and paste to the page and hands other
// shortcuts to OnShortcut (toolbar keys); the rest are refused. A
// shortcut the keyboard repeats while it is held acts once.
func (v *LiveView) TypedShortcut(s fyne.Shortcut) {
	if v.keys.ShortcutTyped(s) {
		return
	}
	if v.OnShortcut != nil && v.OnShortcut(s) {
		return
	}
	v.touched()
	if v.Sink != nil && v.Sink.Shortcut(s) {
		return
	}
	v.refuse("Shortcut " + readableShortcut(s) + " not sent: the action set cannot express it.")
}

// readableShortcut names a shortcut for a message ("Ctrl+Q", "Copy").
func readableShortcut(s fyne.Shortcut) string {
	n := strings.TrimPrefix(s.ShortcutName(), "CustomDesktop:")
	return strings.Replace(n, "Control+", "Ctrl+", 1)
}

func (v *LiveView) refuse(msg string) {
	if v.Sink != nil {
		v.Sink.Refuse(msg)
	}
}
