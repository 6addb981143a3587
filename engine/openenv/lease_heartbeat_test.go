package openenv

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"waymark/engine"
)

// clockLease is a Lease that keeps when it was renewed, on the test's
// bubble clock.
type clockLease struct {
	ttl   time.Duration
	start time.Time

	mu       sync.Mutex
	deadline time.Time
	renewed  []time.Duration // since start
}

func (l *clockLease) Renew(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deadline = time.Now().Add(l.ttl)
	l.renewed = append(l.renewed, time.Since(l.start))
	return nil
}

func (l *clockLease) Deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadline
}

func (l *clockLease) TTL() time.Duration { return l.ttl }

func (l *clockLease) renewals() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.renewed)
}

// The heartbeat renews a third of the TTL after the last renewal, a
// step's or its own — to the nanosecond, on synctest's fake clock (so the
// timing is exact on any machine, and the test takes no real time).
func TestLeaseHeartbeatEveryThirdOfTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		now := time.Now()
		l := &clockLease{ttl: ttl, start: now, deadline: now.Add(ttl)}
		k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
		var woken atomic.Bool
		k.start(t.Context(), func() { woken.Store(true) })
		defer k.stop()

		// Nothing before a third of the lease since it was acquired.
		time.Sleep(ttl/3 - time.Nanosecond)
		synctest.Wait()
		if got := l.renewals(); len(got) != 0 {
			t.Fatalf("renewals before TTL/3 = %v, want none", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got, want := l.renewals(), []time.Duration{time.Second}; !slices.Equal(got, want) {
			t.Fatalf("renewals at TTL/3 = %v, want %v", got, want)
		}

		// A step renews 200 ms later: the next heartbeat is a third of
		// the lease after it, then every third of the lease.
		time.Sleep(200 * time.Millisecond)
		if !k.renew(t.Context()) {
			t.Fatal("the step's renewal ended the lease")
		}
		time.Sleep(3800 * time.Millisecond) // to 5 s
		synctest.Wait()
		want := []time.Duration{1 * time.Second, 1200 * time.Millisecond, 2200 * time.Millisecond, 3200 * time.Millisecond, 4200 * time.Millisecond}
		if got := l.renewals(); !slices.Equal(got, want) {
			t.Errorf("renewals = %v, want %v", got, want)
		}
		if woken.Load() {
			t.Error("the session was woken while every renewal succeeded")
		}
	})
}

// failingLease is a clockLease whose renewals fail with err (its deadline
// stays where it was).
type failingLease struct {
	clockLease
	err error
}

func (l *failingLease) Renew(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.renewed = append(l.renewed, time.Since(l.start))
	return l.err
}

// A lease whose renewals fail ends at its deadline, not a nanosecond
// before nor after: a renewal that fails before it only logs, one at it
// ends the lease with the deadline and the renewal's error; the heartbeat
// retries a third of the TTL apart and once at the deadline, where the
// session is woken. (Fake clock: exact on any machine.)
func TestLeaseExpiresExactlyAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		now := time.Now()
		l := &failingLease{clockLease: clockLease{ttl: ttl, start: now, deadline: now.Add(ttl)}, err: errors.New("farm busy")}
		k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
		var wokenAt atomic.Int64 // since now; -1 until woken
		wokenAt.Store(-1)
		k.start(t.Context(), func() { wokenAt.Store(int64(time.Since(now))) })
		defer k.stop()

		time.Sleep(ttl - time.Nanosecond)
		synctest.Wait()
		if err := k.endedErr(); err != nil || wokenAt.Load() != -1 {
			t.Fatalf("a nanosecond before the deadline: ended %v, woken at %d", err, wokenAt.Load())
		}
		if !k.renew(t.Context()) {
			t.Fatal("a renewal failing a nanosecond before the deadline ended the lease")
		}
		if err := k.endedErr(); err != nil {
			t.Fatalf("a failed renewal before the deadline ended the lease: %v", err)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got, want := time.Duration(wokenAt.Load()), ttl; got != want {
			t.Errorf("the session was woken at %v, want %v (the deadline)", got, want)
		}
		want := "no renewal succeeded before its deadline " + now.Add(ttl).UTC().Format(time.RFC3339) + ": farm busy"
		if err := k.endedErr(); err == nil || err.Error() != want {
			t.Errorf("ended with %v, want %q", err, want)
		}
		if got, want := l.renewals(), []time.Duration{time.Second, 2 * time.Second, ttl - time.Nanosecond, ttl}; !slices.Equal(got, want) {
			t.Errorf("renewals tried at %v, want %v", got, want)
		}
		if k.renew(t.Context()) {
			t.Error("a renewal after the lease ended said it holds")
		}
	})
}

// A renewal that fails because the browser is gone ends the lease at once,
// long before its deadline, with the provider's error as it is.
func TestLeaseGoneEndsBeforeTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		gone := fmt.Errorf("%w: context disposed", engine.ErrBrowserGone)
		l := &failingLease{clockLease: clockLease{ttl: time.Hour, start: now, deadline: now.Add(time.Hour)}, err: gone}
		k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
		if k.renew(t.Context()) {
			t.Fatal("a renewal of a gone browser said the lease holds")
		}
		if err := k.endedErr(); err != gone {
			t.Errorf("ended with %v, want %v", err, gone)
		}
	})
}

// A deadline off the heartbeat's grid (a farm that granted less than the
// TTL): the retry that would pass it comes 50 ms after the deadline
// instead, and ends the lease there.
func TestLeaseRetryLandsJustPastAnOffGridDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		now := time.Now()
		l := &failingLease{clockLease: clockLease{ttl: ttl, start: now, deadline: now.Add(2500 * time.Millisecond)}, err: errors.New("farm busy")}
		k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
		var wokenAt atomic.Int64
		wokenAt.Store(-1)
		k.start(t.Context(), func() { wokenAt.Store(int64(time.Since(now))) })
		defer k.stop()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got, want := l.renewals(), []time.Duration{time.Second, 2 * time.Second, 2550 * time.Millisecond}; !slices.Equal(got, want) {
			t.Errorf("renewals tried at %v, want %v", got, want)
		}
		if got, want := time.Duration(wokenAt.Load()), 2550*time.Millisecond; got != want {
			t.Errorf("the session was woken at %v, want %v", got, want)
		}
	})
}

// No heartbeat runs for a lease of no length (TTL 0 or less) or without a
// deadline: it would renew in a loop, or for nothing.
func TestLeaseHeartbeatNeedsATTLAndADeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		for _, l := range []*clockLease{
			{ttl: 0, start: now, deadline: now.Add(time.Second)},
			{ttl: -time.Second, start: now, deadline: now.Add(time.Second)},
			{ttl: time.Second, start: now},
		} {
			k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
			k.start(t.Context(), func() { t.Error("woken") })
			k.mu.Lock()
			started := k.stopBeat != nil
			k.mu.Unlock()
			if started {
				t.Errorf("a heartbeat started for TTL %v, deadline %v", l.ttl, l.deadline)
			}
			k.stop()
		}
		// A TTL of a nanosecond has one.
		l := &clockLease{ttl: 3 * time.Nanosecond, start: now, deadline: now.Add(3 * time.Nanosecond)}
		k := &leaseKeeper{lease: l, id: "s1", logf: t.Logf}
		k.start(t.Context(), func() {})
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		k.stop()
		if got := l.renewals(); len(got) != 1 || got[0] != time.Nanosecond {
			t.Errorf("renewals of a 3 ns lease after 1 ns: %v", got)
		}
	})
}
