package dataset

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// An interrupted episode with an outcome is chosen with its status, end
// reason and the label's reason and step flags; one without an outcome
// (never reviewed, or reviews that disagree) never is, even with
// IncludeUnreviewed; the counts say how many interrupted episodes have one.
func TestLabeledEpisodesInterruptedAndReviewFields(t *testing.T) {
	s, ok, conflict, unreviewed := stStore(t) // its interrupted episode has no review
	ctx := context.Background()
	t0 := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	nav := rvTask(t, s, "Open the about page", Navigation)
	labelled := rvEpisode(t, s, nav, "ann", StatusInterrupted, 3, t0)
	torn := rvEpisode(t, s, nav, "ann", StatusInterrupted, 2, t0.Add(time.Hour))
	rvSave(t, s, Review{EpisodeID: labelled, Reviewer: "rita", Outcome: OutcomeFailure, FailureStep: rvIP(2), FailureType: "gave_up",
		Reason: "stopped on the form", StepFlags: map[int][]string{2: {FlagMistake}}})
	rvSave(t, s, Review{EpisodeID: torn, Reviewer: "rita", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: torn, Reviewer: "sam", Outcome: OutcomeNotExecutable})
	// ok's two reviews agree; the newer one (sam's, saved again) gives the
	// reason and flags.
	rvSave(t, s, Review{EpisodeID: ok, Reviewer: "sam", Outcome: OutcomeSuccess, Reason: "done", StepFlags: map[int][]string{3: {FlagUnnecessary}}})

	byID := map[string]LabeledEpisode{}
	var ids []string
	for _, l := range collect(t, s.LabeledEpisodes(ctx, LabelFilter{IncludeUnreviewed: true})) {
		byID[l.ID] = l
		ids = append(ids, l.ID)
	}
	want := []string{ok, conflict, unreviewed, labelled}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("chosen %v, want %v (the labelled interrupted one, not the torn one)", ids, want)
	}
	l := byID[labelled]
	if l.Status != StatusInterrupted || l.EndReason == "" || l.Outcome != OutcomeFailure || l.FailureStep == nil || *l.FailureStep != 2 ||
		l.Reason != "stopped on the form" || fmt.Sprint(l.StepFlags) != "map[2:[mistake]]" || l.StepRows != 3 {
		t.Errorf("labelled interrupted episode %+v", l)
	}
	if l := byID[ok]; l.Reason != "done" || fmt.Sprint(l.StepFlags) != "map[3:[unnecessary]]" {
		t.Errorf("agreed episode: reason %q flags %v", l.Reason, l.StepFlags)
	}
	for _, id := range []string{conflict, unreviewed} {
		if l := byID[id]; l.StepFlags != nil || l.Reason != "" {
			t.Errorf("%s without an outcome: reason %q flags %v", id, l.Reason, l.StepFlags)
		}
	}
	if got := collect(t, s.LabeledEpisodes(ctx, LabelFilter{Outcomes: []Outcome{OutcomeFailure}})); len(got) != 1 || got[0].ID != labelled {
		t.Errorf("failures: %+v", got)
	}

	c, err := s.CountOutcomes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c != (OutcomeCounts{Finished: 3, WithOutcome: 1, Conflicts: 1, Interrupted: 3, InterruptedWithOutcome: 1}) {
		t.Errorf("counts %+v", c)
	}
}
