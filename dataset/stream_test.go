package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// stStore is a store with three finished episodes (one labelled success by
// two reviewers, one in conflict, one never reviewed), one interrupted and
// one still recording.
func stStore(t *testing.T) (s *Store, ok, conflict, unreviewed string) {
	t.Helper()
	s = rvStore(t)
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	nav := rvTask(t, s, "Open the contact page", Navigation)
	info := rvTask(t, s, "Find the opening hours", Information)
	ok = rvEpisode(t, s, nav, "ann", StatusFinished, 3, t0)
	conflict = rvEpisode(t, s, info, "bob", StatusFinished, 2, t0.Add(time.Hour))
	unreviewed = rvEpisode(t, s, info, "ann", StatusFinished, 1, t0.Add(2*time.Hour))
	rvEpisode(t, s, nav, "ann", StatusInterrupted, 1, t0.Add(3*time.Hour))
	rvEpisode(t, s, nav, "ann", StatusRecording, 1, t0.Add(4*time.Hour))
	rvSave(t, s, Review{EpisodeID: ok, Reviewer: "rita", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: ok, Reviewer: "sam", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: conflict, Reviewer: "rita", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: conflict, Reviewer: "sam", Outcome: OutcomeFailure, FailureStep: rvIP(1), FailureType: "wrong_element"})
	return s, ok, conflict, unreviewed
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestLabeledEpisodes(t *testing.T) {
	s, ok, conflict, unreviewed := stStore(t)
	ctx := context.Background()
	ids := func(ls []LabeledEpisode) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.ID)
		}
		return out
	}
	sorted := func(v ...string) []string { slices.Sort(v); return v }

	got := collect(t, s.LabeledEpisodes(ctx, LabelFilter{}))
	if !slices.Equal(ids(got), []string{ok}) {
		t.Fatalf("labelled: %v, want only %s", ids(got), ok)
	}
	l := got[0]
	if l.Outcome != OutcomeSuccess || l.NumReviews != 2 || l.Conflict || l.StepRows != 3 || l.FailureStep != nil ||
		l.Goal != "Open the contact page" || l.Category != Navigation || l.StartURL == "" || l.Annotator != "ann" ||
		l.Status != StatusFinished || l.EndedAt == nil || !l.EndedAt.Equal(l.StartedAt.Add(time.Minute)) {
		t.Errorf("labelled episode %+v", l)
	}

	all := collect(t, s.LabeledEpisodes(ctx, LabelFilter{IncludeUnreviewed: true}))
	if want := sorted(ok, conflict, unreviewed); !slices.Equal(ids(all), want) {
		t.Fatalf("with unreviewed: %v, want %v (by id)", ids(all), want)
	}
	for _, l := range all {
		switch l.ID {
		case conflict:
			if l.Outcome != "" || !l.Conflict || l.NumReviews != 2 || l.StepRows != 2 {
				t.Errorf("conflict %+v", l)
			}
		case unreviewed:
			if l.Outcome != "" || l.Conflict || l.NumReviews != 0 || l.StepRows != 1 {
				t.Errorf("unreviewed %+v", l)
			}
		}
	}
	for _, c := range []struct {
		f    LabelFilter
		want []string
	}{
		{LabelFilter{IncludeUnreviewed: true, Categories: []string{Information}}, sorted(conflict, unreviewed)},
		{LabelFilter{IncludeUnreviewed: true, Annotators: []string{"bob"}}, []string{conflict}},
		{LabelFilter{Outcomes: []Outcome{OutcomeFailure}}, nil},
		{LabelFilter{Outcomes: []Outcome{OutcomeFailure, OutcomeSuccess}}, []string{ok}},
		{LabelFilter{Categories: []string{Interaction}, IncludeUnreviewed: true}, nil},
	} {
		if got := ids(collect(t, s.LabeledEpisodes(ctx, c.f))); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.f, got, c.want)
		}
	}

	// Settling the conflict gives it the settling label's outcome.
	if _, err := s.Settle(ctx, Review{EpisodeID: conflict, Reviewer: "lead", Outcome: OutcomeFailure, FailureStep: rvIP(2), FailureType: "gave_up"}); err != nil {
		t.Fatal(err)
	}
	got = collect(t, s.LabeledEpisodes(ctx, LabelFilter{Outcomes: []Outcome{OutcomeFailure}}))
	if len(got) != 1 || got[0].ID != conflict || !got[0].Conflict || got[0].FailureStep == nil || *got[0].FailureStep != 2 || got[0].FailureType != "gave_up" {
		t.Errorf("settled conflict: %+v", got)
	}
}

func TestEpisodeStepsAndReviews(t *testing.T) {
	s, ok, conflict, _ := stStore(t)
	ctx := context.Background()
	listed, err := s.Steps(ctx, ok)
	if err != nil {
		t.Fatal(err)
	}
	streamed := collect(t, s.EpisodeSteps(ctx, ok))
	if len(streamed) != 4 || len(listed) != 4 {
		t.Fatalf("%d steps streamed, %d listed, want 4", len(streamed), len(listed))
	}
	for i, st := range streamed {
		shot, err := s.Screenshot(ctx, ok, i)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Screenshot) == 0 || string(st.Screenshot) != string(shot) {
			t.Errorf("step %d: screenshot of %d bytes, stored %d", i, len(st.Screenshot), len(shot))
		}
		st.Screenshot = nil
		if fmt.Sprintf("%+v", st) != fmt.Sprintf("%+v", listed[i]) {
			t.Errorf("step %d streamed %+v\nlisted %+v", i, st, listed[i])
		}
	}
	if got := collect(t, s.EpisodeSteps(ctx, "no-such-episode")); len(got) != 0 {
		t.Errorf("steps of a missing episode: %v", got)
	}

	var got []string
	for _, r := range collect(t, s.AllCurrentReviews(ctx)) {
		got = append(got, fmt.Sprintf("%s/%s/%s", r.EpisodeID[:4], r.Reviewer, r.Outcome))
	}
	want := []string{ok[:4] + "/rita/success", ok[:4] + "/sam/success", conflict[:4] + "/rita/success", conflict[:4] + "/sam/failure"}
	if ok > conflict {
		want = append(want[2:], want[:2]...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("current reviews %v, want %v", got, want)
	}
}

func TestCountOutcomes(t *testing.T) {
	s, _, _, _ := stStore(t)
	c, err := s.CountOutcomes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c != (OutcomeCounts{Finished: 3, WithOutcome: 1, Conflicts: 1, Interrupted: 1}) {
		t.Errorf("counts %+v", c)
	}
}

// Leaving a stream early releases its rows: with the pool cut to the pinned
// connection plus one, a leaked rows handle would make the next query wait
// forever.
func TestStreamBreakReleasesRows(t *testing.T) {
	s, ok, _, _ := stStore(t)
	s.db.SetMaxOpenConns(2)
	ctx := context.Background()
	next := func(what string) {
		t.Helper()
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var n int
		if err := s.db.QueryRowContext(qctx, `SELECT COUNT(*) FROM steps`).Scan(&n); err != nil {
			t.Fatalf("after breaking out of %s: %v", what, err)
		}
	}
	for range s.EpisodeSteps(ctx, ok) {
		break
	}
	next("EpisodeSteps")
	for range s.LabeledEpisodes(ctx, LabelFilter{IncludeUnreviewed: true}) {
		break
	}
	next("LabeledEpisodes")
	for range s.AllCurrentReviews(ctx) {
		break
	}
	next("AllCurrentReviews")
	// A write goes through too.
	if _, err := s.AddTask(ctx, Task{Goal: "After the streams", Category: Navigation, StartURL: "http://127.0.0.1/after"}); err != nil {
		t.Fatal(err)
	}
}

// A cancelled context ends a stream with ctx.Err(), before its first row or
// in the middle.
func TestStreamCancelled(t *testing.T) {
	s, ok, _, _ := stStore(t)
	s.db.SetMaxOpenConns(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	var last error
	for _, err := range s.EpisodeSteps(ctx, ok) {
		n++
		last = err
	}
	if n != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("cancelled before: %d yields, last error %v", n, last)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	var rows int
	last = nil
	for st, err := range s.EpisodeSteps(ctx, ok) {
		if err != nil {
			last = err
			break
		}
		rows++
		if st.Index == 1 {
			cancel()
		}
	}
	if rows != 2 || !errors.Is(last, context.Canceled) {
		t.Errorf("cancelled after step 1: %d rows, error %v", rows, last)
	}
	// The connection is usable again.
	if _, err := s.Steps(t.Context(), ok); err != nil {
		t.Fatal(err)
	}
}

func TestFinishEpisode(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Open the shop", Navigation)
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	id := rvEpisode(t, s, task, "ann", StatusRecording, 2, t0)
	reward := 1.0
	if err := s.FinishEpisode(t.Context(), id, EpisodeEnd{Answer: "42", FinalURL: "http://127.0.0.1/end", Reward: &reward, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ep, err := s.GetEpisode(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Status != StatusFinished || ep.EndReason != "finished" || ep.FinalAnswer != "42" || ep.FinalURL != "http://127.0.0.1/end" ||
		ep.AutoReward == nil || *ep.AutoReward != 1 || ep.EndedAt == nil || !ep.EndedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("finished episode %+v", ep)
	}
	if err := s.FinishEpisode(t.Context(), id, EpisodeEnd{Answer: "43"}); err == nil {
		t.Error("a finished episode was finished again")
	}
	if err := s.FinishEpisode(t.Context(), "no-such-episode", EpisodeEnd{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing episode: %v", err)
	}
	if ep2, _ := s.GetEpisode(t.Context(), id); ep2.FinalAnswer != "42" {
		t.Errorf("refused finish changed the answer to %q", ep2.FinalAnswer)
	}
}
