package review

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
)

// How the Review tab lays out: it fits the main window, the screenshot is
// shown at 800×600 when there is room, and side by side both pictures keep
// their shape.

// TestFitsTheMainWindow: the tab asks for no more than the main window
// allows a tab (else it would get a sideways scroll bar).
func TestFitsTheMainWindow(t *testing.T) {
	e := newEnv(t)
	e.key(fyne.KeyN)
	if w := e.tab.Content().MinSize().Width; w > ui.MaxTabWidth {
		t.Errorf("tab min width %.0f > ui.MaxTabWidth %d", w, ui.MaxTabWidth)
	}
	// In a wide window the screenshot is shown 1:1.
	if s := e.tab.player.view.Size(); s.Width != 800 || s.Height != 600 {
		t.Errorf("screenshot shown at %v in a 1700-wide window, want 800×600", s)
	}
	// In a narrow one it shrinks, keeping 4:3.
	e.w.Resize(fyne.NewSize(1200, 800))
	if s := e.tab.player.view.Size(); s.Width >= 800 || s.Width < 560 || s.Width*3 != s.Height*4 {
		t.Errorf("screenshot shown at %v in a 1200-wide window", s)
	}
}

// TestSideBySide: B shows the result beside the action, both 4:3 and
// fitting the window; B again goes back to one picture.
func TestSideBySide(t *testing.T) {
	e := newEnv(t)
	p := &e.tab.player
	e.key(fyne.KeyN)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyB)
	if !p.afterView.Visible() || !sameImage(p.view.Image(), e.shot(1)) || !sameImage(p.afterView.Image(), e.shot(2)) {
		t.Fatal("side by side should show screenshot 1 (with the action) and screenshot 2")
	}
	if p.view.Action() == nil || p.afterView.Action() != nil {
		t.Error("the action belongs on the left picture only")
	}
	a, b := p.view.Size(), p.afterView.Size()
	if a != b || a.Width*3 != a.Height*4 || p.afterView.Position().X < a.Width {
		t.Errorf("pictures at %v and %v (after at %v)", a, b, p.afterView.Position())
	}
	e.key(fyne.KeyRight) // both follow the step
	if !sameImage(p.afterView.Image(), e.shot(3)) {
		t.Error("the result did not follow the step")
	}
	e.key(fyne.KeyB)
	if p.afterView.Visible() {
		t.Error("B again should hide the result")
	}
	if w := e.tab.Content().MinSize().Width; w > ui.MaxTabWidth {
		t.Errorf("tab min width %.0f > %d", w, ui.MaxTabWidth)
	}
}

// TestPlayerAt800x600InTheLargeWindow: in the main window at
// ui.LargeWindowSize (tab bar included, default theme) an information
// episode with a two-line goal and an answer check shows its screenshot
// 1:1.
func TestPlayerAt800x600InTheLargeWindow(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	goal := "According to the help centre, up to how many days before a workshop can you cancel a booking and get a full refund?"
	task, err := fixture.Task(s, goal, dataset.Information, "http://forms.waymark.test/", &action.Check{Kind: action.CheckKindAnswer, Answer: "7|7 days|seven|seven days"})
	if err != nil {
		t.Fatal(err)
	}
	reward := 0.0
	if _, err := fixture.Episode(s, task, fixture.Options{Annotator: "lena", Actions: fixture.Clicks(3), Answer: "8", Reward: &reward}); err != nil {
		t.Fatal(err)
	}
	w := test.NewTempWindow(t, nil)
	tab := New(&ui.Context{Store: s, Window: w, User: func() string { return "rita" }})
	tab.player.thumbs.syncLoad = true
	t.Cleanup(tab.Close)
	ui.NewMainWindow(&ui.Context{Window: w}, tab)
	w.Resize(ui.LargeWindowSize)
	if !tab.TypedKey(&fyne.KeyEvent{Name: fyne.KeyN}) || tab.player.ep == nil {
		t.Fatal("N did not open the episode")
	}
	if s := tab.player.view.Size(); s.Width != 800 || s.Height != 600 {
		t.Errorf("screenshot shown at %v in a %v main window, want 800×600", s, ui.LargeWindowSize)
	}
	w.Resize(ui.DefaultWindowSize)
	if s := tab.player.view.Size(); s.Width < minViewWidth || s.Width*3 != s.Height*4 {
		t.Errorf("screenshot shown at %v in a %v main window", s, ui.DefaultWindowSize)
	}
}
