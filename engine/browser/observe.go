package browser

import (
	"context"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// Observe returns an observation of the page as it is now, performing no
// action (engine.Observer): the active tab is settled as after a step (a
// tab the page opened meanwhile is followed), then observed with the
// extras when grounding is on. The step count, the pointer and the step
// limit stay as they are. With no episode running, or after it is done, it
// returns engine.ErrResetBeforeStepping, as Step does.
func (e *Engine) Observe(ctx context.Context) (action.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ep, err := e.running() // step.go
	if err != nil {
		return action.Observation{}, err
	}
	begin := time.Now()
	obs := action.Observation{Step: e.state.StepCount}
	obs.Timings.SettledBy, err = e.settleAndFollow(ctx, ep, begin, e.set.ActionWait)
	obs.Timings.SettleMS = time.Since(begin).Milliseconds()
	if ep.tab.gone() {
		if err = e.fallBack(ctx, ep, begin); err != nil {
			e.logf("browser: %v", err)
		}
	}
	e.finishObservation(ctx, &obs, err, begin)
	e.groundStep(ep, &obs, nil)
	return obs, e.remoteGone()
}

var _ engine.Observer = (*Engine)(nil)
