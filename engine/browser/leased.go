package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"waymark/engine"
)

// Leased is an engine on a browser a provider supplied: Close also
// releases the provider's session, and Renew keeps its lease alive. The
// desktop app, `play` and `serve` all get their remote browsers this way.
type Leased struct {
	*Engine
	Provider engine.Provider
	Handle   engine.Handle

	mu       sync.Mutex
	deadline time.Time
	ttl      time.Duration
	released bool
	beat     *engine.Heartbeat // KeepAlive's (Close stops it)
}

var _ engine.Lease = (*Leased)(nil)

// Acquire gets a session from p and makes its engine with opts. The
// session is released again when the engine cannot be made.
func Acquire(ctx context.Context, p engine.Provider, spec engine.Spec, opts Options) (*Leased, error) {
	h, err := p.Acquire(ctx, spec)
	if err != nil {
		return nil, err
	}
	e, err := NewForHandle(h, opts)
	if err != nil {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return nil, errors.Join(err, p.Release(rctx, h))
	}
	// The provider's length, not what is left of the lease by now: the
	// engine's start takes a while on a busy machine.
	ttl := h.TTL
	if ttl <= 0 {
		ttl = spec.TTL()
	}
	return &Leased{Engine: e, Provider: p, Handle: h, deadline: h.Deadline, ttl: ttl}, nil
}

// TTL is the lease's length: how long the session lives without a renewal.
func (l *Leased) TTL() time.Duration { return l.ttl }

// Deadline is when the lease ends unless renewed (zero: never).
func (l *Leased) Deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadline
}

// Renew extends the lease by another TTL (a heartbeat). Providers without
// expiring leases need none and Renew is then a no-op.
func (l *Leased) Renew(ctx context.Context) error {
	hb, ok := l.Provider.(engine.Heartbeater)
	if !ok {
		return nil
	}
	l.mu.Lock()
	released := l.released
	l.mu.Unlock()
	if released {
		return fmt.Errorf("the browser session %s was released; acquire a new one", l.Handle.SessionID)
	}
	if err := hb.Heartbeat(ctx, l.Handle); err != nil {
		return err
	}
	l.mu.Lock()
	if !l.deadline.IsZero() {
		l.deadline = time.Now().Add(l.ttl)
	}
	l.mu.Unlock()
	return nil
}

// KeepAlive keeps the lease by engine.Heartbeat's rule until Close, so a
// session whose steps come slowly (a person reading a page) keeps its
// browser: a renewal every TTL/3, retried after a failure until the lease
// expires at its deadline. Providers without expiring leases need no
// heartbeat and KeepAlive then does nothing. onErr, when set, gets each
// renewal that failed (the session is likely gone: the next step says so
// too) and, once, why the lease ended; the heartbeat stops then. Calling
// it again does nothing.
func (l *Leased) KeepAlive(onErr func(error)) {
	if _, ok := l.Provider.(engine.Heartbeater); !ok {
		return
	}
	tell := func(format string) func(error) {
		return func(err error) {
			if onErr != nil {
				onErr(fmt.Errorf(format, l.Handle.SessionID, err))
			}
		}
	}
	l.mu.Lock()
	if l.beat != nil || l.released {
		l.mu.Unlock()
		return
	}
	beat := engine.NewHeartbeat(l, engine.HeartbeatOptions{
		Failed: tell("renewing the lease of browser session %s: %w"),
		Ended:  tell("the lease of browser session %s ended: %w"),
	})
	l.beat = beat
	l.mu.Unlock()
	beat.Start(context.Background()) // outside l.mu: it reads the deadline
}

// stopHeartbeat ends KeepAlive's heartbeat and waits for it.
func (l *Leased) stopHeartbeat() {
	l.mu.Lock()
	beat := l.beat
	l.mu.Unlock()
	if beat != nil {
		beat.Stop()
	}
}

// Close ends the heartbeat and the engine, then releases the session (once).
func (l *Leased) Close() error {
	l.stopHeartbeat()
	err := l.Engine.Close()
	l.mu.Lock()
	done2 := l.released
	l.released = true
	l.mu.Unlock()
	if done2 {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(err, l.Provider.Release(ctx, l.Handle))
}
