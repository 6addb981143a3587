package review

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
)

// E, L and O answer AgentRewardBench's questions from the keyboard (each
// press moves to the next answer: no, yes, unsure, unanswered; optimality
// 1–4, unanswered) and K marks the step shown as a key screenshot (again:
// unmarks). The answers are saved with the review, shown on the form, and
// loaded back when the episode is opened again; another episode starts
// unanswered.
func TestJudgeFieldKeys(t *testing.T) {
	e := newEnv(t)
	p, f := &e.tab.player, &e.tab.form
	e.key(fyne.KeyN) // opens the newest episode at step 1
	ep := p.ep.ID
	e.key(fyne.Key1)
	e.key(fyne.KeyE) // no
	e.key(fyne.KeyE) // yes
	e.key(fyne.KeyL) // no
	for range 3 {
		e.key(fyne.KeyO) // 1, 2, 3
	}
	e.key(fyne.KeyK) // step 1 is key
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyK) // step 3 too
	if f.judge.sideRadio.Selected != "Yes" || f.judge.loopRadio.Selected != "No" || f.judge.optSel.Selected != "3 somewhat optimal" || !f.judge.keyCheck.Checked {
		t.Errorf("the form shows side effect %q, looping %q, optimality %q, key %v", f.judge.sideRadio.Selected, f.judge.loopRadio.Selected, f.judge.optSel.Selected, f.judge.keyCheck.Checked)
	}
	e.key(fyne.KeyLeft)
	if f.judge.keyCheck.Checked {
		t.Errorf("step 2 shows as a key screenshot")
	}
	e.ctrlS()
	rs := e.reviews(ep)
	if len(rs) != 1 || rs[0].SideEffect != dataset.JudgeYes || rs[0].Looping != dataset.JudgeNo || rs[0].Optimality != 3 || !slices.Equal(rs[0].KeySteps, []int{1, 3}) {
		t.Fatalf("stored %+v: want side effect yes, looping no, optimality 3, key steps [1 3]", rs)
	}

	e.key(fyne.KeyN)
	if f.judge.sideEffect != "" || f.judge.optimality != 0 || len(f.judge.keySteps) != 0 || f.judge.sideRadio.Selected != "" {
		t.Errorf("a new episode starts with %+v", f.judge)
	}
	it, _ := e.findItem(ep)
	e.tab.queue.state = ""
	e.tab.openItem(it)
	if f.judge.sideEffect != dataset.JudgeYes || f.judge.optimality != 3 || !f.judge.keySteps[3] {
		t.Errorf("reopened: %+v", f.judge)
	}
	// Unsure, then unanswered again; O past 4 is unanswered.
	e.key(fyne.KeyE)
	e.key(fyne.KeyE)
	if f.judge.sideEffect != "" {
		t.Errorf("E after unsure gives %q, want unanswered", f.judge.sideEffect)
	}
	e.key(fyne.KeyO)
	e.key(fyne.KeyO)
	if f.judge.optimality != 0 || f.judge.optSel.Selected != "" {
		t.Errorf("O after 4 gives %d (%q), want unanswered", f.judge.optimality, f.judge.optSel.Selected)
	}
}
