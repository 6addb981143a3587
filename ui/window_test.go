package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// probeTab records what the window routes to it.
type probeTab struct {
	title     string
	content   fyne.CanvasObject
	keys      []fyne.KeyName
	shortcuts []string
	closed    bool
}

func (p *probeTab) Title() string              { return p.title }
func (p *probeTab) Content() fyne.CanvasObject { return p.content }
func (p *probeTab) TypedKey(e *fyne.KeyEvent) bool {
	p.keys = append(p.keys, e.Name)
	return true
}
func (p *probeTab) TypedShortcut(s fyne.Shortcut) bool {
	p.shortcuts = append(p.shortcuts, s.ShortcutName())
	return true
}
func (p *probeTab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}}
}
func (p *probeTab) Close() { p.closed = true }

func TestMainWindowRoutesKeysToTheShownTab(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	wide := canvas.NewRectangle(nil)
	wide.SetMinSize(fyne.NewSize(2000, 100))
	a := &probeTab{title: "A", content: wide}
	b := &probeTab{title: "B", content: canvas.NewRectangle(nil)}
	mw := NewMainWindow(&Context{Window: w}, a, nil, NewPlaceholderTab("Export", "Export will be here."), b)
	if n := len(mw.Tabs.Items); n != 3 {
		t.Fatalf("%d tabs, want 3 (nil skipped)", n)
	}
	if mw.Tabs.Items[0].Content.MinSize().Width > MaxTabWidth {
		t.Fatal("a tab wider than MaxTabWidth must scroll, not widen the window")
	}
	// A tab that grows wider later (the Settings' zoom) scrolls too.
	b.content.(*canvas.Rectangle).SetMinSize(fyne.NewSize(400, 100))
	if got := mw.Tabs.Items[2].Content.MinSize().Width; got != 400 {
		t.Fatalf("a narrow tab asks for %v, want its own 400", got)
	}
	b.content.(*canvas.Rectangle).SetMinSize(fyne.NewSize(3000, 100))
	if got := mw.Tabs.Items[2].Content.MinSize().Width; got > MaxTabWidth {
		t.Fatalf("a tab grown to 3000 asks for %v, more than MaxTabWidth", got)
	}
	c := w.Canvas()
	c.(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyN})
	mw.Select("B")
	c.(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyLeft})
	ctrlS := &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}
	c.(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(ctrlS)
	if len(a.keys) != 1 || a.keys[0] != fyne.KeyN || len(b.keys) != 1 || b.keys[0] != fyne.KeyLeft {
		t.Fatalf("keys a=%v b=%v", a.keys, b.keys)
	}
	if len(a.shortcuts) != 0 || len(b.shortcuts) != 1 {
		t.Fatalf("shortcuts a=%v b=%v (only the shown tab gets them)", a.shortcuts, b.shortcuts)
	}
	mw.Close()
	if !a.closed || !b.closed {
		t.Fatal("Close must reach every Closer")
	}
}

func TestWindowSizeForTheScreen(t *testing.T) {
	for _, c := range []struct{ screen, want fyne.Size }{
		{fyne.Size{}, DefaultWindowSize},                      // unknown
		{fyne.NewSize(1920, 1080), LargeWindowSize},           // full HD: all of it
		{fyne.NewSize(2560, 1440), LargeWindowSize},           // no bigger than needed
		{fyne.NewSize(1280, 900), fyne.NewSize(1264, 852)},    // what fits, less the frame
		{fyne.NewSize(1280, 853.33), fyne.NewSize(1264, 805)}, // 1920×1280 at scale 1.5
		{fyne.NewSize(1024, 768), DefaultWindowSize},          // small: as before
		{fyne.NewSize(1440, 900), fyne.NewSize(1360, 852)},    // wide but low
	} {
		if got := WindowSizeFor(c.screen); got != c.want {
			t.Errorf("screen %v: window %v, want %v", c.screen, got, c.want)
		}
	}
}

func TestParseWindowSize(t *testing.T) {
	if s, err := ParseWindowSize(" 1360X1000 "); err != nil || s != fyne.NewSize(1360, 1000) {
		t.Fatalf("got %v %v", s, err)
	}
	for _, bad := range []string{"big", "1360", "10x10", "1360x"} {
		if _, err := ParseWindowSize(bad); err == nil || !strings.Contains(err.Error(), WindowSizeEnv) {
			t.Errorf("%q: error %v, want one naming %s", bad, err, WindowSizeEnv)
		}
	}
}

// Without a desktop driver (tests) the screen is unknown: the window keeps
// its size, and says so.
func TestFitWindowWithoutAScreen(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, canvas.NewRectangle(nil))
	w.Resize(fyne.NewSize(900, 700))
	t.Setenv(WindowSizeEnv, "")
	if msg := FitWindow(w, func() (int, int, bool) { return 0, 0, false }); !strings.Contains(msg, "unknown") || w.Canvas().Size() != fyne.NewSize(900, 700) {
		t.Fatalf("%q, size %v", msg, w.Canvas().Size())
	}
	if msg := FitWindow(w, nil); !strings.Contains(msg, "unknown") {
		t.Fatalf("no work area reader: %q", msg)
	}
	t.Setenv(WindowSizeEnv, "")
	FitWindow(w, func() (int, int, bool) { return 1920, 1080, true })
	if s := w.Canvas().Size(); s != LargeWindowSize {
		t.Fatalf("size %v on a 1920x1080 work area, want %v", s, LargeWindowSize)
	}
	t.Setenv(WindowSizeEnv, "1300x950")
	FitWindow(w, nil)
	if s := w.Canvas().Size(); s != fyne.NewSize(1300, 950) {
		t.Fatalf("size %v with %s=1300x950", s, WindowSizeEnv)
	}
}
