package dataset

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// wmExplore records an exploration of n clicks through the recorder (as the
// app does) and returns its id.
func wmExplore(t *testing.T, s *Store, n int) string {
	t.Helper()
	ctx := t.Context()
	task, err := s.ExploreTask(ctx, "http://shop.test/")
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 50), RecorderOptions{TaskID: task.ID, Annotator: "ann"})
	t.Cleanup(func() { rec.Close() })
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		x, y := 10*i, 20
		if _, err := rec.Step(ctx, action.Action{Op: action.Click, X: &x, Y: &y}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rec.Step(ctx, action.Action{Op: action.Finish}); err != nil {
		t.Fatal(err)
	}
	return rec.EpisodeID()
}

func TestExplorationAndCut(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	exp := wmExplore(t, s, 6)
	e, err := s.GetEpisode(ctx, exp)
	if err != nil {
		t.Fatal(err)
	}
	if e.Intent != IntentExploration || e.Goal != "Explore http://shop.test/" {
		t.Fatalf("exploration: intent %q goal %q", e.Intent, e.Goal)
	}

	cut, err := s.CutSpan(ctx, CutSpec{ExplorationID: exp, From: 3, To: 5, Instruction: "Find what step 5 shows", Category: Information,
		KeyPoints: []string{"url: #clicked-50", "url: #clicked-99", "the page looks right"}, Answer: "fifty", Editor: "rev"})
	if err != nil {
		t.Fatal(err)
	}
	if cut.Intent != IntentHindsight || cut.ExplorationID != exp || cut.SpanFrom != 3 || cut.SpanTo != 5 {
		t.Fatalf("cut origin: %+v", cut)
	}
	if cut.Status != StatusFinished || cut.FinalAnswer != "fifty" || cut.NumSteps != 4 || cut.Annotator != "ann" {
		t.Fatalf("cut episode: status %s answer %q steps %d annotator %q", cut.Status, cut.FinalAnswer, cut.NumSteps, cut.Annotator)
	}
	task, err := s.GetTask(ctx, cut.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if task.Source != SourceHindsight || task.StartURL != "http://shop.test/#clicked-20" || task.Check == nil || task.Check.Answer != "fifty" {
		t.Fatalf("cut task: %+v check %+v", task, task.Check)
	}
	// Its steps are the span's: step 0 is the page after step 2, steps
	// 1–3 the exploration's 3–5 (action, screenshot, actor), then the
	// finish with the answer by the person who cut it.
	var got []Step
	for st, err := range s.EpisodeSteps(ctx, cut.ID) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, st)
	}
	var src []Step
	for st, err := range s.EpisodeSteps(ctx, exp) {
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, st)
	}
	if len(got) != 5 {
		t.Fatalf("cut has %d steps, want 5 (start + 3 + finish)", len(got))
	}
	if got[0].Action != nil || got[0].URL != src[2].URL || !bytes.Equal(got[0].Screenshot, src[2].Screenshot) {
		t.Fatalf("step 0 is not the page after step 2: %+v", got[0])
	}
	for i := 1; i <= 3; i++ {
		if got[i].ActionJSON != src[i+2].ActionJSON || got[i].URL != src[i+2].URL || !bytes.Equal(got[i].Screenshot, src[i+2].Screenshot) ||
			got[i].Actor != "human:ann" || got[i].Timings != src[i+2].Timings {
			t.Fatalf("cut step %d differs from exploration step %d: %+v vs %+v", i, i+2, got[i], src[i+2])
		}
	}
	if f := got[4]; f.Action == nil || f.Action.Op != action.Finish || f.Action.Text != "fifty" || !f.Done || f.Actor != "human:rev" || f.URL != src[5].URL {
		t.Fatalf("finish step: %+v", got[4])
	}
	// Key points: the URL ones are checked against step 5's address,
	// one passes and one fails (kept as failed, never dropped); the
	// free one is listed as not checkable.
	h, err := s.HindsightCheckOf(ctx, cut.ID)
	if err != nil || h == nil {
		t.Fatal(h, err)
	}
	if len(h.KeyPoints) != 3 || !h.KeyPoints[0].Passed || !h.KeyPoints[0].Checked || h.KeyPoints[1].Passed || !h.KeyPoints[1].Checked ||
		h.KeyPoints[2].Checked || h.Replay != nil || h.KeyPointsFailed() != 1 {
		t.Fatalf("key points: %+v", h)
	}
	if sum := h.Summary(); !strings.Contains(sum, "not replayed yet") || !strings.Contains(sum, "FAILED url: #clicked-99") {
		t.Fatalf("summary hides something: %s", sum)
	}

	// Overlapping spans are allowed; the same instruction from the same
	// start page is the same task (not written twice).
	cut2, err := s.CutSpan(ctx, CutSpec{ExplorationID: exp, From: 4, To: 6, Instruction: "Open the sixth thing", Category: Navigation, Editor: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	cuts, err := s.Cuts(ctx, exp)
	if err != nil || len(cuts) != 2 {
		t.Fatalf("cuts of the exploration: %d, %v", len(cuts), err)
	}
	// Refusals say what to do.
	for _, bad := range []CutSpec{
		{ExplorationID: exp, From: 3, To: 7, Instruction: "x", Category: Navigation, Editor: "ann"},    // step 7 ended it
		{ExplorationID: exp, From: 0, To: 2, Instruction: "x", Category: Navigation, Editor: "ann"},    // no step 0
		{ExplorationID: exp, From: 2, To: 3, Instruction: "x", Category: Information, Editor: "ann"},   // no answer
		{ExplorationID: cut.ID, From: 1, To: 2, Instruction: "x", Category: Navigation, Editor: "ann"}, // not an exploration
		{ExplorationID: exp, From: 2, To: 3, Instruction: " ", Category: Navigation, Editor: "ann"},    // no instruction
	} {
		if _, err := s.CutSpan(ctx, bad); err == nil {
			t.Errorf("cut %+v was accepted", bad)
		}
	}

	// Adjusting a span goes through the audit log: a new cut, the old one
	// discarded, a 'span' row on each.
	adj, err := s.AdjustSpan(ctx, cut2.ID, 5, 6, "ann", "step 4 was a detour")
	if err != nil {
		t.Fatal(err)
	}
	if adj.SpanFrom != 5 || adj.SpanTo != 6 || adj.Goal != "Open the sixth thing" || adj.TaskID != cut2.TaskID {
		t.Fatalf("adjusted cut: %+v", adj)
	}
	if tk, _ := s.GetTask(ctx, adj.TaskID); tk.StartURL != "http://shop.test/#clicked-40" {
		t.Fatalf("the adjusted cut's task starts at %s, not after step 4", tk.StartURL)
	}
	old, _ := s.GetEpisode(ctx, cut2.ID)
	if old.Status != StatusDiscarded {
		t.Fatalf("replaced cut is %s", old.Status)
	}
	for _, id := range []string{cut2.ID, adj.ID} {
		var n int
		for ed, err := range s.EpisodeEdits(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			if ed.Kind == EditSpan && ed.Editor == "ann" && strings.Contains(ed.Reason, "step 4 was a detour") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("episode %s has %d span rows in its audit log", id, n)
		}
	}
	if adj.NumEdits != 0 {
		t.Fatalf("a span row counted as a step edit: %d", adj.NumEdits)
	}

	// Planned vs actual, and the counts.
	planned := wmTask(t, s, "Buy a kettle", Interaction, "http://shop.test/")
	pe, err := s.CreateEpisode(ctx, Episode{TaskID: planned.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetActualTask(ctx, pe.ID, "Bought a toaster instead"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetActualTask(ctx, exp, "x"); err == nil {
		t.Fatal("an exploration took an actual task")
	}
	if pe, _ = s.GetEpisode(ctx, pe.ID); pe.ActualTask != "Bought a toaster instead" || pe.Intent != IntentPlanned {
		t.Fatalf("planned episode: %+v", pe)
	}
	c, err := s.CountIntents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := IntentCounts{PlannedTasks: 1, HindsightTasks: 2, Planned: 1, Explorations: 1, Hindsight: 2, Unchecked: 2, KeyPointsFailed: 1, WithActualTask: 1}
	if c != want {
		t.Fatalf("counts %+v, want %+v", c, want)
	}

	// The review queue counts the episodes it lists the same way (the
	// planned one still records, so it is not listed): the exploration is
	// in no state but its own, nothing to label; the cuts carry their
	// checks, the failed key point with them.
	q, err := s.ReviewQueue(ctx, QueueFilter{Reviewer: "rev"})
	if err != nil {
		t.Fatal(err)
	}
	wantQ := IntentCounts{HindsightTasks: 2, Explorations: 1, Hindsight: 2, Unchecked: 2, KeyPointsFailed: 1}
	if q.Intents != wantQ || q.Counts[QueueUnreviewed] != 2 || q.Counts[QueueExplorations] != 1 || len(q.Items) != 3 {
		t.Fatalf("queue intents %+v (want %+v), counts %v, %d items", q.Intents, wantQ, q.Counts, len(q.Items))
	}
	for _, it := range q.Items {
		switch it.EpisodeID {
		case exp:
			if it.Intent != IntentExploration || it.In(QueueUnreviewed) || !it.In(QueueExplorations) {
				t.Fatalf("the exploration's item: %+v", it)
			}
		case cut.ID:
			if it.Intent != IntentHindsight || it.ExplorationID != exp || it.SpanFrom != 3 || it.SpanTo != 5 || it.Cut.KeyPointsFailed() != 1 || it.In(QueueExplorations) {
				t.Fatalf("the cut's item: %+v", it)
			}
		}
	}
	if next, ok, err := s.NextUnreviewed(ctx, QueueFilter{Reviewer: "rev"}, ""); err != nil || !ok || next.Intent != IntentHindsight {
		t.Fatalf("next unreviewed: %+v %v %v", next, ok, err)
	}
}
