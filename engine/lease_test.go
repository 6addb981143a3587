package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// The heartbeat's timing is checked on synctest's fake clock: to the
// nanosecond on any machine, and the tests take no real time.

// clockLease is a Lease that keeps when it was renewed, on the test's
// bubble clock, and fails its renewals with fail while set.
type clockLease struct {
	ttl   time.Duration
	start time.Time

	mu       sync.Mutex
	deadline time.Time
	fail     error
	tries    []time.Duration // every renewal asked for, since start
	renewed  []time.Duration // the ones that succeeded
}

func newClockLease(ttl time.Duration) *clockLease {
	now := time.Now()
	return &clockLease{ttl: ttl, start: now, deadline: now.Add(ttl)}
}

func (l *clockLease) Renew(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tries = append(l.tries, time.Since(l.start))
	if l.fail != nil {
		return l.fail
	}
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

func (l *clockLease) failWith(err error) {
	l.mu.Lock()
	l.fail = err
	l.mu.Unlock()
}

func (l *clockLease) got() (tries, renewed []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.tries), slices.Clone(l.renewed)
}

// calls keeps what a heartbeat told, and when (since start).
type calls struct {
	start time.Time
	mu    sync.Mutex
	at    []time.Duration
	errs  []error
}

func (c *calls) add(err error) {
	c.mu.Lock()
	c.at = append(c.at, time.Since(c.start))
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

func (c *calls) got() ([]time.Duration, []error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.at), slices.Clone(c.errs)
}

func ms(d ...int) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, v := range d {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

// advance moves the bubble's clock on by d and lets the heartbeat act.
func advance(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// A renewal is due a third of the TTL after the last one that succeeded,
// the heartbeat's or another's (a step's).
func TestHeartbeatEveryThirdOfTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newClockLease(3 * time.Second)
		ended := &calls{start: l.start}
		h := NewHeartbeat(l, HeartbeatOptions{Ended: ended.add,
			Failed: func(err error) { t.Errorf("a renewal failed: %v", err) }})
		h.Start(t.Context())
		defer h.Stop()

		// Nothing before a third of the lease since it was acquired.
		advance(time.Second - time.Nanosecond)
		if tries, _ := l.got(); len(tries) != 0 {
			t.Fatalf("renewals before TTL/3 = %v, want none", tries)
		}
		advance(time.Nanosecond)
		if tries, _ := l.got(); !slices.Equal(tries, ms(1000)) {
			t.Fatalf("renewals at TTL/3 = %v, want [1s]", tries)
		}

		// A step renews 200 ms later: the next heartbeat is a third of
		// the lease after it, then every third of the lease.
		advance(200 * time.Millisecond)
		if err := h.Renew(t.Context()); err != nil {
			t.Fatalf("the step's renewal: %v", err)
		}
		advance(3800 * time.Millisecond) // to 5 s
		if tries, _ := l.got(); !slices.Equal(tries, ms(1000, 1200, 2200, 3200, 4200)) {
			t.Errorf("renewals = %v, want [1s 1.2s 2.2s 3.2s 4.2s]", tries)
		}
		if n := h.Renewals(); n != 5 {
			t.Errorf("Renewals() = %d, want 5", n)
		}
		if at, _ := ended.got(); len(at) != 0 || h.Ended() != nil {
			t.Errorf("the lease ended at %v (%v) while every renewal succeeded", at, h.Ended())
		}
	})
}

// Renewals that fail are tried again a third of the TTL later and last at
// the deadline; the one at the deadline ends the lease, and the heartbeat
// stops.
func TestHeartbeatExpiresAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newClockLease(3 * time.Second)
		failed, ended := &calls{start: l.start}, &calls{start: l.start}
		h := NewHeartbeat(l, HeartbeatOptions{Failed: failed.add, Ended: ended.add})
		h.Start(t.Context())
		defer h.Stop()

		advance(1500 * time.Millisecond) // renewed at 1 s: the deadline is 4 s
		l.failWith(errors.New("farm busy"))
		advance(2500*time.Millisecond - time.Nanosecond)
		if at, _ := ended.got(); len(at) != 0 {
			t.Fatalf("the lease ended at %v, before its deadline", at)
		}
		advance(time.Nanosecond) // 4 s: the deadline
		tries, renewed := l.got()
		if !slices.Equal(tries, ms(1000, 2000, 3000, 4000)) || !slices.Equal(renewed, ms(1000)) {
			t.Errorf("renewals tried at %v (succeeded at %v), want at 1s 2s 3s 4s (1s)", tries, renewed)
		}
		if at, errs := failed.got(); !slices.Equal(at, ms(2000, 3000)) || errs[0].Error() != "farm busy" {
			t.Errorf("Failed told at %v (%v), want at 2s and 3s", at, errs)
		}
		at, errs := ended.got()
		if !slices.Equal(at, ms(4000)) {
			t.Fatalf("Ended told at %v, want once at the 4 s deadline", at)
		}
		if msg := errs[0].Error(); !strings.HasPrefix(msg, "no renewal succeeded before its deadline ") || !strings.HasSuffix(msg, ": farm busy") {
			t.Errorf("why the lease ended: %q", msg)
		}
		if h.Ended() != errs[0] {
			t.Errorf("Ended() = %v, want %v", h.Ended(), errs[0])
		}
		if err := h.Renew(t.Context()); err != errs[0] {
			t.Errorf("Renew after the end = %v, want why it ended", err)
		}

		// The heartbeat stopped with the lease.
		l.failWith(nil)
		advance(time.Minute)
		if tries, _ := l.got(); len(tries) != 4 {
			t.Errorf("renewals after the lease ended: %v", tries[4:])
		}
	})
}

// A renewal that succeeds after failures brings the pace back to a third of
// the TTL after it.
func TestHeartbeatRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newClockLease(3 * time.Second)
		h := NewHeartbeat(l, HeartbeatOptions{})
		h.Start(t.Context())
		defer h.Stop()

		advance(1500 * time.Millisecond)
		l.failWith(errors.New("farm busy"))
		advance(time.Second) // 2 s fails
		l.failWith(nil)
		advance(1500 * time.Millisecond) // 3 s succeeds, then 4 s
		tries, renewed := l.got()
		if !slices.Equal(tries, ms(1000, 2000, 3000, 4000)) || !slices.Equal(renewed, ms(1000, 3000, 4000)) {
			t.Errorf("renewals tried at %v (succeeded at %v), want at 1s 2s 3s 4s (1s 3s 4s)", tries, renewed)
		}
		if h.Ended() != nil {
			t.Errorf("the lease ended: %v", h.Ended())
		}
	})
}

// A browser that is gone ends the lease at the renewal that says so, long
// before the deadline.
func TestHeartbeatEndsAtOnceWhenTheBrowserIsGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newClockLease(3 * time.Second)
		ended := &calls{start: l.start}
		h := NewHeartbeat(l, HeartbeatOptions{Ended: ended.add,
			Failed: func(err error) { t.Errorf("Failed told %v for a browser that is gone", err) }})
		h.Start(t.Context())
		defer h.Stop()

		gone := fmt.Errorf("%w: context disposed", ErrBrowserGone)
		l.failWith(gone)
		advance(time.Minute)
		if tries, _ := l.got(); !slices.Equal(tries, ms(1000)) {
			t.Errorf("renewals tried at %v, want once at 1s", tries)
		}
		if at, errs := ended.got(); !slices.Equal(at, ms(1000)) || errs[0] != gone {
			t.Errorf("Ended told %v at %v, want %v at 1s", errs, at, gone)
		}
	})
}

// A lease with no deadline does not expire: no heartbeat. Stop ends one
// that runs, and Start after Stop does nothing.
func TestHeartbeatStartAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		forever := newClockLease(3 * time.Second)
		forever.deadline = time.Time{}
		h := NewHeartbeat(forever, HeartbeatOptions{})
		h.Start(t.Context())
		advance(time.Minute)
		if tries, _ := forever.got(); len(tries) != 0 {
			t.Errorf("a lease with no deadline was renewed at %v", tries)
		}
		h.Stop()

		l := newClockLease(3 * time.Second)
		h = NewHeartbeat(l, HeartbeatOptions{})
		h.Start(t.Context())
		h.Start(t.Context()) // a second Start does nothing
		advance(1500 * time.Millisecond)
		h.Stop()
		h.Start(t.Context())
		advance(time.Minute)
		if tries, _ := l.got(); !slices.Equal(tries, ms(1000)) {
			t.Errorf("renewals tried at %v, want once at 1s (before Stop)", tries)
		}
	})
}

// A lease of no length (TTL 0 or less) gets no heartbeat: it would renew
// in a loop.
func TestHeartbeatNeedsATTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, ttl := range []time.Duration{0, -time.Second} {
			l := newClockLease(ttl)
			l.deadline = l.start.Add(time.Second)
			h := NewHeartbeat(l, HeartbeatOptions{})
			h.Start(t.Context())
			advance(time.Minute)
			h.Stop()
			if tries, _ := l.got(); len(tries) != 0 {
				t.Errorf("TTL %v: renewed at %v", ttl, tries)
			}
		}
	})
}

// A deadline off the heartbeat's grid (a farm that granted less than the
// TTL): the retry that would pass it comes at the deadline instead, and
// ends the lease there.
func TestHeartbeatRetryLandsOnAnOffGridDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newClockLease(3 * time.Second)
		l.deadline = l.start.Add(2500 * time.Millisecond)
		l.failWith(errors.New("farm busy"))
		ended := &calls{start: l.start}
		h := NewHeartbeat(l, HeartbeatOptions{Ended: ended.add})
		h.Start(t.Context())
		defer h.Stop()
		advance(5 * time.Second)
		if tries, _ := l.got(); !slices.Equal(tries, ms(500, 1500, 2500)) {
			t.Errorf("renewals tried at %v, want at 0.5s 1.5s 2.5s", tries)
		}
		if at, _ := ended.got(); !slices.Equal(at, ms(2500)) {
			t.Errorf("Ended told at %v, want once at the 2.5 s deadline", at)
		}
	})
}
