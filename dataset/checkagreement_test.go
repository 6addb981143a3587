package dataset

import (
	"math"
	"testing"

	"waymark/engine/action"
)

func nearly(a, b float64) bool { return math.Abs(a-b) < 0.005 }

// Gwet's paradox table (Gwet 2008; Wongpakaran et al. 2013): 125 items, 118
// both yes, 5 yes/no, 2 no/yes, none both no. Raw agreement 0.944, Cohen's
// kappa −0.02 (chance agreement 0.945), Gwet's AC1 0.94.
func TestCheckFiguresTextbook(t *testing.T) {
	var items []CheckItem
	add := func(n int, passed, success bool) {
		for range n {
			items = append(items, CheckItem{TaskID: "t", Category: Information, Passed: passed, Success: success})
		}
	}
	add(118, true, true)
	add(5, true, false)
	add(2, false, true)
	f := ComputeCheckFigures(items)
	if f.N != 125 || f.TP != 118 || f.FP != 5 || f.FN != 2 || f.TN != 0 || f.Disagree() != 7 {
		t.Fatalf("counts %+v", f)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"agreement", f.Agreement, 0.944},
		{"precision", f.Precision, 118.0 / 123},
		{"recall", f.Recall, 118.0 / 120},
		{"kappa", f.Kappa, -0.0234},
		{"AC1", f.AC1, 0.9407},
	} {
		if !nearly(c.got, c.want) {
			t.Errorf("%s %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
	// A check and people that never say yes: precision, recall and kappa
	// are undefined; AC1 is 1.
	f = ComputeCheckFigures([]CheckItem{{}, {}})
	if !math.IsNaN(f.Precision) || !math.IsNaN(f.Recall) || !math.IsNaN(f.Kappa) || f.AC1 != 1 || f.Agreement != 1 {
		t.Errorf("all no: %+v", f)
	}
	if f := ComputeCheckFigures(nil); !math.IsNaN(f.Agreement) || !math.IsNaN(f.AC1) {
		t.Errorf("no items: %+v", f)
	}
}

// cagEpisode stores a finished episode of task with the check's reward.
func cagEpisode(t *testing.T, s *Store, task Task, reward float64) string {
	t.Helper()
	e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendStep(t.Context(), Step{EpisodeID: e.ID, Index: 0, URL: task.StartURL}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishEpisode(t.Context(), e.ID, EpisodeEnd{Reward: &reward}); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

func cagReview(t *testing.T, s *Store, ep, who string, outcome Outcome) {
	t.Helper()
	r := Review{EpisodeID: ep, Reviewer: who, Outcome: outcome}
	if outcome == OutcomeFailure {
		r.FailureStep, r.FailureType = action.Int(0), "other"
	}
	if _, err := s.SaveReview(t.Context(), r); err != nil {
		t.Fatal(err)
	}
}

// From a store: the settled label counts where reviewers disagreed, an
// unsettled conflict and an episode without a check result do not, invalid
// task is skipped; figures per category and per task, the task whose check
// disagrees most first.
func TestCheckAgreementFromStore(t *testing.T) {
	s := wmStore(t)
	good := wmTask(t, s, "Good check", Information, "http://wiki.waymark.test/")
	broken := wmTask(t, s, "Broken check", Navigation, "http://shop.waymark.test/")
	// The good check agrees every time.
	for i := range 4 {
		ep := cagEpisode(t, s, good, float64(i%2))
		cagReview(t, s, ep, "rita", map[int]Outcome{0: OutcomeFailure, 1: OutcomeSuccess}[i%2])
	}
	// The broken check passes what people fail, and fails a success.
	for _, out := range []Outcome{OutcomeFailure, OutcomeFailure, OutcomeSuccess} {
		reward := 1.0
		if out == OutcomeSuccess {
			reward = 0
		}
		cagReview(t, s, cagEpisode(t, s, broken, reward), "rita", out)
	}
	// Settled: people disagreed, the settling label (success) counts.
	settled := cagEpisode(t, s, broken, 1)
	cagReview(t, s, settled, "rita", OutcomeSuccess)
	cagReview(t, s, settled, "sam", OutcomeFailure)
	if _, err := s.Settle(t.Context(), Review{EpisodeID: settled, Reviewer: "lead", Outcome: OutcomeSuccess, Settles: true}); err != nil {
		t.Fatal(err)
	}
	// Not counted: an unsettled conflict, an invalid task, no reward.
	conflict := cagEpisode(t, s, good, 1)
	cagReview(t, s, conflict, "rita", OutcomeSuccess)
	cagReview(t, s, conflict, "sam", OutcomeFailure)
	cagReview(t, s, cagEpisode(t, s, good, 0), "rita", OutcomeInvalidTask)
	e, _ := s.CreateEpisode(t.Context(), Episode{TaskID: good.ID, Annotator: "ann"})
	s.AppendStep(t.Context(), Step{EpisodeID: e.ID, Index: 0})
	s.FinishEpisode(t.Context(), e.ID, EpisodeEnd{})
	cagReview(t, s, e.ID, "rita", OutcomeSuccess)

	c, err := s.CheckAgreement(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := c.Overall
	// good: TP 2, TN 2; broken: FP 2, FN 1, TP 1 (settled).
	if o.N != 8 || o.TP != 3 || o.TN != 2 || o.FP != 2 || o.FN != 1 || c.Skipped != 1 {
		t.Fatalf("overall %+v, skipped %d", o, c.Skipped)
	}
	if !nearly(o.Precision, 3.0/5) || !nearly(o.Recall, 3.0/4) || !nearly(o.Agreement, 5.0/8) {
		t.Errorf("overall figures %+v", o)
	}
	if f := c.ByCategory[Information]; f.N != 4 || f.Kappa != 1 || f.AC1 != 1 {
		t.Errorf("information %+v", f)
	}
	if f := c.ByCategory[Navigation]; f.N != 4 || f.Disagree() != 3 {
		t.Errorf("navigation %+v", f)
	}
	worst := c.Disagreeing(5)
	if len(worst) != 1 || worst[0].TaskID != broken.ID || worst[0].Goal != "Broken check" || worst[0].Disagree() != 3 {
		t.Errorf("disagreeing tasks %+v", worst)
	}
	if len(c.ByTask) != 2 || c.ByTask[0].TaskID != broken.ID {
		t.Errorf("tasks in order %+v", c.ByTask)
	}
}
