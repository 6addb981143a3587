package dataset

import (
	"context"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// givingUpEngine cancels the caller's context as each step returns: the
// agent's connection dropped, or the person closed the window, just as the
// page answered.
type givingUpEngine struct {
	*wmEngine
	cancel context.CancelFunc
}

func (e *givingUpEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	obs, err := e.wmEngine.Step(ctx, a)
	e.cancel()
	return obs, err
}

// A step the browser took is recorded even when its caller gives up as it
// returns: the store's write does not inherit the caller's cancellation.
func TestRecorderKeepsAStepWhoseCallerGaveUp(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Click twice", Interaction, "http://127.0.0.1:9/")
	eng := &givingUpEngine{wmEngine: newWMEngine(action.SetDefault, 0)}
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "ada"})
	defer rec.Close()
	if _, err := rec.Reset(context.Background(), engine.ResetOptions{StartURL: "http://127.0.0.1:9/"}); err != nil {
		t.Fatal(err)
	}
	for i, a := range []action.Action{action.ClickAt(5, 5), action.FinishWith("done")} {
		ctx, cancel := context.WithCancel(context.Background())
		eng.cancel = cancel
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatalf("step %d (%s): %v", i+1, a, err)
		}
	}
	steps, err := s.Steps(context.Background(), rec.EpisodeID())
	if err != nil || len(steps) != 3 {
		t.Fatalf("%d steps stored (%v), want the reset and both steps", len(steps), err)
	}
	ep, err := s.GetEpisode(context.Background(), rec.EpisodeID())
	if err != nil || ep.Status != StatusFinished || ep.FinalAnswer != "done" {
		t.Fatalf("episode %s answer %q (%v), want finished with the answer", ep.Status, ep.FinalAnswer, err)
	}
}
