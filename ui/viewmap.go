package ui

import (
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"waymark/engine/action"
)

// ViewToPage maps a pointer position in the live view (logical Fyne units,
// relative to the widget) to a viewport pixel (CSS pixels, 0 ≤ x < 800,
// 0 ≤ y < 600). view is the widget's logical size; the picture is drawn
// stretched over the whole widget, which the layout keeps at 800×600, so at
// any Fyne scale the mapping is pos × 800 / width. Positions are logical in
// Fyne whatever the scale, so the scale does not enter the formula.
// ok is false when the point lies outside the picture.
func ViewToPage(pos fyne.Position, view fyne.Size) (x, y int, ok bool) {
	if view.Width <= 0 || view.Height <= 0 {
		return 0, 0, false
	}
	fx := float64(pos.X) * action.ViewportWidth / float64(view.Width)
	fy := float64(pos.Y) * action.ViewportHeight / float64(view.Height)
	// A hair of tolerance absorbs float32 noise such as 99.99998 for 100.
	x = int(math.Floor(fx + 1e-3))
	y = int(math.Floor(fy + 1e-3))
	ok = fx >= -1e-3 && fy >= -1e-3 && x < action.ViewportWidth && y < action.ViewportHeight
	return clamp(x, 0, action.ViewportWidth-1), clamp(y, 0, action.ViewportHeight-1), ok
}

// PageToView is the inverse of ViewToPage: the centre of viewport pixel x,y in
// the widget's logical units. Overlays (the click marker) use it.
func PageToView(x, y int, view fyne.Size) fyne.Position {
	return fyne.NewPos(
		(float32(x)+0.5)*view.Width/action.ViewportWidth,
		(float32(y)+0.5)*view.Height/action.ViewportHeight)
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// KeyResult says what a key press becomes.
type KeyResult int

const (
	// KeyIgnored: the key produces text (it arrives again as a rune) or is a
	// modifier; nothing to do.
	KeyIgnored KeyResult = iota
	// KeyAction: the key is an action key of the set (Name holds its name).
	KeyAction
	// KeyRefused: the key means something on a page but the action set
	// cannot express it; the status bar says so.
	KeyRefused
)

// specialKeys maps Fyne key names to the action vocabulary's key names.
var specialKeys = map[fyne.KeyName]string{
	fyne.KeyReturn:    "ENTER",
	fyne.KeyEnter:     "ENTER",
	fyne.KeyTab:       "TAB",
	fyne.KeyEscape:    "ESCAPE",
	fyne.KeyBackspace: "BACKSPACE",
	fyne.KeyUp:        "UP",
	fyne.KeyDown:      "DOWN",
	fyne.KeyLeft:      "LEFT",
	fyne.KeyRight:     "RIGHT",
	fyne.KeyPageUp:    "PAGE_UP",
	fyne.KeyPageDown:  "PAGE_DOWN",
	fyne.KeyHome:      "HOME",
	fyne.KeyEnd:       "END",
	fyne.KeyDelete:    "DELETE",
}

// modifierKeys never become actions on their own.
var modifierKeys = map[fyne.KeyName]bool{
	desktop.KeyShiftLeft: true, desktop.KeyShiftRight: true,
	desktop.KeyControlLeft: true, desktop.KeyControlRight: true,
	desktop.KeyAltLeft: true, desktop.KeyAltRight: true,
	desktop.KeySuperLeft: true, desktop.KeySuperRight: true,
	desktop.KeyMenu: true, desktop.KeyCapsLock: true,
}

// MapKey turns a typed key (with Shift held or not) into the key name of the
// action set. Keys that also type a character (letters, digits, space,
// punctuation) are ignored here: they come as runes and are typed as text.
// A key the set cannot express is refused, with its readable name in name.
func MapKey(k fyne.KeyName, shift bool, set action.Set) (name string, res KeyResult) {
	if modifierKeys[k] || k == fyne.KeyUnknown {
		return "", KeyIgnored
	}
	n, ok := specialKeys[k]
	if !ok {
		if producesRune(k) {
			return "", KeyIgnored
		}
		return string(k), KeyRefused
	}
	if shift && n == "TAB" {
		n = "SHIFT+TAB"
	}
	if !set.HasKey(n) {
		return n, KeyRefused
	}
	return n, KeyAction
}

// producesRune reports whether a key types a character (so it also arrives
// through TypedRune).
func producesRune(k fyne.KeyName) bool {
	if len(k) == 1 {
		return true // letters, digits, punctuation
	}
	return k == fyne.KeySpace
}
