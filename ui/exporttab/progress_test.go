package exporttab

import (
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"waymark/ui"
)

// near tells whether two colours differ by at most 24 in every channel.
func near(a, b color.Color) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) bool {
		x, y = x>>8, y>>8
		return x+24 >= y && y+24 >= x
	}
	return d(ar, br) && d(ag, bg) && d(ab, bb)
}

// At 0 % the bar's track must not look filled: in the dark theme Fyne's own
// bar paints it a faded primary blue, which reads as a full bar.
func TestProgressBarLooksEmptyAtZero(t *testing.T) {
	for _, th := range []fyne.Theme{ui.NewAppTheme(ui.ThemeDark, 1), ui.NewAppTheme(ui.ThemeLight, 1)} {
		app := test.NewTempApp(t)
		app.Settings().SetTheme(th)
		tab := New(&ui.Context{Store: store(t, 1, 1)})
		w := test.NewTempWindow(t, tab.Content())
		w.Resize(fyne.NewSize(900, 700))
		v := app.Settings().ThemeVariant()
		pos := app.Driver().AbsolutePositionForObject(tab.bar)
		size := tab.bar.Size()
		sc := w.Canvas().Scale()
		at := func(fx float32) color.Color {
			img := w.Canvas().Capture()
			return img.At(int((pos.X+size.Width*fx)*sc), int((pos.Y+size.Height/2)*sc))
		}
		primary := th.Color(theme.ColorNamePrimary, v)
		if c := at(0.8); near(c, primary) || !near(c, th.Color(theme.ColorNameInputBackground, v)) {
			t.Errorf("at 0%% the track at 80%% of its width is %v: want the input background %v, not primary %v", c, th.Color(theme.ColorNameInputBackground, v), primary)
		}
		tab.bar.SetValue(0.5)
		if c := at(0.25); !near(c, primary) {
			t.Errorf("at 50%% the bar at 25%% of its width is %v, want primary %v", c, primary)
		}
		if c := at(0.8); near(c, primary) {
			t.Errorf("at 50%% the track at 80%% of its width is primary %v", c)
		}
	}
}

// One episode of one step is "1 episode (1 step", not "1 episodes".
func TestExportSaysOneEpisodeInTheSingular(t *testing.T) {
	s := store(t, 1, 1)
	tab, n, ch := newTab(t, s)
	tab.out.SetText(filepath.Join(t.TempDir(), "ds"))
	tab.licence.SetText("cc-by-4.0")
	tab.testFraction.SetText("0")
	test.Tap(tab.exportBtn)
	if r := wait(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	for _, got := range append([]string{tab.status.Text, tab.counts.Text}, n.all()...) {
		if strings.Contains(got, "1 episodes") || strings.Contains(got, "1 steps") || strings.Contains(got, "1 tasks") {
			t.Errorf("plural for one: %q", got)
		}
	}
	if !strings.Contains(tab.status.Text, "Exported 1 episode (1 step,") || !strings.Contains(tab.status.Text, "train: 1 episode of 1 task") {
		t.Errorf("status %q", tab.status.Text)
	}
}

// When nothing matches, or the folder holds an export, the reason names
// the screen's checkboxes, not the command line's flags.
func TestNothingToExportNamesTheCheckbox(t *testing.T) {
	s := store(t, 3, 1) // two reviewed as success, one unreviewed
	tab, _, ch := newTab(t, s)
	tab.out.SetText(filepath.Join(t.TempDir(), "ds"))
	tab.licence.SetText("cc-by-4.0")
	tab.outcomes.SetSelected([]string{"failure"})
	test.Tap(tab.exportBtn)
	if r := wait(t, ch); r.err == nil {
		t.Fatal("exported with nothing matching")
	}
	if strings.Contains(tab.status.Text, "--") || !strings.Contains(tab.status.Text, "Include finished episodes without an outcome") {
		t.Errorf("status %q", tab.status.Text)
	}
	// Again into a folder that holds an export: the checkbox to tick.
	tab.outcomes.SetSelected(nil)
	test.Tap(tab.exportBtn)
	if r := wait(t, ch); r.err != nil {
		t.Fatal(r.err)
	}
	test.Tap(tab.exportBtn)
	wait(t, ch)
	if strings.Contains(tab.status.Text, "--") || !strings.Contains(tab.status.Text, "by ticking “Replace a previous Waymark export in this folder”") {
		t.Errorf("status %q", tab.status.Text)
	}
}
