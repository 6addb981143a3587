package dataset

import (
	"context"
	"maps"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A review's step labels are stored with it, read back with it, kept with
// its old version when it is edited, and refused on step 0, past the last
// step or with an unknown label.
func TestStepLabelsRoundTrip(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Find the owl page", Information)
	ep := rvEpisode(t, s, task, "ann", StatusFinished, 3, time.Now().Add(-time.Hour))

	first := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepCorrect, 2: StepUnnecessary, 3: StepCorrect}})
	want := map[int]string{1: StepCorrect, 2: StepUnnecessary, 3: StepCorrect}
	if !maps.Equal(first.StepLabels, want) {
		t.Fatalf("saved labels %v, want %v", first.StepLabels, want)
	}
	mine, err := s.MyReview(t.Context(), ep, "rita")
	if err != nil || mine == nil {
		t.Fatalf("my review: %v %v", mine, err)
	}
	if !maps.Equal(mine.StepLabels, want) {
		t.Fatalf("read back %v, want %v", mine.StepLabels, want)
	}

	// An edit: step 2 becomes wrong, step 3 unlabelled.
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess, StepLabels: map[int]string{1: StepCorrect, 2: StepWrong}})
	hist, err := s.ReviewHistory(t.Context(), ep, "rita")
	if err != nil || len(hist) != 2 {
		t.Fatalf("history %v %v", hist, err)
	}
	if got := hist[0].StepLabels; !maps.Equal(got, map[int]string{1: StepCorrect, 2: StepWrong}) {
		t.Errorf("current version's labels %v", got)
	}
	if got := hist[1].StepLabels; !maps.Equal(got, want) {
		t.Errorf("old version's labels %v, want %v kept", got, want)
	}
	cur, err := s.CurrentReviews(t.Context(), ep)
	if err != nil || len(cur) != 1 || cur[0].StepLabels[2] != StepWrong {
		t.Errorf("current reviews %+v %v", cur, err)
	}

	// The file keeps them: reopen.
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if mine, _ := s2.MyReview(t.Context(), ep, "rita"); mine == nil || !maps.Equal(mine.StepLabels, map[int]string{1: StepCorrect, 2: StepWrong}) {
		t.Errorf("after reopening: %+v", mine)
	}

	for _, bad := range []map[int]string{{0: StepCorrect}, {4: StepCorrect}, {1: "mistake"}} {
		if _, err := s2.SaveReview(t.Context(), Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess, StepLabels: bad}); err == nil {
			t.Errorf("labels %v were accepted", bad)
		}
	}
	if mine, _ := s2.MyReview(t.Context(), ep, "rita"); mine == nil || len(mine.StepLabels) != 2 {
		t.Errorf("a refused save changed the review: %+v", mine)
	}
}

// The export's label of a step: what every reviewer who labelled it agrees
// on; nothing where they disagree, until a settling label gives one.
func TestSettledStepLabels(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Book a room", Interaction)
	ep := rvEpisode(t, s, task, "ann", StatusFinished, 5, time.Now().Add(-time.Hour))
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepCorrect, 2: StepCorrect, 3: StepCorrect, 4: StepUnnecessary}})
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "sam", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepCorrect, 3: StepWrong, 4: StepUnnecessary}})
	ctx := context.Background()
	got, err := s.SettledStepLabels(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	// Step 2 only rita labelled; step 3 they disagree on; step 5 nobody.
	want := map[int]string{1: StepCorrect, 2: StepCorrect, 4: StepUnnecessary}
	if !maps.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	// The outcomes agree, yet a step is in conflict: a settling label is
	// allowed, and its mark wins on step 3; its silence on step 1 leaves
	// the reviewers' agreement there.
	if _, err := s.Settle(ctx, Review{EpisodeID: ep, Reviewer: "lead", Outcome: OutcomeSuccess, StepLabels: map[int]string{3: StepWrong, 4: StepCorrect}}); err != nil {
		t.Fatal(err)
	}
	got, err = s.SettledStepLabels(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	want = map[int]string{1: StepCorrect, 2: StepCorrect, 3: StepWrong, 4: StepCorrect}
	if !maps.Equal(got, want) {
		t.Fatalf("settled labels %v, want %v", got, want)
	}
	// An episode whose reviews agree on everything cannot be settled.
	ep2 := rvEpisode(t, s, task, "ann", StatusFinished, 2, time.Now().Add(-time.Hour))
	rvSave(t, s, Review{EpisodeID: ep2, Reviewer: "rita", Outcome: OutcomeSuccess, StepLabels: map[int]string{1: StepCorrect}})
	rvSave(t, s, Review{EpisodeID: ep2, Reviewer: "sam", Outcome: OutcomeSuccess, StepLabels: map[int]string{1: StepCorrect}})
	if _, err := s.Settle(ctx, Review{EpisodeID: ep2, Reviewer: "lead", Outcome: OutcomeSuccess}); err == nil {
		t.Error("settled an episode nobody disagrees on")
	}
}

// Cohen's kappa per step on a worked example: rita and sam both labelled
// six steps (of two episodes) and agree on five. Rita's labels are
// 3 correct, 2 wrong, 1 unnecessary; sam's 2, 3, 1. Chance agreement
// p_e = (3·2 + 2·3 + 1·1)/36 = 13/36, so κ = (5/6 − 13/36)/(1 − 13/36) =
// 17/23. A step only one of them labelled and the settling label's marks
// do not count.
func TestStepAgreementWorkedExample(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Open the cart", Navigation)
	e1 := rvEpisode(t, s, task, "ann", StatusFinished, 4, time.Now().Add(-2*time.Hour))
	e2 := rvEpisode(t, s, task, "ann", StatusFinished, 3, time.Now().Add(-time.Hour))
	rvSave(t, s, Review{EpisodeID: e1, Reviewer: "rita", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepCorrect, 2: StepCorrect, 3: StepCorrect, 4: StepWrong}})
	rvSave(t, s, Review{EpisodeID: e1, Reviewer: "sam", Outcome: OutcomeFailure, FailureStep: rvIP(3), FailureType: "wrong_element",
		StepLabels: map[int]string{1: StepCorrect, 2: StepCorrect, 3: StepWrong, 4: StepWrong}})
	rvSave(t, s, Review{EpisodeID: e2, Reviewer: "rita", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepWrong, 2: StepUnnecessary, 3: StepCorrect}})
	rvSave(t, s, Review{EpisodeID: e2, Reviewer: "sam", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepWrong, 2: StepUnnecessary}})
	if _, err := s.Settle(t.Context(), Review{EpisodeID: e1, Reviewer: "lead", Outcome: OutcomeSuccess,
		StepLabels: map[int]string{1: StepWrong, 2: StepWrong, 3: StepWrong, 4: StepWrong}}); err != nil {
		t.Fatal(err)
	}
	ag, err := s.StepAgreement(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ag.Episodes != 6 || ag.Comparisons != 6 || len(ag.Pairs) != 1 {
		t.Fatalf("steps %d, comparisons %d, pairs %+v; want 6 steps of one pair", ag.Episodes, ag.Comparisons, ag.Pairs)
	}
	p := ag.Pairs[0]
	if p.A != "rita" || p.B != "sam" || p.N != 6 || p.Agree != 5 {
		t.Errorf("pair %+v, want rita/sam agreeing on 5 of 6", p)
	}
	if math.Abs(p.PercentAgreement-5.0/6) > 1e-9 || math.Abs(p.Kappa-17.0/23) > 1e-9 || math.Abs(ag.Kappa-17.0/23) > 1e-9 {
		t.Errorf("agreement %.4f, kappa %.4f (overall %.4f); want %.4f and %.4f", p.PercentAgreement, p.Kappa, ag.Kappa, 5.0/6, 17.0/23)
	}
	if FormatFigure(ag.Kappa) != "0.74" {
		t.Errorf("kappa prints %s, want 0.74", FormatFigure(ag.Kappa))
	}
}

// A merge copies the step labels of the reviews it copies, and merging
// again adds none.
func TestMergeCopiesStepLabels(t *testing.T) {
	dir := t.TempDir()
	a := mgStorePath(t, dir, "alice.db")
	b := mgStorePath(t, dir, "bob.db")
	tb := wmTask(t, b, "Open the shop's cart", Navigation, "http://shop.waymark.test/")
	wmTask(t, a, "Open the shop's cart", Navigation, "http://shop.waymark.test/")
	eb := mgRecord(t, b, tb.ID, "bob", 3)
	rvSave(t, b, Review{EpisodeID: eb, Reviewer: "carol", Outcome: OutcomeSuccess, StepLabels: map[int]string{1: StepCorrect, 2: StepUnnecessary}})
	rvSave(t, b, Review{EpisodeID: eb, Reviewer: "carol", Outcome: OutcomeSuccess, StepLabels: map[int]string{1: StepCorrect, 2: StepWrong, 3: StepCorrect}})
	rvSave(t, b, Review{EpisodeID: eb, Reviewer: "dan", Outcome: OutcomeSuccess, StepLabels: map[int]string{2: StepWrong}})
	bPath := closeForMerge(t, b)

	rep, err := a.Merge(context.Background(), bPath, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added["step_labels"] != 6 || rep.Identical["step_labels"] != 0 {
		t.Errorf("step labels added %d, identical %d; want 6 and 0", rep.Added["step_labels"], rep.Identical["step_labels"])
	}
	if !strings.Contains(rep.Summary(), "6 step labels") {
		t.Errorf("the summary does not count the step labels:\n%s", rep.Summary())
	}
	mine, err := a.MyReview(t.Context(), eb, "carol")
	if err != nil || mine == nil || !maps.Equal(mine.StepLabels, map[int]string{1: StepCorrect, 2: StepWrong, 3: StepCorrect}) {
		t.Fatalf("carol's merged review %+v %v", mine, err)
	}
	if h, _ := a.ReviewHistory(t.Context(), eb, "carol"); len(h) != 2 || !maps.Equal(h[1].StepLabels, map[int]string{1: StepCorrect, 2: StepUnnecessary}) {
		t.Errorf("carol's history after the merge %+v", h)
	}
	got, err := a.SettledStepLabels(context.Background(), eb)
	if err != nil || !maps.Equal(got, map[int]string{1: StepCorrect, 2: StepWrong, 3: StepCorrect}) {
		t.Errorf("settled labels after the merge %v %v", got, err)
	}

	before := mgCount(t, a, `SELECT COUNT(*) FROM step_labels`)
	rep2, err := a.Merge(context.Background(), bPath, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Added["step_labels"] != 0 || rep2.Identical["step_labels"] != 6 {
		t.Errorf("second merge: step labels added %d, identical %d; want 0 and 6", rep2.Added["step_labels"], rep2.Identical["step_labels"])
	}
	if after := mgCount(t, a, `SELECT COUNT(*) FROM step_labels`); after != before {
		t.Errorf("the second merge changed the step labels: %d → %d", before, after)
	}
}

// A store of schema 8 (before step labels) merges: it has no labels to
// copy, and its reviews come without any.
func TestMergeFromBeforeStepLabels(t *testing.T) {
	old := oldStore(t, 8, `
		INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1', 'Buy socks', 'interaction', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
		INSERT INTO episodes (id, task_id, annotator, action_set, status, end_reason, num_steps, started_at, ended_at) VALUES
			('e1', 't1', 'ann', 'default', 'finished', 'finished', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z');
		INSERT INTO steps (episode_id, idx, action_json, op, url, created_at, actor) VALUES
			('e1', 0, NULL, '', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z', 'human:ann'),
			('e1', 1, '{"op":"click","x":1,"y":2}', 'click', 'http://shop.waymark.test/a', '2026-01-01T00:00:01.000Z', 'human:ann');
		INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES ('r1', 'e1', 'rita', 'success', '2026-01-02T00:00:00.000Z');`)
	a, err := Open(filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rep, err := a.Merge(context.Background(), old, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added["reviews"] != 1 || rep.Added["step_labels"] != 0 {
		t.Errorf("added %v", rep.Added)
	}
	if mine, _ := a.MyReview(t.Context(), "e1", "rita"); mine == nil || len(mine.StepLabels) != 0 {
		t.Errorf("the old review %+v", mine)
	}
}
