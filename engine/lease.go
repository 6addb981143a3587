package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Leases: a browser from a provider whose leases expire (a browser farm)
// is kept while its session lives by renewing its lease. The desktop app,
// `play` and `serve` keep theirs with one Heartbeat, under one rule:
//
//   - a renewal is due a third of the TTL after the last one that
//     succeeded, whoever made it (a step's renewal puts the heartbeat off);
//     at the start the last one is the lease's acquisition, its deadline
//     less the TTL;
//   - a renewal that fails is tried again a third of the TTL later, but
//     never later than the deadline, so the last try is at the deadline;
//   - the lease expires at its deadline: a renewal that fails at or after
//     it ends the lease. One that fails with ErrBrowserGone ends it at
//     once (what is gone does not come back);
//   - a lease with no deadline or no TTL does not expire and gets no
//     heartbeat.

// Lease is a hold on a session's browser that ends unless renewed
// (engine/browser's Leased is one).
type Lease interface {
	// Renew extends the lease by another TTL; it fails when the browser
	// is gone or the lease already ended.
	Renew(ctx context.Context) error
	// Deadline is when the lease ends unless renewed (zero: never).
	Deadline() time.Time
	// TTL is the lease's length.
	TTL() time.Duration
}

// HeartbeatOptions say whom a Heartbeat tells about failures. Both
// functions are called without any of the heartbeat's locks held, from the
// heartbeat's goroutine or from the caller of Renew.
type HeartbeatOptions struct {
	// Failed, when set, gets a renewal that failed while the lease still
	// holds (the next one may succeed).
	Failed func(error)
	// Ended, when set, gets why the lease ended, once.
	Ended func(error)
}

// Heartbeat keeps one Lease alive by the rule above. Its methods are safe
// for concurrent use.
type Heartbeat struct {
	lease Lease
	every time.Duration // TTL/3: the pace of renewals
	limit time.Duration // how long one renewal may take
	opts  HeartbeatOptions

	mu       sync.Mutex
	ended    error     // why the lease ended; nil while it holds
	retry    time.Time // when a failed renewal is tried again; zero while renewals succeed
	renewals int       // renewals that succeeded
	stopped  bool      // Stop was called: Start does nothing
	cancel   context.CancelFunc
	done     chan struct{} // closed when the heartbeat's goroutine returned
}

// NewHeartbeat returns the heartbeat of l. It does not beat until Start.
func NewHeartbeat(l Lease, o HeartbeatOptions) *Heartbeat {
	every := l.TTL() / 3
	return &Heartbeat{lease: l, every: every, limit: max(min(every, 10*time.Second), time.Second), opts: o}
}

// Start renews the lease in a goroutine of its own, by the rule above,
// until ctx ends, Stop is called or the lease ends. It does nothing for a
// lease with no deadline or no TTL, when the heartbeat already runs, or
// after Stop.
func (h *Heartbeat) Start(ctx context.Context) {
	if h.every <= 0 || h.lease.Deadline().IsZero() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped || h.cancel != nil {
		return
	}
	beat, cancel := context.WithCancel(ctx)
	h.cancel, h.done = cancel, make(chan struct{})
	go h.run(beat, h.done)
}

func (h *Heartbeat) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTimer(h.untilDue())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if wait := h.untilDue(); wait > 0 {
			t.Reset(wait) // another renewal put this one off
			continue
		}
		if h.Renew(ctx) != nil || ctx.Err() != nil {
			return
		}
		t.Reset(h.untilDue())
	}
}

// untilDue is how long until the next renewal is due (0: now).
func (h *Heartbeat) untilDue() time.Duration {
	h.mu.Lock()
	retry := h.retry
	h.mu.Unlock()
	due := retry
	if due.IsZero() {
		due = h.lease.Deadline().Add(h.every - h.lease.TTL())
	}
	return max(time.Until(due), 0)
}

// Stop ends the heartbeat and waits for its goroutine; the lease is not
// released. Start does nothing after it.
func (h *Heartbeat) Stop() {
	h.mu.Lock()
	h.stopped = true
	cancel, done := h.cancel, h.done
	h.cancel = nil
	h.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Renew renews the lease now (a step's renewal, say), which puts the
// heartbeat's next renewal off by a third of the TTL. It returns why the
// lease ended (now or before), nil while it holds: a renewal that fails
// before the deadline goes to Failed and does not end the lease. When ctx
// ends during the renewal, its outcome counts for nothing.
func (h *Heartbeat) Renew(ctx context.Context) error {
	if err := h.Ended(); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, h.limit)
	err := h.lease.Renew(rctx)
	cancel()
	if ctx.Err() != nil {
		return h.Ended() // the caller went away or was stopped: no verdict
	}
	now, dl := time.Now(), h.lease.Deadline()
	h.mu.Lock()
	if h.ended != nil {
		defer h.mu.Unlock()
		return h.ended
	}
	if err == nil {
		h.renewals++
		h.retry = time.Time{}
		h.mu.Unlock()
		return nil
	}
	switch {
	case errors.Is(err, ErrBrowserGone): // the error says what is gone
		h.ended = err
	case !dl.IsZero() && !now.Before(dl):
		h.ended = fmt.Errorf("no renewal succeeded before its deadline %s: %w", dl.UTC().Format(time.RFC3339), err)
	default:
		h.retry = now.Add(h.every)
		if !dl.IsZero() && dl.Before(h.retry) {
			h.retry = dl
		}
	}
	ended := h.ended
	h.mu.Unlock()
	if ended != nil {
		if h.opts.Ended != nil {
			h.opts.Ended(ended)
		}
		return ended
	}
	if h.opts.Failed != nil {
		h.opts.Failed(err)
	}
	return nil
}

// Ended is why the lease ended, nil while it holds.
func (h *Heartbeat) Ended() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

// Renewals is how many renewals succeeded, the heartbeat's and Renew's.
func (h *Heartbeat) Renewals() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.renewals
}
