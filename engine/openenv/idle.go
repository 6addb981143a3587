package openenv

import (
	"context"
	"fmt"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv/control"
)

// Idle sessions: a client that stays connected but sends no reset or step
// would keep its --max-sessions slot and its browser for ever. A session
// with no reset or step for Options.IdleTimeout (counted from the last
// one's answer, or from the connection when there was none) ends with
// IDLE_TIMEOUT: the client gets an error frame saying so, watchers an
// "ended" frame with that code, the episode the end reason idle_timeout,
// and the slot and the browser are freed. A person in control keeps the
// session, however long the agent waits; the bound counts again from the
// hand-back.

// DefaultIdleTimeout is Options.IdleTimeout's default.
const DefaultIdleTimeout = 10 * time.Minute

// idleLimit is how long a session may stay without a reset or step; 0:
// for ever.
func (s *Server) idleLimit() time.Duration {
	switch d := s.opts.IdleTimeout; {
	case d < 0:
		return 0
	case d == 0:
		return DefaultIdleTimeout
	default:
		return d
	}
}

// idleLeft is how long the session may stay idle from now; ok is false
// when it has no bound. A person in control counts as activity.
func (ss *session) idleLeft() (left time.Duration, ok bool) {
	limit := ss.srv.idleLimit()
	if limit == 0 {
		return 0, false
	}
	if ss.ctl.PersonHolds() {
		ss.touch()
	}
	return limit - time.Since(time.Unix(0, ss.lastActive.Load())), true
}

// touch starts the idle bound again from now.
func (ss *session) touch() { ss.lastActive.Store(time.Now().UnixNano()) }

// idleTimer fires when the session's idle bound is reached (nil: never).
func (ss *session) idleTimer() (<-chan time.Time, func()) {
	left, ok := ss.idleLeft()
	if !ok {
		return nil, func() {}
	}
	t := time.NewTimer(max(left, 0))
	return t.C, func() { t.Stop() }
}

// idleExpired tells the client its session ended for want of a reset or
// step, and marks the episode's end reason; the session loop then frees
// the slot and the browser.
func (ss *session) idleExpired(ctx context.Context) control.End {
	limit := ss.srv.idleLimit()
	if ep, ok := engine.As[episodeInterrupter](ss.wrap); ok && ss.started && !ss.done {
		if err := ep.Interrupt(action.EndIdleTimeout); err != nil {
			ss.srv.opts.Logf("openenv: session %s: marking the episode's end reason: %v", ss.info.ID, err)
		}
	}
	ss.send(ctx, errorFrame(CodeIdleTimeout,
		fmt.Sprintf("No reset or step for %s: the session was closed and its browser freed for other clients (the server's --idle-timeout). Connect again for a new session.", limit)))
	return control.End{Reason: control.EndIdleTimeout, Detail: limit.String()}
}
