package openenv

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
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
