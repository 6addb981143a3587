package dataset

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// wmReopen opens a second, independent store on the same file: what it
// sees was committed, not held in a transaction or a cache.
func wmReopen(t *testing.T, s *Store) *Store {
	t.Helper()
	s2, err := Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

func TestRecorderCommitsEachStepBeforeReturning(t *testing.T) {
	s := wmStore(t)
	task, err := s.AddTask(t.Context(), Task{Goal: "What is the capital of France?", Category: Information, StartURL: "http://wiki.waymark.test/",
		Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "Paris"}})
	if err != nil {
		t.Fatal(err)
	}
	eng := newWMEngine(action.SetDefault, 0)
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	other := wmReopen(t, s)
	ctx := context.Background()

	obs0, err := rec.Reset(ctx, engine.ResetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	epID := rec.EpisodeID()
	if obs0.URL != task.StartURL {
		t.Fatalf("the task's start URL was not used: %q", obs0.URL)
	}
	ep, err := other.GetEpisode(ctx, epID)
	if err != nil {
		t.Fatalf("episode not committed when Reset returned: %v", err)
	}
	if ep.Status != StatusRecording || ep.Annotator != "alice" || ep.TaskID != task.ID || ep.ActionSet != action.SetDefault ||
		!strings.Contains(ep.EngineJSON, `"browser":"wmEngine test"`) || ep.Goal != task.Goal || ep.Category != Information || ep.Owner == "" {
		t.Fatalf("episode %+v", ep)
	}
	if steps, _ := other.Steps(ctx, epID); len(steps) != 1 || steps[0].Index != 0 || steps[0].Action != nil || steps[0].ActionJSON != "" {
		t.Fatalf("step 0 not committed: %+v", steps)
	}

	acts := []action.Action{action.ClickAt(312, 188), {Op: action.Type, Text: "capital \"France\"", Metadata: map[string]any{"why": "search"}}, action.PressKey("ENTER")}
	for i, a := range acts {
		obs, err := rec.Step(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := other.Steps(ctx, epID)
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != i+2 {
			t.Fatalf("after step %d returned, %d steps are committed", i+1, len(steps))
		}
		last := steps[i+1]
		want, _ := a.MarshalJSON()
		if last.Index != i+1 || last.ActionJSON != string(want) || last.Action == nil || last.Action.String() != a.String() ||
			last.URL != obs.URL || last.Timings.TotalMS != 33 || last.Screenshot != nil {
			t.Fatalf("step %d stored as %+v (action JSON %s, want %s)", i+1, last, last.ActionJSON, want)
		}
		shot, err := other.Screenshot(ctx, epID, i+1)
		if err != nil || !bytes.Equal(shot, obs.Screenshot) {
			t.Fatalf("screenshot of step %d: %d bytes, err %v", i+1, len(shot), err)
		}
	}
	// An invalid action: returned as a validation error, nothing recorded.
	_, err = rec.Step(ctx, action.ClickAt(900, 10))
	var ve *action.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("invalid click: err = %v, want a ValidationError", err)
	}
	if _, err := rec.Step(ctx, action.Action{Op: action.Goto, URL: "http://a.test/"}); !errors.As(err, &ve) {
		t.Fatalf("extended op in the default set: err = %v", err)
	}
	if steps, _ := other.Steps(ctx, epID); len(steps) != 4 {
		t.Fatalf("invalid actions were recorded: %d steps", len(steps))
	}
	obs, err := rec.Step(ctx, action.FinishWith(" paris "))
	if err != nil {
		t.Fatal(err)
	}
	if !obs.Done {
		t.Fatal("finish did not end the episode")
	}
	ep, _ = other.GetEpisode(ctx, epID)
	if ep.Status != StatusFinished || ep.EndReason != action.EndFinished || ep.FinalAnswer != " paris " || ep.FinalURL != obs.URL ||
		ep.AutoReward == nil || *ep.AutoReward != 1 || ep.NumSteps != 4 || ep.EndedAt == nil {
		t.Fatalf("finished episode %+v", ep)
	}
	if rec.Recording() {
		t.Fatal("still recording after the end")
	}
	// Closing after the end changes nothing.
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if ep, _ = other.GetEpisode(ctx, epID); ep.Status != StatusFinished {
		t.Fatalf("close changed a finished episode: %s", ep.Status)
	}
}

func TestRecorderEndReasonsDiscardAndInterrupt(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Open the cart", Navigation, "http://shop.waymark.test/")
	eng := newWMEngine(action.SetExtended, 2)
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "bob"})
	ctx := context.Background()

	// Step limit.
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	first := rec.EpisodeID()
	if obs, err := rec.Step(ctx, action.ScrollBy(300)); err != nil || obs.Step != 1 || obs.Done {
		t.Fatalf("first step: %+v %v", obs, err)
	}
	if _, err := rec.Step(ctx, action.Action{Op: action.Goto, URL: "http://shop.waymark.test/cart"}); err != nil {
		t.Fatal(err)
	}
	ep, _ := s.GetEpisode(ctx, first)
	if ep.Status != StatusFinished || ep.EndReason != action.EndStepLimit || ep.ActionSet != action.SetExtended || ep.AutoReward != nil {
		t.Fatalf("step-limit episode %+v", ep)
	}
	// Discard keeps the steps.
	if err := rec.Discard(); err != nil {
		t.Fatal(err)
	}
	if ep, _ = s.GetEpisode(ctx, first); ep.Status != StatusDiscarded || ep.EndReason != action.EndDiscarded {
		t.Fatalf("discarded: %+v", ep)
	}
	if steps, _ := s.Steps(ctx, first); len(steps) != 3 {
		t.Fatalf("discard lost steps: %d", len(steps))
	}
	if _, err := rec.Step(ctx, action.ScrollBy(10)); err == nil || !strings.Contains(err.Error(), "discarded") {
		t.Fatalf("step after discard: %v", err)
	}
	// A reset while recording interrupts the open episode.
	if obs, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil || obs.Step != 0 || obs.Done {
		t.Fatalf("reset after discard: %+v %v", obs, err)
	}
	second := rec.EpisodeID()
	if second == first {
		t.Fatalf("the discarded episode's id was reused: %s", second)
	}
	if obs, err := rec.Step(ctx, action.ClickAt(1, 1)); err != nil || obs.Step != 1 || obs.Done {
		t.Fatalf("click in the second episode: %+v %v", obs, err)
	}
	if _, err := rec.Reset(ctx, engine.ResetOptions{EpisodeID: first}); err != nil {
		t.Fatal(err)
	}
	third := rec.EpisodeID()
	if third == first || third == second {
		t.Fatalf("an episode id was reused: %s", third)
	}
	if ep, _ = s.GetEpisode(ctx, second); ep.Status != StatusInterrupted || ep.NumSteps != 1 {
		t.Fatalf("episode left by a reset: %+v", ep)
	}
	// Close while recording: interrupted, steps kept.
	if obs, err := rec.Step(ctx, action.PressKey("TAB")); err != nil || obs.Step != 1 || obs.Done {
		t.Fatalf("key in the third episode: %+v %v", obs, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if ep, _ = s.GetEpisode(ctx, third); ep.Status != StatusInterrupted || ep.EndReason != action.EndInterrupted || ep.NumSteps != 1 {
		t.Fatalf("episode left by close: %+v", ep)
	}
	if _, err := rec.Step(ctx, action.PressKey("TAB")); err == nil {
		t.Fatal("step after close accepted")
	}
	if !eng.closed {
		t.Fatal("close did not close the engine")
	}
}

// framelessEngine hides the test engine's Frames method.
type framelessEngine struct{ engine.Engine }

func TestRecorderFramesAndAdhocTasks(t *testing.T) {
	s := wmStore(t)
	eng := newWMEngine(action.SetDefault, 0)
	rec := NewRecorder(s, eng, RecorderOptions{Annotator: "agent:test"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: "http://127.0.0.1:9/"}); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-rec.Frames():
		if f.Width != 800 {
			t.Fatalf("frame %+v", f)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the engine's live frame was not forwarded")
	}
	ep, _ := s.GetEpisode(ctx, rec.EpisodeID())
	task, _ := s.GetTask(ctx, ep.TaskID)
	if task.Source != SourceAdhoc || task.StartURL != "http://127.0.0.1:9/" || task.Category != Navigation {
		t.Fatalf("ad-hoc task %+v", task)
	}
	// The same URL again reuses the ad-hoc task.
	rec.Reset(ctx, engine.ResetOptions{StartURL: "http://127.0.0.1:9/"})
	ep2, _ := s.GetEpisode(ctx, rec.EpisodeID())
	if ep2.TaskID != ep.TaskID {
		t.Fatal("a second ad-hoc task was made for the same URL")
	}
	rec.Close()

	plain := NewRecorder(s, framelessEngine{newWMEngine(action.SetDefault, 0)}, RecorderOptions{Annotator: "x"})
	select {
	case _, ok := <-plain.Frames():
		if ok {
			t.Fatal("frame from an engine without frames")
		}
	case <-time.After(time.Second):
		t.Fatal("Frames of an engine without frames must be closed, not block")
	}
	if _, err := plain.Reset(ctx, engine.ResetOptions{}); err == nil || !strings.Contains(err.Error(), "no task and no start URL") {
		t.Fatalf("reset without task or URL: %v", err)
	}
	noname := NewRecorder(s, eng, RecorderOptions{})
	if _, err := noname.Reset(ctx, engine.ResetOptions{StartURL: "http://a.test/"}); err == nil || !strings.Contains(err.Error(), "annotator") {
		t.Fatalf("reset without annotator: %v", err)
	}
}

// A full disk: SQLite's max_page_count makes the next growth fail with
// SQLITE_FULL, as a full disk does.
func TestRecorderDiskFull(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Fill the form", Interaction, "http://settings.waymark.test/")
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "carol"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Step(ctx, action.ClickAt(5, 5)); err != nil {
		t.Fatal(err)
	}
	// One connection besides the store's pinned one, so the page limit
	// set below applies to every write.
	s.db.SetMaxOpenConns(2)
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`PRAGMA max_page_count = ` + strconv.Itoa(pages)); err != nil {
		t.Fatal(err)
	}
	_, err := rec.Step(ctx, action.ClickAt(6, 6))
	if !errors.Is(err, ErrNotSaved) || !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("step on a full disk: %v", err)
	}
	// Recording stopped: later steps are refused, not silently lost.
	if _, err := rec.Step(ctx, action.ClickAt(7, 7)); err == nil || !strings.Contains(err.Error(), "recording of this episode stopped") {
		t.Fatalf("step after a failed save: %v", err)
	}
	id := rec.EpisodeID()
	ep, _ := s.GetEpisode(ctx, id)
	steps, _ := s.Steps(ctx, id)
	if len(steps) != 2 || ep.NumSteps != 1 {
		t.Fatalf("after the failure: %d steps stored, num_steps %d; want 2 and 1", len(steps), ep.NumSteps)
	}
	if _, err := s.db.Exec(`PRAGMA max_page_count = 1073741823`); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if ep, _ = s.GetEpisode(ctx, id); ep.Status != StatusInterrupted || ep.NumSteps != 1 {
		t.Fatalf("episode after close %+v", ep)
	}
	if v, _ := s.IntegrityCheck(ctx); v != "ok" {
		t.Fatal(v)
	}
}

func TestRecorderLockedDatabase(t *testing.T) {
	old := busyTimeoutMS
	busyTimeoutMS = 300
	defer func() { busyTimeoutMS = old }()
	s := wmStore(t)
	task := wmTask(t, s, "Fill the form", Interaction, "http://settings.waymark.test/")
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "carol"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	release := wmHoldWriteLock(t, s.Path())
	start := time.Now()
	_, err := rec.Step(ctx, action.ClickAt(6, 6))
	if !errors.Is(err, ErrNotSaved) || !errors.Is(err, ErrLocked) {
		t.Fatalf("step while another program writes: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("waited %v for the lock", d)
	}
	release()
	steps, _ := s.Steps(ctx, rec.EpisodeID())
	if len(steps) != 1 {
		t.Fatalf("%d steps stored, want only step 0", len(steps))
	}
}

// slowEngine makes every step take a while, or hang until closed.
type slowEngine struct {
	*wmEngine
	delay  time.Duration
	closed chan struct{}
}

func (e *slowEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	select {
	case <-time.After(e.delay):
		return e.wmEngine.Step(ctx, a)
	case <-e.closed:
		return engine.Observation{}, errors.New("engine closed during the step")
	}
}

func (e *slowEngine) Close() error {
	select {
	case <-e.closed:
	default:
		close(e.closed)
	}
	return e.wmEngine.Close()
}

func TestRecorderDuringASlowStep(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Slow", Navigation, "http://shop.waymark.test/")
	eng := &slowEngine{wmEngine: newWMEngine(action.SetDefault, 0), delay: 1500 * time.Millisecond, closed: make(chan struct{})}
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "a"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := rec.Step(ctx, action.ClickAt(1, 1)); done <- err }()
	time.Sleep(100 * time.Millisecond)
	id, recording := rec.EpisodeID(), rec.Recording()
	// Blocked, they would return only once the step (1.5 s) has: the step
	// must still be running when they answer. (A time bound here measured
	// the scheduler on a loaded machine.)
	select {
	case err := <-done:
		t.Fatalf("EpisodeID/Recording answered only after the step ended (%v): they wait for a step", err)
	default:
	}
	if id == "" || !recording {
		t.Fatalf("during a step: episode %q, recording %v", id, recording)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Close during a hanging step aborts it: nothing is recorded for it and
	// the episode ends interrupted.
	eng.delay = time.Hour
	go func() { _, err := rec.Step(ctx, action.ClickAt(2, 2)); done <- err }()
	time.Sleep(100 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- rec.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a hanging step")
	}
	if err := <-done; err == nil {
		t.Fatal("the aborted step reported success")
	}
	ep, _ := s.GetEpisode(ctx, id)
	if steps, _ := s.Steps(ctx, id); len(steps) != 2 || ep.Status != StatusInterrupted {
		t.Fatalf("after close: %d steps, status %s", len(steps), ep.Status)
	}
}
