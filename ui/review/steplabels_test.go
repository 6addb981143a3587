package review

import (
	"maps"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// rowSub is the second line of step k's row in the step list, as drawn.
func (e *env) rowSub(k int) string {
	e.t.Helper()
	p := &e.tab.player
	row := p.createStepRow()
	p.updateStepRow(k, row)
	for _, o := range row.(*fyne.Container).Objects {
		if c, ok := o.(*fyne.Container); ok {
			return c.Objects[1].(*widget.Label).Text
		}
	}
	e.t.Fatal("no text in the step row")
	return ""
}

// C, W and X label the step shown correct, wrong and unnecessary; the
// same key again clears it. The step list and the form's radio show the
// label, it is saved with the review (beside the outcome and the first
// failing step), loaded back when the episode is opened again, and step 0
// (the start page) takes none.
func TestStepLabelKeys(t *testing.T) {
	e := newEnv(t)
	p, f := &e.tab.player, &e.tab.form
	e.key(fyne.KeyN) // opens the newest episode at step 1
	ep := p.ep.ID
	if p.cur != 1 {
		t.Fatalf("opened at step %d", p.cur)
	}
	e.key(fyne.KeyC)
	if f.labels.labels[1] != dataset.StepCorrect || f.labels.radio.Selected != "Correct (C)" {
		t.Errorf("after C: labels %v, radio %q", f.labels.labels, f.labels.radio.Selected)
	}
	if got := e.rowSub(1); !strings.Contains(got, "marked correct") {
		t.Errorf("step 1's row says %q", got)
	}
	e.key(fyne.KeyRight)
	if f.labels.radio.Selected != "" || f.labels.title.Text != "Label of step 2:" {
		t.Errorf("step 2 shows radio %q, title %q", f.labels.radio.Selected, f.labels.title.Text)
	}
	e.key(fyne.KeyW)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyX)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyX)
	e.key(fyne.KeyX) // again: step 4 unlabelled
	if got := e.rowSub(4); strings.Contains(got, "marked") {
		t.Errorf("step 4's row says %q after its label was cleared", got)
	}
	// Step 0 takes no label, and says why.
	e.key(fyne.KeyHome)
	e.key(fyne.KeyW)
	if _, ok := f.labels.labels[0]; ok || f.status.Importance != widget.DangerImportance || !strings.Contains(f.status.Text, "Step 0") {
		t.Errorf("step 0: labels %v, status %q", f.labels.labels, f.status.Text)
	}
	// Beside the outcome and the first failing step: failure at step 2.
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)
	e.key(fyne.Key2)
	e.key(fyne.KeyT)
	if got := e.rowSub(2); !strings.Contains(got, "marked wrong") || !strings.Contains(got, "first failure") {
		t.Errorf("step 2's row says %q", got)
	}
	e.ctrlS()
	want := map[int]string{1: dataset.StepCorrect, 2: dataset.StepWrong, 3: dataset.StepUnnecessary}
	rs := e.reviews(ep)
	if len(rs) != 1 || !maps.Equal(rs[0].StepLabels, want) || rs[0].FailureStep == nil || *rs[0].FailureStep != 2 {
		t.Fatalf("stored %+v, want labels %v and failure at step 2", rs, want)
	}

	// Another episode starts blank; the first one's labels come back.
	e.key(fyne.KeyN)
	if len(f.labels.labels) != 0 || e.rowSub(1) == "marked correct" {
		t.Errorf("a new episode shows labels %v", f.labels.labels)
	}
	it, _ := e.findItem(ep)
	e.tab.queue.state = ""
	e.tab.openItem(it)
	if !maps.Equal(f.labels.labels, want) {
		t.Errorf("reopened: labels %v, want %v", f.labels.labels, want)
	}
	p.show(3, false)
	if f.labels.radio.Selected != "Unnecessary (X)" {
		t.Errorf("step 3 shows %q", f.labels.radio.Selected)
	}
}

// The Agreement area states the agreement on step labels beside the
// outcome's.
func TestStepAgreementInTheQueue(t *testing.T) {
	e := newEnv(t)
	q := &e.tab.queue
	if !strings.Contains(q.agreement.Text, "No step has two labels yet") {
		t.Errorf("agreement area before any label: %q", q.agreement.Text)
	}
	c, w := dataset.StepCorrect, dataset.StepWrong
	for _, r := range []dataset.Review{
		{EpisodeID: e.eps[0], Reviewer: "sam", Outcome: dataset.OutcomeSuccess, StepLabels: map[int]string{1: c, 2: c, 3: w, 4: w}},
		{EpisodeID: e.eps[0], Reviewer: "tom", Outcome: dataset.OutcomeSuccess, StepLabels: map[int]string{1: c, 2: c, 3: c, 4: w}},
	} {
		if _, err := e.s.SaveReview(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	q.reload()
	// sam: 2 correct, 2 wrong; tom: 3 correct, 1 wrong; 3 of 4 agree.
	// p_e = (2·3 + 2·1)/16 = 1/2, κ = (3/4 − 1/2)/(1/2) = 0.50.
	if !strings.Contains(q.agreement.Text, "4 steps with ≥2 labels: 75% agree, Cohen's κ 0.50") {
		t.Errorf("agreement area: %q", q.agreement.Text)
	}
}
