package dataset

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"waymark/engine/action"
)

// Replay runs are stored beside their episode, read back newest first with
// their per-step verdicts, survive a reopen of the file, and never change
// the episode or its steps.
func TestReplayRunsStoredNewestFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	task := wmTask(t, s, "Open the cart", Navigation, "http://shop.waymark.test/")
	e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "bob"})
	a := action.ClickAt(10, 20)
	for _, st := range []Step{
		{EpisodeID: e.ID, Index: 0, URL: "http://shop.waymark.test/", Screenshot: wmPagePNG(1)},
		{EpisodeID: e.ID, Index: 1, Action: &a, URL: "http://shop.waymark.test/cart", Screenshot: wmPagePNG(2)},
	} {
		if err := s.AppendStep(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishEpisode(t.Context(), e.ID, EpisodeEnd{Answer: "cart"}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.GetEpisode(t.Context(), e.ID)
	beforeSteps, _ := s.Steps(t.Context(), e.ID)

	if runs, err := s.ReplayRuns(context.Background(), e.ID); err != nil || len(runs) != 0 {
		t.Fatalf("before any run: %v %v", runs, err)
	}
	one, score := 1, 0.99871
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	end0 := t0.Add(4 * time.Second)
	old, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: e.ID, StartedAt: t0, EndedAt: &end0, EngineJSON: `{"kind":"local","display":"headless"}`,
		Display: "headless", Matched: 1, Compared: 2, FirstDiverged: &one,
		Warning: "the site keeps state", Error: "step 1 diverged",
		Steps: []ReplayStep{{Step: 0, Action: "reset", Verdict: "match", Score: new(float64)},
			{Step: 1, Action: "click 10,20", Verdict: "diverged", Score: &score, Why: "screenshot: 412 pixels differ"}}})
	if err != nil {
		t.Fatal(err)
	}
	if old.ID == "" || old.OK() {
		t.Fatalf("saved %+v (ok %v)", old, old.OK())
	}
	end1 := t0.Add(time.Hour + 3*time.Second)
	newer, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: e.ID, StartedAt: t0.Add(time.Hour), EndedAt: &end1, Display: "xvfb", Matched: 2, Compared: 2,
		Steps: []ReplayStep{{Step: 0, Verdict: "match"}, {Step: 1, Verdict: "match"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !newer.OK() || newer.EngineJSON != "{}" {
		t.Fatalf("newer %+v", newer)
	}
	// A run without a time gets now: the newest of all.
	unfinished, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: e.ID, Error: "cancelled"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: other.ID}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err := s.ReplayRuns(context.Background(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].ID != unfinished.ID || runs[1].ID != newer.ID || runs[2].ID != old.ID {
		t.Fatalf("runs %+v", runs)
	}
	if runs[0].EndedAt != nil || runs[0].Steps == nil || len(runs[0].Steps) != 0 || runs[0].OK() {
		t.Errorf("unfinished run %+v", runs[0])
	}
	if !reflect.DeepEqual(runs[2], old) {
		t.Errorf("read back\n%+v\nsaved\n%+v", runs[2], old)
	}
	if *runs[2].Steps[1].Score != score || runs[2].Steps[1].Why != "screenshot: 412 pixels differ" || *runs[2].FirstDiverged != 1 || !runs[2].EndedAt.Equal(end0) {
		t.Errorf("old run %+v", runs[2])
	}
	if after, _ := s.GetEpisode(t.Context(), e.ID); !reflect.DeepEqual(before, after) {
		t.Errorf("the episode changed:\n%+v\n%+v", before, after)
	}
	if afterSteps, _ := s.Steps(t.Context(), e.ID); !reflect.DeepEqual(beforeSteps, afterSteps) {
		t.Error("the steps changed")
	}
	if runs, _ := s.ReplayRuns(context.Background(), "nope"); len(runs) != 0 {
		t.Errorf("runs of no episode: %v", runs)
	}
}

func TestSaveReplayRunRefusesBadRuns(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "T", Navigation, "http://shop.waymark.test/")
	e, _ := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "a"})
	if _, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: "missing"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing episode: %v", err)
	}
	if _, err := s.SaveReplayRun(t.Context(), ReplayRun{}); err == nil {
		t.Error("no episode: saved")
	}
	if _, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: e.ID, EngineJSON: "{kind"}); err == nil {
		t.Error("engine JSON that is not JSON: saved")
	}
	if runs, _ := s.ReplayRuns(context.Background(), e.ID); len(runs) != 0 {
		t.Errorf("refused runs were stored: %v", runs)
	}
}

// A run is OK only when it compared at least one step and every compared
// step matched, none diverged and it ended without an error: a run that
// compared nothing is not "every step matched (0 of 0)".
func TestReplayRunOK(t *testing.T) {
	zero, two := 0, 2
	for _, c := range []struct {
		name string
		run  ReplayRun
		ok   bool
	}{
		{"compared nothing", ReplayRun{EpisodeID: "e", Matched: 0, Compared: 0}, false},
		{"compared nothing, steps listed", ReplayRun{EpisodeID: "e", Steps: []ReplayStep{}, Matched: 0, Compared: 0}, false},
		{"one of one", ReplayRun{EpisodeID: "e", Matched: 1, Compared: 1}, true},
		{"three of three", ReplayRun{EpisodeID: "e", Matched: 3, Compared: 3}, true},
		{"two of three", ReplayRun{EpisodeID: "e", Matched: 2, Compared: 3, FirstDiverged: &two}, false},
		{"two of three, no first divergence", ReplayRun{EpisodeID: "e", Matched: 2, Compared: 3}, false},
		{"all matched, a first divergence", ReplayRun{EpisodeID: "e", Matched: 3, Compared: 3, FirstDiverged: &zero}, false},
		{"all matched, an error", ReplayRun{EpisodeID: "e", Matched: 3, Compared: 3, Error: "cancelled after step 2"}, false},
	} {
		if got := c.run.OK(); got != c.ok {
			t.Errorf("%s (%d of %d): OK() = %v, want %v", c.name, c.run.Matched, c.run.Compared, got, c.ok)
		}
	}
}

// A secret step's verdict is stored as the code "secret" and read back as
// VerdictSecret, also from a run stored when the verdict was written as
// its sentence; the sentence comes from the verdict.
func TestSecretVerdictStoredAsACode(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	task := wmTask(t, s, "Log in", Interaction, "http://shop.waymark.test/")
	e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.SaveReplayRun(t.Context(), ReplayRun{EpisodeID: e.ID, Steps: []ReplayStep{{Step: 1, Action: "type", Verdict: VerdictSecret}}})
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := s.db.QueryRow(`SELECT steps_json FROM replay_runs WHERE id=?`, run.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if want := `[{"step":1,"action":"type","verdict":"secret"}]`; stored != want {
		t.Errorf("stored steps %s, want %s", stored, want)
	}
	const sentence = "cannot replay: the typed text was a secret and was not stored"
	if got := VerdictSecret.Sentence(); got != sentence {
		t.Errorf("VerdictSecret.Sentence() = %q, want %q", got, sentence)
	}
	if got := VerdictDiverged.Sentence(); got != "diverged" {
		t.Errorf("VerdictDiverged.Sentence() = %q", got)
	}
	if _, err := s.db.Exec(`UPDATE replay_runs SET steps_json=? WHERE id=?`, `[{"step":1,"action":"type","verdict":"`+sentence+`"}]`, run.ID); err != nil {
		t.Fatal(err)
	}
	runs, err := s.ReplayRuns(t.Context(), e.ID)
	if err != nil || len(runs) != 1 || len(runs[0].Steps) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if v := runs[0].Steps[0].Verdict; v != VerdictSecret {
		t.Errorf("a run stored with the sentence reads back as %q, want %q", v, VerdictSecret)
	}
}
