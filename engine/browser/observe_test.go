package browser

import (
	"context"
	"errors"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// Observe observes the page as it is now, performing nothing: a change
// the page made since the last step shows, the step count stays (the
// observation has the last step's index), and the extras come with it when
// grounding is on; after the episode ends it is refused as Step is.
func TestObserve(t *testing.T) {
	ts := newSite(t)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Settings.Grounding = engine.GroundingOn })
	ctx := context.Background()
	reset(t, e, ts.URL+"/")
	step(t, e, action.ClickAt(100, 25)) // into the text box
	eval[bool](t, e, `document.title = 'changed by the page'; true`)
	obs, err := e.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if obs.Title != "changed by the page" || obs.Step != 1 || obs.Error != "" || obs.Done || len(obs.Screenshot) == 0 {
		t.Errorf("observation: title %q step %d error %q done %v, %d bytes of screenshot", obs.Title, obs.Step, obs.Error, obs.Done, len(obs.Screenshot))
	}
	if s := e.State(); s.StepCount != 1 {
		t.Errorf("step count %d after Observe, want 1", s.StepCount)
	}
	inp := eval[string](t, e, `document.getElementById('inp').getAttribute('bid')`)
	if x := obs.Extras; x == nil || x.FocusedBid != inp || x.LastAction != "" || len(x.ElementProps) == 0 {
		t.Errorf("extras %+v: want the text box focused (%s) and no last action", x, inp)
	}
	if got := eval[int](t, e, `rec.clicks.length`); got != 1 {
		t.Errorf("%d clicks reached the page, want the step's 1 only", got)
	}
	step(t, e, action.FinishWith("done"))
	if _, err := e.Observe(ctx); !errors.Is(err, engine.ErrResetBeforeStepping) {
		t.Errorf("Observe after the end: %v, want ErrResetBeforeStepping", err)
	}
}
