package openenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"sync"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// Browser leases: a session whose browser comes from a provider with
// expiring leases (a browser farm) keeps its lease alive while its client
// is connected — renewed on every reset and step, and by a heartbeat every
// third of the lease — and ends with LEASE_EXPIRED when it runs out.

// Lease is a session's hold on its browser. The session's engine holds one
// when it implements Lease (engine/browser's Leased does).
type Lease interface {
	// Renew extends the lease by another TTL; it fails when the browser
	// is gone or the lease already ended.
	Renew(ctx context.Context) error
	// Deadline is when the lease ends unless renewed (zero: never).
	Deadline() time.Time
	// TTL is the lease's length.
	TTL() time.Duration
}

// leaseHandle is a Lease that says what it holds (for /health).
type leaseHandle interface {
	LeaseHandle() engine.Handle
}

// episodeInterrupter is an episode engine (Options.WrapEpisode's, such as
// the recorder) told why its episode stopped.
type episodeInterrupter interface {
	Interrupt(reason action.EndReason) error
}

// leaseKeeper keeps one session's lease.
type leaseKeeper struct {
	lease Lease
	id    string // the session's id, for the log
	logf  func(string, ...any)

	mu        sync.Mutex
	ended     error // why the lease ended; nil while it holds
	renewals  int
	lastErr   error              // the last renewal's error (nil after a success)
	cancelMsg context.CancelFunc // stops the message in progress
	stopBeat  context.CancelFunc
	beatDone  chan struct{}
}

// newLeaseKeeper returns the keeper of eng's lease, or nil when eng holds
// none (a local browser: its lease is the process itself).
func (s *Server) newLeaseKeeper(eng engine.Engine, id string) *leaseKeeper {
	l, ok := engine.As[Lease](eng)
	if !ok {
		return nil
	}
	return &leaseKeeper{lease: l, id: id, logf: s.opts.Logf}
}

// start runs the heartbeat until ctx ends or stop: it renews the lease a
// third of the TTL after the last renewal (a step's or its own), so a busy
// session's steps are its only renewals. wake is called when the lease
// ends, so the session loop notices.
func (k *leaseKeeper) start(ctx context.Context, wake func()) {
	if k == nil || k.lease.TTL() <= 0 || k.lease.Deadline().IsZero() {
		return
	}
	every := k.lease.TTL() / 3
	beat, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	k.mu.Lock()
	k.stopBeat, k.beatDone = stop, done
	k.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-t.C:
			}
			if wait := k.notDue(every); wait > 0 {
				t.Reset(wait)
				continue
			}
			if !k.renew(beat) {
				if beat.Err() == nil {
					wake()
				}
				return
			}
			next := every
			if k.failing() {
				// Try again before the deadline passes, and once at it.
				next = min(every, max(time.Until(k.lease.Deadline()), 0)+50*time.Millisecond)
				next = max(next, 100*time.Millisecond)
			}
			t.Reset(next)
		}
	}()
}

// stop ends the heartbeat and waits for it.
func (k *leaseKeeper) stop() {
	if k == nil {
		return
	}
	k.mu.Lock()
	stop, done := k.stopBeat, k.beatDone
	k.stopBeat = nil
	k.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// renew renews the lease once; false when the lease has ended (now or
// before). A renewal that fails ends the lease when the browser is gone
// for good or the deadline has passed; otherwise the next one may succeed.
func (k *leaseKeeper) renew(ctx context.Context) bool {
	if k == nil {
		return true
	}
	if k.endedErr() != nil {
		return false
	}
	rctx, cancel := context.WithTimeout(ctx, max(min(k.lease.TTL()/3, 10*time.Second), time.Second))
	err := k.lease.Renew(rctx)
	cancel()
	if ctx.Err() != nil {
		return k.endedErr() == nil // the client left or the message was stopped
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err == nil {
		k.renewals++
		k.lastErr = nil
		return k.ended == nil
	}
	k.lastErr = err
	dl := k.lease.Deadline()
	switch {
	case errors.Is(err, engine.ErrBrowserGone): // the error says what is gone
		k.endLocked(err)
	case !dl.IsZero() && !time.Now().Before(dl):
		k.endLocked(fmt.Errorf("no renewal succeeded before its deadline %s: %v", dl.UTC().Format(time.RFC3339), err))
	default:
		k.logf("openenv: session %s: renewing the browser lease failed (retrying until %s): %v", k.id, dl.Format(time.TimeOnly), err)
	}
	return k.ended == nil
}

// endLocked ends the lease (once) and stops the message in progress; k.mu
// is held.
func (k *leaseKeeper) endLocked(err error) {
	if k.ended != nil {
		return
	}
	k.ended = err
	if k.cancelMsg != nil {
		k.cancelMsg()
	}
}

// notDue is how long until the heartbeat's next renewal is due: every
// after the lease was last renewed (or acquired), which a renewal's
// deadline says, as it is then plus the TTL. 0 when it is due, or while
// renewals fail (the retries keep their own pace).
func (k *leaseKeeper) notDue(every time.Duration) time.Duration {
	if k.failing() {
		return 0
	}
	return max(time.Until(k.lease.Deadline().Add(every-k.lease.TTL())), 0)
}

func (k *leaseKeeper) failing() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastErr != nil
}

// endedErr is why the lease ended, nil while it holds.
func (k *leaseKeeper) endedErr() error {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ended
}

// messageContext is ctx for one message, stopped when the lease ends
// meanwhile; done must be called when the message is answered.
func (k *leaseKeeper) messageContext(ctx context.Context) (mctx context.Context, done func()) {
	if k == nil {
		return ctx, func() {}
	}
	mctx, cancel := context.WithCancel(ctx)
	k.mu.Lock()
	k.cancelMsg = cancel
	if k.ended != nil {
		cancel()
	}
	k.mu.Unlock()
	return mctx, func() {
		k.mu.Lock()
		k.cancelMsg = nil
		k.mu.Unlock()
		cancel()
	}
}

// leaseExpired tells the client that the session's lease ended (the
// socket is closed and the browser released after it) and marks the
// current episode's end reason.
func (ss *session) leaseExpired(ctx context.Context, why error) {
	if ep, ok := engine.As[episodeInterrupter](ss.wrap); ok && ss.started && !ss.done {
		if err := ep.Interrupt(action.EndLeaseExpired); err != nil {
			ss.srv.opts.Logf("openenv: session %s: marking the episode's end reason: %v", ss.info.ID, err)
		}
	}
	ss.send(ctx, errorFrame(CodeLeaseExpired,
		fmt.Sprintf("The session's browser lease expired (%v); the browser was released and the session is closed. Connect again for a new session.", why)))
}

// leaseReport is /health's "sessions" object: the sessions in use and
// their leases.
func (s *Server) leaseReport() json.RawMessage {
	s.mu.Lock()
	active := s.active
	var held []*session
	for _, ss := range s.sessions {
		if ss.lease != nil {
			held = append(held, ss)
		}
	}
	s.mu.Unlock()
	sort.Slice(held, func(i, j int) bool {
		a, b := held[i].info, held[j].info
		return a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID)
	})
	leases := make([]json.RawMessage, 0, len(held))
	now := time.Now()
	for _, ss := range held {
		k := ss.lease
		var h engine.Handle
		if lh, ok := k.lease.(leaseHandle); ok {
			h = lh.LeaseHandle()
		}
		var deadline, left any
		if dl := k.lease.Deadline(); !dl.IsZero() {
			deadline = dl.UTC().Format(time.RFC3339Nano)
			left = max(dl.Sub(now), 0).Round(time.Millisecond).Seconds()
		}
		k.mu.Lock()
		renewals := k.renewals
		k.mu.Unlock()
		leases = append(leases, obj(
			field{"session_id", ss.info.ID},
			field{"lease_id", h.SessionID},
			field{"transport", h.Transport},
			field{"endpoint", bareEndpoint(h.Endpoint)},
			field{"ttl_seconds", k.lease.TTL().Seconds()},
			field{"deadline", deadline},
			field{"seconds_left", left},
			field{"renewals", renewals},
		))
	}
	return obj(
		field{"active", active},
		field{"max", s.opts.MaxSessions},
		field{"provider", s.opts.Provider},
		field{"leases", leases},
	)
}

// bareEndpoint is an endpoint URL without its query, fragment and user
// (they can hold a browser farm's token).
func bareEndpoint(e string) string {
	u, err := url.Parse(e)
	if err != nil {
		return ""
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String()
}
