package browser

import (
	"context"
	"time"

	"waymark/engine"
)

// What bounds a step (engine.Settings.StepBound): Step marks its context
// with the time by which its operations on the page must be done, the
// bound less engine.StepEndSlack (kept for ending an episode whose page
// stopped answering). An operation gets OpTimeout, stretched on a busy
// machine (chromium.Patient), and no more than what is left of that: a page
// that loops for ever on a click, or a browser that stopped, ends the
// episode with renderer_timeout within the step's bound however busy the
// machine is. Without the bound the stretch let a hung renderer hold a
// step for 40 s on a loaded machine (OpTimeout 10 s, stretched 4 times).

type stepDeadlineKey struct{}

// withStepBound marks ctx with the deadline of a step begun at begin and
// bounded by bound.
func withStepBound(ctx context.Context, begin time.Time, bound time.Duration) context.Context {
	return context.WithValue(ctx, stepDeadlineKey{}, begin.Add(bound-engine.StepEndSlack))
}

// stepLimit is limit, or what is left of the step's time under ctx when
// that is less (never below 0).
func stepLimit(ctx context.Context, limit time.Duration) time.Duration {
	dl, ok := ctx.Value(stepDeadlineKey{}).(time.Time)
	if !ok {
		return limit
	}
	return max(min(limit, time.Until(dl)), 0)
}
