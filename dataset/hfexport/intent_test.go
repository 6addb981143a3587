package hfexport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
)

// An exploration and a task cut from it export like any episode, with
// their origin: intent_origin, the exploration and the span, the key
// points, replayable (null until replayed, then the replay's answer); a
// planned episode carries its actual_task; the card counts planned and
// hindsight tasks apart. NoExplorations leaves the exploration out and
// keeps the cut.
func TestExportIntentOrigins(t *testing.T) {
	ctx := context.Background()
	f := standard(t)
	et, err := f.store.ExploreTask(ctx, "http://127.0.0.1:8080/explore")
	if err != nil {
		t.Fatal(err)
	}
	f.episode("exp-1", et.ID, "alice", dataset.StatusFinished, 6)
	f.exec(`UPDATE episodes SET intent_origin='exploration' WHERE id='exp-1'`)
	cut, err := f.store.CutSpan(ctx, dataset.CutSpec{ExplorationID: "exp-1", From: 2, To: 4, Instruction: "Find the red shoes' price", Category: dataset.Information,
		Answer: "12", KeyPoints: []string{"url: page4", "the price shows"}, Editor: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetActualTask(ctx, "ep-00-a", "Found the blue shoes instead"); err != nil {
		t.Fatal(err)
	}
	rows := func(o Options) map[string]episodeRow {
		t.Helper()
		out := map[string]episodeRow{}
		for _, p := range parquetFiles(t, o.Out, "episodes") {
			for _, r := range readRows[episodeRow](t, p) {
				out[*r.EpisodeID] = r
			}
		}
		return out
	}
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.IncludeUnreviewed = true
	mustExport(t, f, o)
	got := rows(o)
	c, ok := got[cut.ID]
	if !ok {
		t.Fatal("the cut was not exported")
	}
	if *c.IntentOrigin != "hindsight" || *c.ExplorationID != "exp-1" || *c.SpanFrom != 2 || *c.SpanTo != 4 || c.Replayable != nil ||
		len(c.KeyPoints) != 2 || *c.KeyPoints[0] != "url: page4" || *c.FinalAnswer != "12" || *c.NumSteps != 4 {
		t.Fatalf("cut row: origin %v exploration %v span %v–%v replayable %v key points %d answer %v steps %v",
			*c.IntentOrigin, c.ExplorationID, c.SpanFrom, c.SpanTo, c.Replayable, len(c.KeyPoints), *c.FinalAnswer, *c.NumSteps)
	}
	if e := got["exp-1"]; *e.IntentOrigin != "exploration" || e.ExplorationID != nil {
		t.Fatalf("exploration row: %v", *e.IntentOrigin)
	}
	if p := got["ep-00-a"]; *p.IntentOrigin != "planned" || *p.ActualTask != "Found the blue shoes instead" || p.Replayable != nil {
		t.Fatalf("planned row: %v %q", *p.IntentOrigin, *p.ActualTask)
	}
	card := readCard(t, o.Out).body
	for _, want := range []string{"### Planned and hindsight tasks", "1 task (1 episode) were named afterwards", "0 replayable, 0 not (`replayable` false), 1 not replayed",
		"1 exploration themselves are included", "1 planned episode say in `actual_task`"} {
		if !strings.Contains(card, want) {
			t.Fatalf("the card lacks %q:\n%s", want, card)
		}
	}

	// Replayed: replayable true; explorations left out.
	if err := f.store.SetHindsightCheck(ctx, cut.ID, dataset.HindsightCheck{Replay: &dataset.CutReplay{Replayable: true, Matched: 4, Compared: 4}}); err != nil {
		t.Fatal(err)
	}
	o2 := opts(filepath.Join(t.TempDir(), "ds2"))
	o2.IncludeUnreviewed, o2.NoExplorations = true, true
	mustExport(t, f, o2)
	got = rows(o2)
	if _, ok := got["exp-1"]; ok {
		t.Fatal("the exploration was exported with NoExplorations")
	}
	if c := got[cut.ID]; c.Replayable == nil || !*c.Replayable {
		t.Fatalf("cut replayable %v", c.Replayable)
	}
	if card := readCard(t, o2.Out).body; !strings.Contains(card, "1 replayable, 0 not") || !strings.Contains(card, "The explorations themselves (1 episode) were left out.") {
		t.Fatalf("card:\n%s", card)
	}
}
