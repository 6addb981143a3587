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
}

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
	ttl := spec.TTL()
	if !h.Deadline.IsZero() {
		if d := time.Until(h.Deadline); d > 0 {
			ttl = d.Round(time.Millisecond)
		}
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

// Close ends the engine, then releases the session (once).
func (l *Leased) Close() error {
	err := l.Engine.Close()
	l.mu.Lock()
	done := l.released
	l.released = true
	l.mu.Unlock()
	if done {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(err, l.Provider.Release(ctx, l.Handle))
}
