package review

import (
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui/review/internal/fixture"
)

// After an Undo the next step was taken on the page of the last kept
// step: recorded Profile (1), Security (2), Notifications (3), Undo,
// Finish (4), step 4 shows Security's page and URL, not the undone
// Notifications page, in the picture, the "On:" line, the side-by-side
// view and the pointer.
func TestPlayerBeforeSkipsUndoneSteps(t *testing.T) {
	e := newEnv(t)
	task, err := fixture.Task(e.s, "Read the security settings", dataset.Navigation, "http://shop.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	acts := []action.Action{action.ClickAt(40, 143), action.ClickAt(45, 175), action.ClickAt(58, 207), action.FinishWith("")}
	id, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: acts, Undone: []int{3}})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.removed(id); !sameInts(got, []int{3}) {
		t.Fatalf("removed steps %v, want [3]", got)
	}
	e.openEpisode(id)
	p := &e.tab.player
	if len(p.steps) != 5 || p.steps[4].Action == nil || p.steps[4].Action.Op != action.Finish {
		t.Fatalf("steps %d, want 0..4 with the finish last", len(p.steps))
	}
	p.show(4, false)
	if !sameImage(p.view.Image(), e.shot(2)) {
		t.Errorf("step 4's before is not step 2's page (the last kept step): same as the undone step 3's: %v", sameImage(p.view.Image(), e.shot(3)))
	}
	if !strings.Contains(p.info.Text, "On: "+p.steps[2].URL+" ") {
		t.Errorf("step 4's info says %q, want On: %s", p.info.Text, p.steps[2].URL)
	}
	if pt := p.pointerBefore(4); pt == nil || pt.X != 45 || pt.Y != 175 {
		t.Errorf("pointer before step 4 at %v, want where step 2 left it (45,175)", pt)
	}
	// The undone step itself was taken on step 2's page too.
	p.show(3, false)
	if !sameImage(p.view.Image(), e.shot(2)) || !strings.Contains(p.info.Text, "On: "+p.steps[2].URL+" ") {
		t.Errorf("step 3's before is not step 2's page: %q", p.info.Text)
	}
	p.show(2, false)
	if !sameImage(p.view.Image(), e.shot(1)) {
		t.Error("step 2's before is not step 1's page")
	}
}
