package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"waymark/dataset"
)

// An exploration opened in Review is cut from there: Cut a task… opens the
// Record screen's cut dialog (the ui kit's) on the exploration's kept
// actions, from the step shown in the player to the last; an information
// task without its answer is refused in place; the cut is stored (with
// its answer, by the reviewer) and opened, and the
// exploration lists it when opened again.
func TestReviewCutFromExploration(t *testing.T) {
	e := newCutEnv(t)
	e.open(e.expl)
	o := &e.tab.form.origin
	if !o.explBox.Visible() || o.cutBtn.Disabled() {
		t.Fatalf("the exploration's form: Cut a task… shown %v, enabled %v", o.explBox.Visible(), !o.cutBtn.Disabled())
	}
	e.tab.player.show(3, false) // the player shows step 3
	test.Tap(o.cutBtn)
	d := o.cutDlg
	if d == nil || d.Step(d.From.Selected) != 3 || d.Step(d.To.Selected) != 6 || len(d.To.Options) != 6 {
		t.Fatalf("the cut dialog: %+v", d)
	}
	d.Instruction.SetText("Find the sixth page's title")
	d.Category.SetSelected(dataset.Information)
	d.KeyPoints.SetText("url: page/6")
	d.D.Submit()
	if o.cutDlg != d {
		t.Fatal("an information task was cut without its answer")
	}
	d.Answer.SetText("Page 6")
	d.D.Submit()
	if o.cutDlg != nil {
		t.Fatal("the cut dialog stayed open")
	}
	cuts, err := e.s.Cuts(t.Context(), e.expl)
	if err != nil || len(cuts) != 3 {
		t.Fatalf("the exploration has %d cuts (%v), want 3", len(cuts), err)
	}
	var cut dataset.Episode
	for _, c := range cuts {
		if c.Goal == "Find the sixth page's title" {
			cut = c
		}
	}
	if cut.ID == "" || cut.SpanFrom != 3 || cut.SpanTo != 6 || cut.FinalAnswer != "Page 6" || cut.Category != dataset.Information {
		t.Fatalf("the cut stored: %+v", cut)
	}
	if ep := e.tab.player.ep; ep == nil || ep.ID != cut.ID {
		t.Fatalf("after the cut the player shows %+v, not the cut", ep)
	}
	if s := e.tab.form.status.Text; !strings.Contains(s, "Steps 3–6 cut as “Find the sixth page's title”") {
		t.Fatalf("the status says %q", s)
	}
	e.open(e.expl)
	if !strings.Contains(o.detail.Text, "3 tasks cut from it") || !strings.Contains(o.detail.Text, "steps 3–6 · information: Find the sixth page's title") {
		t.Fatalf("the exploration's form:\n%s", o.detail.Text)
	}
}
