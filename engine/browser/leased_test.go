package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"waymark/engine"
)

// beatLog is a provider with expiring leases that keeps when its sessions'
// heartbeats came (on the test's bubble clock) and fails them with fail
// while set. It starts no browser: the heartbeat's timing needs none.
type beatLog struct {
	start time.Time

	mu    sync.Mutex
	fail  error
	beats []time.Duration // since start
}

func (p *beatLog) Acquire(context.Context, engine.Spec) (engine.Handle, error) {
	return engine.Handle{}, errors.New("beatLog hands out no sessions")
}

func (p *beatLog) Release(context.Context, engine.Handle) error { return nil }

func (p *beatLog) Heartbeat(context.Context, engine.Handle) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beats = append(p.beats, time.Since(p.start))
	return p.fail
}

func (p *beatLog) failWith(err error) {
	p.mu.Lock()
	p.fail = err
	p.mu.Unlock()
}

func (p *beatLog) got() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.beats)
}

// KeepAlive renews the lease a third of the TTL after the last renewal,
// retries a failed one a third of the TTL later, and stops when the lease
// expires at its deadline, saying so once (engine.Heartbeat's rule, on
// synctest's fake clock: exact on any machine, in no real time).
func TestKeepAliveTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl = 3 * time.Second
		now := time.Now()
		p := &beatLog{start: now}
		l := &Leased{Provider: p, Handle: engine.Handle{SessionID: "s1", OwnerPID: os.Getpid()},
			deadline: now.Add(ttl), ttl: ttl}
		var mu sync.Mutex
		var told []string
		l.KeepAlive(func(err error) {
			mu.Lock()
			told = append(told, time.Since(now).String()+" "+err.Error())
			mu.Unlock()
		})
		defer l.stopHeartbeat()
		sec := func(s ...float64) []time.Duration {
			out := make([]time.Duration, len(s))
			for i, v := range s {
				out[i] = time.Duration(v * float64(time.Second))
			}
			return out
		}

		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		if got := p.got(); len(got) != 0 {
			t.Fatalf("heartbeats before TTL/3: %v", got)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := p.got(); !slices.Equal(got, sec(1)) {
			t.Fatalf("heartbeats at TTL/3 = %v, want [1s]", got)
		}
		time.Sleep(1500 * time.Millisecond) // renewed at 2 s: the deadline is 5 s
		synctest.Wait()
		p.failWith(errors.New("farm busy"))
		time.Sleep(time.Minute)
		synctest.Wait()
		if got, want := p.got(), sec(1, 2, 3, 4, 5); !slices.Equal(got, want) {
			t.Errorf("heartbeats = %v, want %v (the last at the deadline)", got, want)
		}
		if got := l.Deadline(); !got.Equal(now.Add(5 * time.Second)) {
			t.Errorf("deadline %v after the failures, want the last renewal's %v", got.Sub(now), 5*time.Second)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(told) != 3 || told[0] != "3s renewing the lease of browser session s1: farm busy" ||
			told[1] != "4s renewing the lease of browser session s1: farm busy" ||
			!strings.HasPrefix(told[2], "5s the lease of browser session s1 ended: no renewal succeeded before its deadline ") {
			t.Errorf("onErr got %q", told)
		}
	})
}

// beatProvider is a provider with a heartbeat that answers err.
type beatProvider struct {
	mu    sync.Mutex
	err   error
	beats int
}

func (p *beatProvider) Acquire(context.Context, engine.Spec) (engine.Handle, error) {
	return engine.Handle{}, errors.New("not here")
}
func (p *beatProvider) Release(context.Context, engine.Handle) error { return nil }
func (p *beatProvider) Heartbeat(context.Context, engine.Handle) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beats++
	return p.err
}

// Leased.Renew: a renewal that succeeds moves the deadline to a TTL from
// now (a lease without a deadline keeps none); a failed one, slow or gone,
// returns the provider's error as it is and leaves the deadline where it
// was; after a release nothing is asked of the provider.
func TestLeasedRenewSlowOrGone(t *testing.T) {
	at := time.Now().Add(time.Minute)
	for _, c := range []struct {
		name string
		err  error
	}{
		{"slow", fmt.Errorf("%w: did not answer within 1s", engine.ErrRemoteSlow)},
		{"gone", fmt.Errorf("%w: the context no longer exists", engine.ErrRemoteGone)},
	} {
		p := &beatProvider{err: c.err}
		l := &Leased{Provider: p, Handle: engine.Handle{SessionID: "s1"}, deadline: at, ttl: time.Hour}
		err := l.Renew(context.Background())
		if err != c.err {
			t.Errorf("%s: Renew = %v, want the provider's %v", c.name, err, c.err)
		}
		if got := errors.Is(err, engine.ErrBrowserGone); got != (c.name == "gone") {
			t.Errorf("%s: engine.ErrBrowserGone = %v", c.name, got)
		}
		if !l.Deadline().Equal(at) {
			t.Errorf("%s: the deadline moved to %v after a failed renewal", c.name, l.Deadline())
		}
	}
	p := &beatProvider{}
	l := &Leased{Provider: p, Handle: engine.Handle{SessionID: "s1"}, deadline: at, ttl: time.Hour}
	before := time.Now()
	if err := l.Renew(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := l.Deadline(); d.Before(before.Add(time.Hour)) || d.After(time.Now().Add(time.Hour)) {
		t.Errorf("deadline after a renewal = %v, want an hour from the renewal", d)
	}
	never := &Leased{Provider: p, Handle: engine.Handle{SessionID: "s2"}, ttl: time.Hour}
	if err := never.Renew(context.Background()); err != nil || !never.Deadline().IsZero() {
		t.Errorf("a lease without a deadline: %v, deadline %v", err, never.Deadline())
	}
	l.released = true
	n := p.beats
	if err := l.Renew(context.Background()); err == nil || err.Error() != "the browser session s1 was released; acquire a new one" {
		t.Errorf("Renew after release = %v", err)
	}
	if p.beats != n {
		t.Error("a released lease asked the provider")
	}
}
