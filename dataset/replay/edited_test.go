package replay_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
)

// An edited episode replays as edited: a step undone while recording is
// loaded (flagged removed, its index kept) but not run, every kept step
// matches, and the report numbers steps by their stored index.
func TestRunEditedEpisode(t *testing.T) {
	site := newNotesSite(t)
	s, err := dataset.Open(t.TempDir() + "/w.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	eng := headlessEngine(t)
	ctx := context.Background()
	r := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "alice"})
	if _, err := r.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(100, 35), action.TypeText("tea"), action.TypeText(" oops")} {
		if _, err := r.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	id := r.EpisodeID()
	if k, _, err := r.Undo(ctx, replay.BringBack(s, nil)); err != nil || k != 3 {
		t.Fatalf("undo: %d %v", k, err)
	}
	obs, err := r.Step(ctx, action.ClickAt(390, 37))
	if err != nil || obs.URL != site.URL+"/saved?q=tea" {
		t.Fatalf("after the undo: %s %v", obs.URL, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	rec, err := replay.Load(ctx, s, id)
	if err != nil {
		t.Fatal(err)
	}
	var removed []bool
	for i, st := range rec.Steps {
		if st.Index != i {
			t.Fatalf("step %d has index %d", i, st.Index)
		}
		removed = append(removed, st.Removed)
	}
	if !reflect.DeepEqual(removed, []bool{false, false, false, true, false}) || rec.Kept() != 3 {
		t.Fatalf("loaded: removed %v, kept %d", removed, rec.Kept())
	}
	rep, err := replay.Run(ctx, headlessEngine(t), rec, replay.Options{PracticeHosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, sr := range rep.Steps {
		got = append(got, sr.Step)
		if sr.Verdict != dataset.VerdictMatch {
			t.Errorf("step %d: %s %s", sr.Step, sr.Verdict, sr.Why)
		}
	}
	if !reflect.DeepEqual(got, []int{0, 1, 2, 4}) || !rep.OK || rep.StoredSteps != 3 || rep.Matched != 4 {
		t.Fatalf("report steps %v ok %v stored %d matched %d stopped %q", got, rep.OK, rep.StoredSteps, rep.Matched, rep.Stopped)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "its removed steps (3) are not replayed") {
		t.Fatalf("warnings %q", rep.Warnings)
	}
}
