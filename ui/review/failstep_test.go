package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
)

// A label is data: the first failing step the form shows when failure is
// picked is what is saved, however the reviewer moves through the steps
// afterwards; it changes only when the reviewer changes it (F on a step,
// or the list). The keys are those a reviewer pressed: step 1, 2 (failure,
// "step 1"), W, →, →, →, C, End, X, T, Ctrl+S.
func TestFailingStepStaysWhereItWasSet(t *testing.T) {
	e := newEnv(t)
	e.key(fyne.KeyN) // opens the oldest unreviewed episode
	p, f := &e.tab.player, &e.tab.form
	e.key(fyne.KeyHome)
	e.key(fyne.KeyRight)
	if p.cur != 1 {
		t.Fatalf("at step %d, want 1", p.cur)
	}
	e.key(fyne.Key2)
	if f.failStep == nil || *f.failStep != 1 || f.failStepSel.Selected != "step 1" {
		t.Fatalf("after 2 on step 1 the form shows %q (failStep %v, outcome %q)", f.failStepSel.Selected, f.failStep, f.outcome)
	}
	for _, k := range []fyne.KeyName{fyne.KeyW, fyne.KeyRight, fyne.KeyRight, fyne.KeyRight, fyne.KeyC, fyne.KeyEnd, fyne.KeyX, fyne.KeyT} {
		e.key(k)
		if f.failStepSel.Selected != "step 1" {
			t.Fatalf("after %s (at step %d) the form shows %q", k, p.cur, f.failStepSel.Selected)
		}
	}
	e.ctrlS()
	rs := e.reviews(p.ep.ID)
	if len(rs) != 1 || rs[0].FailureStep == nil || *rs[0].FailureStep != 1 {
		t.Fatalf("stored %+v, want failure_step 1", rs)
	}
	if !strings.Contains(f.status.Text, "at step 1") {
		t.Errorf("the status says %q", f.status.Text)
	}

	// F marks the step shown as the first failing step; it is saved.
	e.key(fyne.KeyHome)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyF)
	if f.failStepSel.Selected != "step 2" || !f.dirty {
		t.Fatalf("after F on step 2 the form shows %q (dirty %v)", f.failStepSel.Selected, f.dirty)
	}
	e.key(fyne.KeyEnd)
	e.ctrlS()
	rs = e.reviews(p.ep.ID)
	if len(rs) != 1 || *rs[0].FailureStep != 2 {
		t.Fatalf("after F and Ctrl+S: %+v, want failure_step 2", rs)
	}

	// F on an episode with another outcome picks failure at that step.
	e.key(fyne.Key1)
	e.key(fyne.KeyF)
	if f.outcome != dataset.OutcomeFailure || f.failStepSel.Selected != "step 4" {
		t.Errorf("F after success: outcome %q, %q", f.outcome, f.failStepSel.Selected)
	}
}
