package ui

import (
	"fmt"
	"os"
	"strings"

	"fyne.io/fyne/v2"
)

// Main window sizes (logical units).
var (
	// DefaultWindowSize is what the window opens at when the screen's size
	// is unknown or small: the live view shows 800×600, the Review player
	// somewhat less.
	DefaultWindowSize = fyne.NewSize(1200, 800)
	// LargeWindowSize shows the Record live view and the Review player
	// both at 800×600 (one viewport pixel per unit), with room for the
	// Review header's goal on two lines.
	LargeWindowSize = fyne.NewSize(1360, 1000)
)

// WindowSizeEnv, when set to WIDTHxHEIGHT (logical units, e.g. 1360x1000),
// is the size the main window opens at, whatever the screen.
const WindowSizeEnv = "WAYMARK_WINDOW_SIZE"

// Room a window needs around its content on a desktop: the title bar and
// frame the window manager adds (the work area already leaves out panels).
const (
	frameWidth  = 16
	frameHeight = 48
)

// WindowSizeFor is the size to open the main window at on a screen whose
// usable area is screen (logical units; zero when unknown): as close to
// LargeWindowSize as the screen allows, never below DefaultWindowSize.
func WindowSizeFor(screen fyne.Size) fyne.Size {
	if screen.Width <= 0 || screen.Height <= 0 {
		return DefaultWindowSize
	}
	fit := func(avail, lo, hi float32) float32 { return max(lo, min(hi, float32(int(avail)))) }
	return fyne.NewSize(
		fit(screen.Width-frameWidth, DefaultWindowSize.Width, LargeWindowSize.Width),
		fit(screen.Height-frameHeight, DefaultWindowSize.Height, LargeWindowSize.Height))
}

// ParseWindowSize reads a WIDTHxHEIGHT size such as "1360x1000".
func ParseWindowSize(s string) (fyne.Size, error) {
	var w, h int
	if _, err := fmt.Sscanf(strings.ToLower(strings.TrimSpace(s)), "%dx%d", &w, &h); err != nil || w < 400 || h < 300 {
		return fyne.Size{}, fmt.Errorf("%s=%q is not a window size: write WIDTHxHEIGHT, e.g. 1360x1000 (at least 400x300)", WindowSizeEnv, s)
	}
	return fyne.NewSize(float32(w), float32(h)), nil
}

// FitWindow resizes the main window for the screen it opens on (see
// WindowSizeFor; WindowSizeEnv overrides it) and says what it did, for a
// debug log. Call it on the Fyne main goroutine once the window has been
// shown (e.g. from the app's Lifecycle OnStarted): the screen and the
// canvas scale are known only then. workArea reads the screen's usable
// area in pixels (the app asks the desktop driver); where it cannot tell
// (no desktop driver, e.g. in tests), the window keeps its size.
func FitWindow(w fyne.Window, workArea func() (w, h int, ok bool)) string {
	if env := os.Getenv(WindowSizeEnv); env != "" {
		s, err := ParseWindowSize(env)
		if err != nil {
			return err.Error() + "; the window keeps its size"
		}
		w.Resize(s)
		return fmt.Sprintf("window %vx%v (from %s)", s.Width, s.Height, WindowSizeEnv)
	}
	pw, ph, ok := 0, 0, false
	if workArea != nil {
		pw, ph, ok = workArea()
	}
	if !ok {
		return "screen size unknown; the window keeps its size"
	}
	scale := w.Canvas().Scale()
	if scale <= 0 {
		scale = 1
	}
	screen := fyne.NewSize(float32(pw)/scale, float32(ph)/scale)
	s := WindowSizeFor(screen)
	w.Resize(s)
	return fmt.Sprintf("window %vx%v for a %dx%d px work area at scale %v", s.Width, s.Height, pw, ph, scale)
}
