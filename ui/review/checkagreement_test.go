package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
)

// The queue panel states how the automatic checks agree with people, and
// names the task whose check disagrees.
func TestQueueShowsCheckAgreement(t *testing.T) {
	e := newEnv(t)
	q := &e.tab.queue
	if !strings.Contains(q.agreement.Text, "Automatic checks: no episode with a check result has an outcome yet.") {
		t.Errorf("before any labelled check: %q", q.agreement.Text)
	}
	task, err := fixture.Task(e.s, "Open the cart", dataset.Navigation, "http://shop.test/", &action.Check{Kind: action.CheckKindURL, URL: "/cart$"})
	if err != nil {
		t.Fatal(err)
	}
	one, zero := 1.0, 0.0
	for i, c := range []struct {
		reward  *float64
		outcome dataset.Outcome
	}{{&one, dataset.OutcomeSuccess}, {&one, dataset.OutcomeFailure}, {&zero, dataset.OutcomeFailure}} {
		id, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(1), Reward: c.reward, SharedShot: true})
		if err != nil {
			t.Fatal(err)
		}
		r := dataset.Review{EpisodeID: id, Reviewer: "rita", Outcome: c.outcome}
		if c.outcome == dataset.OutcomeFailure {
			r.FailureStep, r.FailureType = action.Int(1), "other"
		}
		if _, err := e.s.SaveReview(t.Context(), r); err != nil {
			t.Fatalf("review %d: %v", i, err)
		}
	}
	// A fresh screen reads the store.
	tab := New(&ui.Context{Store: e.s, User: func() string { return "rita" }})
	t.Cleanup(tab.Close)
	test.NewTempWindow(t, tab.Content())
	got := tab.queue.agreement.Text
	if !strings.Contains(got, "Automatic checks vs people: 67% agree, precision 0.50, recall 1.00, κ 0.40, AC1 0.33 (n=3)") ||
		!strings.Contains(got, `Check to look at: "Open the cart", 1 of 3 episodes disagree`) {
		t.Errorf("agreement panel %q", got)
	}
}
