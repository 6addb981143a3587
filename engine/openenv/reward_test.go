package openenv

import (
	"context"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// Over OpenEnv an episode without any check must not end as "did not pass":
// the server's reward 0 for an unchecked task is no reward. A task the
// server knows (task_id) or a check of the caller's keeps the reward.
func TestUncheckedEpisodeHasNoReward(t *testing.T) {
	task := Task{ID: "t1", Goal: "g", Category: "navigation", StartURL: "http://127.0.0.1:9/",
		Check: &action.Check{Kind: action.CheckKindURL, URL: `/nowhere$`}}
	_, hs := testServer(t, Options{NewEngine: func(context.Context) (engine.Engine, error) { return &checkingSketch{sketchEngine: newSketch()}, nil },
		Task: func(id string) (Task, bool) { return task, id == task.ID }, TaskIDs: func() []string { return []string{task.ID} }})
	ctx := context.Background()
	finish := func(c *Client, opts engine.ResetOptions, extra map[string]any) *float64 {
		t.Helper()
		if _, err := c.ResetWith(ctx, opts, extra); err != nil {
			t.Fatal(err)
		}
		o, err := c.Step(ctx, action.FinishWith(""))
		if err != nil || !o.Done {
			t.Fatalf("finish: %v %+v", err, o)
		}
		return o.Reward
	}
	c, err := Dial(ctx, hs.URL, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := finish(c, engine.ResetOptions{StartURL: "http://127.0.0.1:9/"}, nil); r != nil {
		t.Errorf("an ad-hoc episode with no check ended with reward %v, want none", *r)
	}
	if r := finish(c, engine.ResetOptions{}, map[string]any{"task_id": "t1"}); r == nil || *r != 0 {
		t.Errorf("a server task's failed check: reward %v, want 0", r)
	}
}

// checkingSketch is the sketch engine with an automatic check that always
// fails: reward 0.0 at the end of an episode that has a check.
type checkingSketch struct {
	*sketchEngine
	check *action.Check
}

func (e *checkingSketch) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	e.check = opts.Check
	return e.sketchEngine.Reset(ctx, opts)
}

func (e *checkingSketch) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	o, err := e.sketchEngine.Step(ctx, a)
	if o.Done && e.check != nil {
		zero := 0.0
		o.Reward = &zero
	}
	return o, err
}
