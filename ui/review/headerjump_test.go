package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"waymark/dataset"
	"waymark/ui/review/internal/fixture"
)

// The player's picture stays where it is from one episode to the next: a
// long goal or answer does not push it down (the header keeps one height).
func TestPlayerDoesNotJumpWithTheHeader(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("Find the page that explains how to cancel a workshop booking and read the refund rules, ", 3)
	task, _ := fixture.Task(e.s, long, dataset.Information, "http://shop.test/help", nil)
	id, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(2), Answer: strings.Repeat("seven days before the workshop ", 4)})
	if err != nil {
		t.Fatal(err)
	}
	e.w.Resize(fyne.NewSize(1360, 1000)) // the default window
	p := &e.tab.player
	y := func() float32 {
		// Lay out again as the window does when a size changed: twice, a
		// wrapped label's height follows its width.
		for range 2 {
			e.w.Resize(fyne.NewSize(1361, 1000))
			e.w.Resize(fyne.NewSize(1360, 1000))
		}
		e.w.Canvas().Capture()
		return fyne.CurrentApp().Driver().AbsolutePositionForObject(p.view).Y
	}
	short, _ := e.findItem(e.eps[0])
	e.tab.openItem(short)
	y0 := y()
	it, _ := e.findItem(id)
	e.tab.openItem(it)
	if y1 := y(); y1 != y0 {
		t.Errorf("the picture moved from y=%v to y=%v with a longer goal", y0, y1)
	}
	if p.goal.Text != strings.TrimSpace(long) {
		t.Errorf("goal %q", p.goal.Text)
	}
}

// Side by side, the two pictures share the whole pane: each is as wide as
// half of it (or as the height allows), not half-size in half the pane.
func TestSideBySideUsesTheWholePane(t *testing.T) {
	e := newEnv(t)
	e.w.Resize(fyne.NewSize(1360, 1000))
	p := &e.tab.player
	e.key(fyne.KeyN)
	e.key(fyne.KeyB)
	e.w.Resize(fyne.NewSize(1361, 1000))
	e.w.Resize(fyne.NewSize(1360, 1000))
	e.w.Canvas().Capture()
	var pane fyne.CanvasObject = p.view
	d := fyne.CurrentApp().Driver()
	left, right := d.AbsolutePositionForObject(pane), d.AbsolutePositionForObject(p.afterView)
	a := p.view.Size()
	paneW := d.AbsolutePositionForObject(p.stepList).X // the pictures' pane ends where the step list begins
	if used := right.X + p.afterView.Size().Width - left.X; used < paneW-left.X-2*theme.Padding()-4 && a.Height < 590 {
		t.Errorf("side by side the pictures use %.0f of the %.0f pane (each %v)", used, paneW-left.X, a)
	}
}

// A branch's header line and its "Open the parent" button show whole in
// the default window, and the picture stays where it is for an episode
// that is no branch.
func TestBranchHeaderShowsWhole(t *testing.T) {
	e := newEnv(t)
	parent := e.eps[0]
	ep, err := e.s.GetEpisode(t.Context(), parent)
	if err != nil {
		t.Fatal(err)
	}
	branch, err := fixture.Episode(e.s, ep.TaskID, fixture.Options{Annotator: "bo", Actions: fixture.Clicks(3), Parent: parent, BranchStep: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.w.Resize(fyne.NewSize(1360, 1000))
	p := &e.tab.player
	d := fyne.CurrentApp().Driver()
	layout := func() {
		for range 2 {
			e.w.Resize(fyne.NewSize(1361, 1000))
			e.w.Resize(fyne.NewSize(1360, 1000))
		}
		e.w.Canvas().Capture()
	}
	e.openEpisode(e.eps[1])
	layout()
	y0 := d.AbsolutePositionForObject(p.view).Y
	e.openEpisode(branch)
	layout()
	if y := d.AbsolutePositionForObject(p.view).Y; y != y0 {
		t.Errorf("the picture moved from y=%v to y=%v for a branch", y0, y)
	}
	top := y0 // the header ends above the picture
	for name, o := range map[string]fyne.CanvasObject{"the branch line": p.branch.label, "Open the parent": p.branch.parentBtn} {
		pos := d.AbsolutePositionForObject(o)
		if !o.Visible() || pos.Y+o.Size().Height > top || o.Size().Height < o.MinSize().Height {
			t.Errorf("%s is cut: at y=%v, %v high (needs %v), the header ends at y=%v", name, pos.Y, o.Size().Height, o.MinSize().Height, top)
		}
	}
	if lbl := p.branch.label; lbl.Size().Width < lbl.MinSize().Width || fyne.MeasureText(lbl.Text, theme.TextSize(), lbl.TextStyle).Width > lbl.Size().Width {
		t.Errorf("the branch line %q does not fit its %v width", lbl.Text, lbl.Size().Width)
	}
	if !strings.Contains(p.branch.label.Text, "Branch of ann's episode") || !strings.Contains(p.branch.label.Text, "step 2") {
		t.Errorf("branch line %q", p.branch.label.Text)
	}
}
