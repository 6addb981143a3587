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
	stopBeat context.CancelFunc // ends KeepAlive's heartbeat (Close calls it)
	beatDone chan struct{}      // closed when the heartbeat goroutine returned
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

// KeepAlive renews the lease every TTL/3 until Close, so a session whose
// steps come slowly (a person reading a page) keeps its browser. Providers
// without expiring leases need no heartbeat and KeepAlive then does
// nothing. onErr, when set, gets a renewal that failed (the session is
// likely gone: the next step says so too); the heartbeat goes on. Calling
// it again does nothing.
func (l *Leased) KeepAlive(onErr func(error)) {
	if _, ok := l.Provider.(engine.Heartbeater); !ok || l.ttl <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopBeat != nil || l.released {
		return
	}
	beat, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.stopBeat, l.beatDone = stop, done
	every := l.ttl / 3
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(beat, max(every, time.Second))
			err := l.Renew(ctx)
			cancel()
			if beat.Err() != nil {
				return // Close ended the heartbeat meanwhile: no error to tell
			}
			if err != nil && onErr != nil {
				onErr(fmt.Errorf("renewing the lease of browser session %s: %w", l.Handle.SessionID, err))
			}
		}
	}()
}

// Close ends the heartbeat and the engine, then releases the session (once).
func (l *Leased) Close() error {
	l.mu.Lock()
	stop, done := l.stopBeat, l.beatDone
	if stop != nil {
		l.stopBeat = nil
		stop()
	}
	l.mu.Unlock()
	if done != nil {
		<-done
	}
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
