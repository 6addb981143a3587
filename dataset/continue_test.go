package dataset

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// replayKept is a BringBack for the store's tests (dataset/replay's, which
// compares screenshots, is tested with a real browser there): it resets
// inner and steps the kept actions, failing at step failAt when set.
func replayKept(s *Store, failAt int) BringBack {
	return func(ctx context.Context, inner engine.Engine, opts engine.ResetOptions, id string) (engine.Observation, int, error) {
		obs, err := inner.Reset(ctx, opts)
		if err != nil {
			return obs, 0, err
		}
		steps, err := s.Steps(ctx, id)
		if err != nil {
			return obs, 0, err
		}
		k := 0
		for _, st := range steps {
			if st.Index == 0 || st.Removed {
				continue
			}
			if st.Index == failAt {
				return obs, k, errors.New("step diverged on purpose")
			}
			if obs, err = inner.Step(ctx, *st.Action); err != nil {
				return obs, k, err
			}
			k = st.Index
		}
		return obs, k, nil
	}
}

// recordInterrupted records actions by annotator and stops the recorder
// before the end: the episode is interrupted, as after a crash.
func recordInterrupted(t *testing.T, s *Store, task Task, annotator string, actions ...action.Action) string {
	t.Helper()
	ctx := context.Background()
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 20), RecorderOptions{TaskID: task.ID, Annotator: annotator})
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	ep, err := s.GetEpisode(ctx, rec.EpisodeID())
	if err != nil || ep.Status != StatusInterrupted {
		t.Fatalf("episode %+v %v", ep, err)
	}
	return ep.ID
}

func stepSummary(t *testing.T, s *Store, id string) []string {
	t.Helper()
	steps, err := s.Steps(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range steps {
		a := "start"
		if st.Action != nil {
			a = st.Action.String()
		}
		if st.Removed {
			a += " (removed)"
		}
		out = append(out, a)
	}
	return out
}

// Which interrupted episodes the Resume notice lists, and which ReopenEpisode
// refuses: other annotators', finished, reviewed, and those of a Waymark
// still running elsewhere. Reopening makes the episode recording again
// (owned here, end reason and time cleared); UndoReopen puts it back as it
// was; a second reopen loses.
func TestReopenEpisode(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Buy tea", Interaction, "http://shop.waymark.test/")
	older := recordInterrupted(t, s, task, "alice", action.ClickAt(10, 10))
	time.Sleep(5 * time.Millisecond)
	mine := recordInterrupted(t, s, task, "alice", action.ClickAt(10, 10), action.TypeText("tea"))
	recordInterrupted(t, s, task, "bob", action.ClickAt(10, 10))
	reviewed := recordInterrupted(t, s, task, "alice", action.ClickAt(20, 20))
	if _, err := s.SaveReview(t.Context(), Review{EpisodeID: reviewed, Reviewer: "carol", Outcome: OutcomeSuccess}); err != nil {
		t.Fatal(err)
	}
	elsewhere := recordInterrupted(t, s, task, "alice", action.ClickAt(30, 30))
	s.db.Exec(`UPDATE episodes SET owner='elsewhere-host|42|t', ended_at=? WHERE id=?`, now(), elsewhere)
	finished := recordInterrupted(t, s, task, "alice")
	s.db.Exec(`UPDATE episodes SET status='finished', end_reason='finished' WHERE id=?`, finished)

	eps, err := s.ResumableEpisodes(t.Context(), "alice", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range eps {
		got = append(got, e.ID)
	}
	if !reflect.DeepEqual(got, []string{mine, older}) {
		t.Fatalf("resumable %v, want [mine older] = %v", got, []string{mine, older})
	}
	if eps, _ := s.ResumableEpisodes(t.Context(), "alice", 1); len(eps) != 1 || eps[0].ID != mine {
		t.Fatalf("limit 1: %v", eps)
	}
	if eps, _ := s.ResumableEpisodes(t.Context(), " ", 0); len(eps) != 0 {
		t.Fatalf("no annotator: %v", eps)
	}

	for name, c := range map[string]struct{ id, want string }{
		"reviewed":  {reviewed, "already reviewed"},
		"elsewhere": {elsewhere, "still running (process 42 on elsewhere-host)"},
		"finished":  {finished, "it is finished"},
	} {
		if _, err := s.ReopenEpisode(t.Context(), c.id); !errors.Is(err, ErrNotResumable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.ReopenEpisode(t.Context(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown episode: %v", err)
	}

	s.db.Exec(`UPDATE episodes SET owner='deadhost|1|x' WHERE id=?`, mine) // a crashed program's (another host, silent long ago)
	s.db.Exec(`UPDATE episodes SET ended_at='2020-01-01T00:00:00.000Z' WHERE id=?`, mine)
	before, _ := s.GetEpisode(t.Context(), mine)
	r, err := s.ReopenEpisode(t.Context(), mine)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := s.GetEpisode(t.Context(), mine)
	if ep.Status != StatusRecording || ep.Owner != s.owner || ep.EndReason != "" || ep.EndedAt != nil || ep.NumSteps != 2 {
		t.Fatalf("reopened: %+v", ep)
	}
	if _, err := s.ReopenEpisode(t.Context(), mine); !errors.Is(err, ErrNotResumable) || !strings.Contains(err.Error(), "being recorded") {
		t.Fatalf("second reopen: %v", err)
	}
	if err := s.UndoReopen(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	ep, _ = s.GetEpisode(t.Context(), mine)
	if !reflect.DeepEqual(ep, before) {
		t.Fatalf("after UndoReopen\n got %+v\nwant %+v", ep, before)
	}
}

// CheckContinue refuses a prefix with a secret, a removed step as the
// branch point, or a step that is not there, and says what to choose.
func TestCheckContinue(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	task := wmTask(t, s, "Log in", Interaction, "http://forms.waymark.test/")
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 20), RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(1, 1), action.TypeText("x"), action.ClickAt(2, 2), action.ClickAt(3, 3)} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	id := rec.EpisodeID()
	if _, _, err := rec.Undo(ctx, replayKept(s, 0)); err != nil { // step 4 removed
		t.Fatal(err)
	}
	// Step 2's text as a secret would be stored.
	s.db.Exec(`UPDATE steps SET action_json=? WHERE episode_id=? AND idx=2`, `{"op":"type","text":"`+action.RedactedText+`"}`, id)
	for k, want := range map[int]string{
		0: "", 1: "",
		2:  "step 2 of episode " + id + " typed a secret",
		3:  "continue from step 1 or earlier",
		4:  "step 4 of episode " + id + " was removed",
		5:  "has no step 5 (its steps are 0–4)",
		-1: "has no step -1",
	} {
		err := s.CheckContinue(ctx, id, k)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("k=%d: %v, want %q", k, err, want)
		}
	}
	if k, err := s.LastKeptStep(ctx, id); err != nil || k != 3 {
		t.Errorf("last kept %d %v", k, err)
	}
}

// Resume replays the kept steps, then records into the same episode after
// its last stored step, with a 'resume' row in the audit log. A replay
// that fails leaves the episode exactly as it was.
func TestRecorderResume(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	task := wmTask(t, s, "Buy tea", Interaction, "http://shop.waymark.test/")
	id := recordInterrupted(t, s, task, "alice", action.ClickAt(10, 10), action.TypeText("tea"))
	before, _ := s.GetEpisode(ctx, id)
	steps0 := stepSummary(t, s, id)

	eng := newWMEngine(action.SetDefault, 20)
	rec := NewRecorder(s, eng, RecorderOptions{Annotator: "alice"})
	if _, err := rec.Resume(ctx, id, replayKept(s, 2)); err == nil || !strings.Contains(err.Error(), "diverged on purpose") {
		t.Fatalf("failing replay: %v", err)
	}
	if ep, _ := s.GetEpisode(ctx, id); !reflect.DeepEqual(ep, before) || !reflect.DeepEqual(stepSummary(t, s, id), steps0) {
		t.Fatalf("a failed resume changed the episode: %+v", ep)
	}
	if rec.Recording() {
		t.Fatal("recording after a failed resume")
	}
	bob := NewRecorder(s, newWMEngine(action.SetDefault, 20), RecorderOptions{Annotator: "bob"})
	if _, err := bob.Resume(ctx, id, replayKept(s, 0)); !errors.Is(err, ErrNotResumable) || !strings.Contains(err.Error(), "recorded by alice") {
		t.Fatalf("bob resumed alice's episode: %v", err)
	}

	obs, err := rec.Resume(ctx, id, replayKept(s, 0))
	if err != nil {
		t.Fatal(err)
	}
	if obs.Step != 2 || !rec.Recording() || rec.EpisodeID() != id {
		t.Fatalf("after resume: obs %+v recording %v episode %s", obs, rec.Recording(), rec.EpisodeID())
	}
	obs, err = rec.Step(ctx, action.ClickAt(50, 50))
	if err != nil {
		t.Fatal(err)
	}
	if obs.Step != 3 {
		t.Fatalf("the resumed step is reported as %d", obs.Step)
	}
	ep, _ := s.GetEpisode(ctx, id)
	if ep.Status != StatusRecording || ep.NumSteps != 3 || !ep.Resumed {
		t.Fatalf("episode %+v", ep)
	}
	var edits []string
	for e, err := range s.EpisodeEdits(ctx, id) {
		if err != nil {
			t.Fatal(err)
		}
		edits = append(edits, string(e.Kind)+"@"+strconv.Itoa(e.Step)+" by "+e.Editor)
	}
	if !reflect.DeepEqual(edits, []string{"resume@2 by alice"}) {
		t.Fatalf("audit log %q", edits)
	}
	if _, err := rec.Step(ctx, action.FinishWith("")); err != nil {
		t.Fatal(err)
	}
	if ep, _ := s.GetEpisode(ctx, id); ep.Status != StatusFinished {
		t.Fatalf("status %s after finish", ep.Status)
	}
	if !reflect.DeepEqual(stepSummary(t, s, id), []string{"start", "click 10,10", `type "tea"`, "click 50,50", "finish"}) {
		t.Fatalf("steps %q", stepSummary(t, s, id))
	}
}

// Undo removes the newest kept step and records on after the last stored
// one; with only the start page it is refused; when the page cannot be
// brought back the episode stops as interrupted, every step kept.
func TestRecorderUndo(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	task := wmTask(t, s, "Buy tea", Interaction, "http://shop.waymark.test/")
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 20), RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	if _, _, err := rec.Undo(ctx, replayKept(s, 0)); err == nil || !strings.Contains(err.Error(), "no episode is being recorded") {
		t.Fatalf("undo before any episode: %v", err)
	}
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	id := rec.EpisodeID()
	if _, _, err := rec.Undo(ctx, replayKept(s, 0)); err == nil || !strings.Contains(err.Error(), "only the start page") {
		t.Fatalf("undo of step 0: %v", err)
	}
	for _, a := range []action.Action{action.ClickAt(1, 1), action.TypeText("x")} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	idx, obs, err := rec.Undo(ctx, replayKept(s, 0))
	if err != nil || idx != 2 || obs.Step != 1 {
		t.Fatalf("undo: %d %+v %v", idx, obs, err)
	}
	if obs, err = rec.Step(ctx, action.TypeText("y")); err != nil || obs.Step != 3 {
		t.Fatalf("after undo: %+v %v", obs, err)
	}
	if got := stepSummary(t, s, id); !reflect.DeepEqual(got, []string{"start", "click 1,1", `type "x" (removed)`, `type "y"`}) {
		t.Fatalf("steps %q", got)
	}
	if idx, _, err = rec.Undo(ctx, replayKept(s, 1)); err == nil || idx != 3 || !strings.Contains(err.Error(), "saved as interrupted") {
		t.Fatalf("undo whose replay fails: %d %v", idx, err)
	}
	ep, _ := s.GetEpisode(ctx, id)
	if ep.Status != StatusInterrupted || rec.Recording() || ep.NumSteps != 1 {
		t.Fatalf("after a failed undo: %+v", ep)
	}
	if got := stepSummary(t, s, id); !reflect.DeepEqual(got, []string{"start", "click 1,1", `type "x" (removed)`, `type "y" (removed)`}) {
		t.Fatalf("steps %q", got)
	}
}

// A branch's episode names its parent and step.
func TestRecorderResetBranch(t *testing.T) {
	s := wmStore(t)
	ctx := context.Background()
	task := wmTask(t, s, "Buy tea", Interaction, "http://shop.waymark.test/")
	parent := recordInterrupted(t, s, task, "alice", action.ClickAt(10, 10), action.TypeText("tea"))
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 20), RecorderOptions{TaskID: task.ID, Annotator: "bob"})
	if _, err := rec.ResetBranch(ctx, engine.ResetOptions{}, parent, 1); err != nil {
		t.Fatal(err)
	}
	ep, _ := s.GetEpisode(ctx, rec.EpisodeID())
	if ep.ParentEpisodeID != parent || ep.BranchStep == nil || *ep.BranchStep != 1 || ep.Annotator != "bob" || ep.TaskID != task.ID {
		t.Fatalf("branch %+v", ep)
	}
	if _, err := rec.ResetBranch(ctx, engine.ResetOptions{}, parent, 7); err == nil || !strings.Contains(err.Error(), "no such step") {
		t.Fatalf("branch past the parent's steps: %v", err)
	}
	if _, err := rec.ResetBranch(ctx, engine.ResetOptions{}, "", 1); err == nil {
		t.Fatal("a branch without a parent")
	}
}
