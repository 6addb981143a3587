package openenv

import (
	"context"
	"encoding/json"
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
// is alive — renewed on every reset and step, and by engine.Heartbeat
// (a renewal due a third of the lease after the last one) only when the
// client answers a ping just before: a client that stopped answering is
// not kept alive by an open socket — and ends with
// LEASE_EXPIRED when it runs out (at its deadline, or at once when the
// browser is gone). The session's engine holds a lease when it implements
// engine.Lease (engine/browser's Leased does).

// leaseHandle is an engine.Lease that says what it holds (for /health).
type leaseHandle interface {
	LeaseHandle() engine.Handle
}

// episodeInterrupter is an episode engine (Options.WrapEpisode's, such as
// the recorder) told why its episode stopped.
type episodeInterrupter interface {
	Interrupt(reason action.EndReason) error
}

// leaseKeeper keeps one session's lease: the heartbeat, and the message in
// progress, stopped when the lease ends.
type leaseKeeper struct {
	lease engine.Lease
	beat  *engine.Heartbeat

	mu        sync.Mutex
	cancelMsg context.CancelFunc // stops the message in progress
	wake      func()             // tells the session loop
}

// newLeaseKeeper returns the keeper of eng's lease, or nil when eng holds
// none (a local browser: its lease is the process itself). alive pings the
// session's client (nil when the heartbeat needs no answer).
func (s *Server) newLeaseKeeper(eng engine.Engine, id string, alive func(context.Context) error) *leaseKeeper {
	l, ok := engine.As[engine.Lease](eng)
	if !ok {
		return nil
	}
	k := &leaseKeeper{lease: l}
	k.beat = engine.NewHeartbeat(clientLease{l, alive}, engine.HeartbeatOptions{
		Failed: func(err error) {
			s.opts.Logf("openenv: session %s: renewing the browser lease failed (retrying until %s): %v",
				id, l.Deadline().Format(time.TimeOnly), err)
		},
		Ended: k.ended,
	})
	return k
}

// clientLease is a session's lease renewed only while its client is alive:
// a renewal no message of the client asked for (the heartbeat's) pings the
// client first, and fails when no pong comes within the renewal's time.
type clientLease struct {
	engine.Lease
	alive func(context.Context) error
}

// clientSpoke marks the context of a renewal made for a client's message.
type clientSpoke struct{}

func (l clientLease) Renew(ctx context.Context) error {
	if ctx.Value(clientSpoke{}) == nil && l.alive != nil {
		if err := l.alive(ctx); err != nil {
			return fmt.Errorf("the client did not answer a ping (%v); the lease is renewed only while the client answers", err)
		}
	}
	return l.Lease.Renew(ctx)
}

// ended stops the message in progress and wakes the session loop, which
// says why the lease ended.
func (k *leaseKeeper) ended(error) {
	k.mu.Lock()
	if k.cancelMsg != nil {
		k.cancelMsg()
	}
	wake := k.wake
	k.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// start runs the heartbeat until ctx ends or stop; wake is called when the
// lease ends, so the session loop notices.
func (k *leaseKeeper) start(ctx context.Context, wake func()) {
	if k == nil {
		return
	}
	k.mu.Lock()
	k.wake = wake
	k.mu.Unlock()
	k.beat.Start(ctx)
}

// stop ends the heartbeat and waits for it.
func (k *leaseKeeper) stop() {
	if k != nil {
		k.beat.Stop()
	}
}

// renew renews the lease once (a reset's or a step's renewal); false when
// the lease has ended (now or before). A renewal that fails ends the lease
// when the browser is gone for good or the deadline has passed; otherwise
// the next one may succeed.
func (k *leaseKeeper) renew(ctx context.Context) bool {
	return k == nil || k.beat.Renew(context.WithValue(ctx, clientSpoke{}, true)) == nil
}

// endedErr is why the lease ended, nil while it holds.
func (k *leaseKeeper) endedErr() error {
	if k == nil {
		return nil
	}
	return k.beat.Ended()
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
	k.mu.Unlock()
	if k.beat.Ended() != nil { // ended before cancelMsg was there to stop
		cancel()
	}
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
		renewals := k.beat.Renewals()
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
