package replay_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// An exploration over a real Chromium, three tasks cut out of it, each
// checked by replaying it from its start state: the cuts replay (online
// and offline), their key points are checked on the page (a failing one
// is kept as failed), and when the site changes under the start state a
// cut is reported not replayable online — saying it was the start state —
// while offline, served from the exploration's own traffic, it still
// replays.
func TestCheckCut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	ctx := context.Background()
	site := newNotesSite(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.HAR = true // the exploration keeps its replay archive
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()

	task, err := s.ExploreTask(ctx, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	xy := func(x, y int) action.Action { return action.Action{Op: action.Click, X: &x, Y: &y} }
	for _, a := range []action.Action{
		xy(100, 35), {Op: action.Type, Text: "buy tea"}, xy(390, 37), // 1–3: a note saved
		{Op: action.Back}, xy(100, 35), {Op: action.Key, Text: "CTRL+A"}, {Op: action.Type, Text: "milk"}, xy(390, 37), // 4–8: another
		{Op: action.Finish},
	} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	exp := rec.EpisodeID()
	if e, _ := s.GetEpisode(ctx, exp); e.Intent != dataset.IntentExploration {
		t.Fatalf("the exploration is %q", e.Intent)
	}
	save, err := s.CutSpan(ctx, dataset.CutSpec{ExplorationID: exp, From: 1, To: 3, Instruction: "Save the note “buy tea”", Category: dataset.Interaction,
		KeyPoints: []string{"url: q=buy%20tea", "text: Your note: buy tea"}, Editor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.CutSpan(ctx, dataset.CutSpec{ExplorationID: exp, From: 5, To: 8, Instruction: "Save “milk” and say what the page shows", Category: dataset.Information,
		Answer: "Your note: milk", KeyPoints: []string{`"Your note: milk"`, "url: nowhere", "the note is saved"}, Editor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	// Overlapping the second: from the saved first note back and on.
	over, err := s.CutSpan(ctx, dataset.CutSpec{ExplorationID: exp, From: 4, To: 8, Instruction: "Go back and save another note", Category: dataset.Interaction, Editor: "alice"})
	if err != nil {
		t.Fatal(err)
	}

	check := func(id string, arch bool) *dataset.HindsightCheck {
		t.Helper()
		opts := replay.CutCheckOptions{}
		if arch {
			a, err := s.EpisodeArchive(ctx, exp)
			if err != nil {
				t.Fatal(err)
			}
			opts.Archive = a
		}
		h, err := replay.CheckCut(ctx, s, eng, id, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := s.HindsightCheckOf(ctx, id); got == nil || got.Replay == nil || got.Replay.Replayable != h.Replayable() {
			t.Fatalf("the check was not kept: %+v", got)
		}
		return h
	}
	for _, id := range []string{save.ID, read.ID, over.ID} {
		h := check(id, false)
		if !h.Replayable() {
			t.Fatalf("cut %s does not replay: %s", id, h.Summary())
		}
		runs, err := s.ReplayRuns(ctx, id)
		if err != nil || len(runs) != 1 || !runs[0].OK() {
			t.Fatalf("cut %s: replay runs %+v, %v", id, runs, err)
		}
		c, _ := s.GetEpisode(ctx, id)
		if runs[0].Compared != c.NumSteps { // the start page and the span's steps; the finish is not replayed
			t.Fatalf("cut %s: %d steps compared, the cut has %d actions (one a finish)", id, runs[0].Compared, c.NumSteps)
		}
	}
	h, _ := s.HindsightCheckOf(ctx, save.ID)
	for _, k := range h.KeyPoints {
		if !k.Checked || !k.Passed {
			t.Fatalf("key point of the first cut: %+v", k)
		}
	}
	h, _ = s.HindsightCheckOf(ctx, read.ID)
	if k := h.KeyPoints; len(k) != 3 || !k[0].Checked || !k[0].Passed || !strings.Contains(k[0].Against, "replayed page") ||
		!k[1].Checked || k[1].Passed || k[2].Checked {
		t.Fatalf("key points of the second cut: %+v", k)
	}
	if !strings.Contains(h.Summary(), "FAILED url: nowhere") {
		t.Fatalf("a failed key point is not shown: %s", h.Summary())
	}

	// The site changes what the first saved page says: the start state of
	// the second cut (steps 1–4) no longer replays online…
	site.mu.Lock()
	site.saved = "Stored!"
	site.mu.Unlock()
	h = check(read.ID, false)
	if h.Replayable() || !strings.Contains(h.Replay.Why, "the start state no longer replays") || !strings.Contains(h.Replay.Why, "step 3") {
		t.Fatalf("a changed start state: %+v", h.Replay)
	}
	if !strings.Contains(h.Summary(), "NOT replayable") {
		t.Fatalf("summary: %s", h.Summary())
	}
	// …and offline, served from the exploration's own traffic, it replays.
	h = check(read.ID, true)
	if !h.Replayable() || !h.Replay.Offline {
		t.Fatalf("offline: %+v", h.Replay)
	}
	runs, _ := s.ReplayRuns(ctx, read.ID) // newest first
	if last := runs[0]; len(runs) != 3 || last.Fidelity == nil || !last.Fidelity.Hermetic || last.Fidelity.Refused != 0 {
		t.Fatalf("offline run's fidelity: %+v", last.Fidelity)
	}
	c, err := s.CountIntents(ctx)
	if err != nil || c.Hindsight != 3 || c.Replayable != 3 || c.Explorations != 1 {
		t.Fatalf("counts %+v, %v", c, err)
	}
}
