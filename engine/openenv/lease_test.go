package openenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

// leasedSketch is the sketch engine holding a lease whose renewals the test
// makes fail (the real remote lease is exercised through `serve` in
// app/serve_provider_test.go).
type leasedSketch struct {
	*sketchEngine
	ttl time.Duration

	mu       sync.Mutex
	deadline time.Time
	fail     error
	at       []time.Time // when each successful renewal was made
}

func newLeasedSketch(ttl time.Duration) *leasedSketch {
	return &leasedSketch{sketchEngine: newSketch(), ttl: ttl, deadline: time.Now().Add(ttl)}
}

func (l *leasedSketch) Renew(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return l.fail
	}
	l.deadline = time.Now().Add(l.ttl)
	l.at = append(l.at, time.Now())
	return nil
}

func (l *leasedSketch) Deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadline
}

func (l *leasedSketch) TTL() time.Duration { return l.ttl }

func (l *leasedSketch) LeaseHandle() engine.Handle {
	return engine.Handle{SessionID: "lease-1", Transport: "remote_cdp",
		Endpoint: "ws://u:pw@farm.example:9222/devtools/browser/abc?token=SECRET#x"}
}

func (l *leasedSketch) count() int { return len(l.renewedAt()) }

// renewedAt is when each successful renewal was made.
func (l *leasedSketch) renewedAt() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.at)
}

func (l *leasedSketch) failWith(err error) {
	l.mu.Lock()
	l.fail = err
	l.mu.Unlock()
}

// interruptRec is an episode wrapper that keeps the end reason it is told.
type interruptRec struct {
	engine.Engine
	mu     sync.Mutex
	reason string
}

func (r *interruptRec) Interrupt(reason action.EndReason) error {
	r.mu.Lock()
	r.reason = string(reason)
	r.mu.Unlock()
	return nil
}

func (r *interruptRec) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason
}

func health(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Steps and the heartbeat renew the lease; /health shows it without the
// endpoint's secrets.
func TestLeaseRenewedAndReported(t *testing.T) {
	// A reset and a step renew once each, a state message not at all. The
	// lease is an hour long, so no heartbeat (due a third of the lease
	// after the last renewal) can come between them: with a 3 s lease a
	// loaded machine's one-second stall between the reset and the step let
	// the heartbeat in, and the count was 3.
	eng := newLeasedSketch(time.Hour)
	_, hs := testServer(t, Options{Provider: "remote_cdp", MaxSessions: 3,
		NewEngine: func(context.Context) (engine.Engine, error) { return eng, nil }})
	if got := health(t, hs.URL); got != `{"status":"healthy","sessions":{"active":0,"max":3,"provider":"remote_cdp","leases":[]}}` {
		t.Errorf("/health with no session: %s", got)
	}
	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	if n := eng.count(); n != 1 {
		t.Errorf("renewals after a reset: %d, want 1", n)
	}
	r.call(`{"type":"step","data":{"op":"wait"}}`)
	if n := eng.count(); n != 2 {
		t.Errorf("renewals after a reset and a step: %d, want 2", n)
	}
	r.call(`{"type":"state"}`)
	if n := eng.count(); n != 2 {
		t.Errorf("a state message renewed the lease: %d renewals", n)
	}

	// The heartbeat renews with no message at all, while the client
	// answers pings: a 3 s lease, renewed a second after its last renewal,
	// again and again.
	beating := newLeasedSketch(3 * time.Second)
	srv, hs2 := testServer(t, Options{Provider: "remote_cdp", MaxSessions: 3,
		NewEngine: func(context.Context) (engine.Engine, error) { return beating, nil }})
	dialLive(t, wsURL(hs2)).call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	waitFor(t, "two heartbeats", func() bool { return beating.count() >= 3 })
	h := health(t, hs2.URL)
	for _, want := range []string{
		`{"status":"healthy","sessions":{"active":1,"max":3,"provider":"remote_cdp","leases":[{"session_id":"`,
		`","lease_id":"lease-1","transport":"remote_cdp","endpoint":"ws://farm.example:9222/devtools/browser/abc","ttl_seconds":3,"deadline":"`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("/health lacks %s:\n%s", want, h)
		}
	}
	if !regexp.MustCompile(`,"seconds_left":[123](\.[0-9]+)?[,}]`).MatchString(h) {
		t.Errorf("/health's seconds_left is not what is left of a 3 s lease renewed a moment ago:\n%s", h)
	}
	if strings.Contains(h, "SECRET") || strings.Contains(h, "pw") {
		t.Errorf("/health shows the endpoint's secrets: %s", h)
	}
	if srv.ActiveSessions() != 1 {
		t.Errorf("the session ended while its lease was renewed")
	}
}

// A session whose steps keep renewing its lease is not also renewed by the
// heartbeat: the heartbeat is due a third of the lease after the last
// renewal, whoever made it.
func TestLeaseHeartbeatWaitsForTheLastRenewal(t *testing.T) {
	eng := newLeasedSketch(3 * time.Second) // the heartbeat: 1 s after a renewal
	_, hs := testServer(t, Options{Provider: "remote_cdp",
		NewEngine: func(context.Context) (engine.Engine, error) { return eng, nil }})
	r := dialLive(t, wsURL(hs)) // answers pings between messages too
	// Each message's renewal falls between its sending and its reply; any
	// other renewal is the heartbeat's, and must come a third of the lease
	// after the renewal before it. (Counting renewals against steps made
	// a loaded machine's one-second stall between two steps look like a
	// heartbeat renewing a busy session.)
	var during [][2]time.Time
	call := func(msg string) {
		from := time.Now()
		r.call(msg)
		during = append(during, [2]time.Time{from, time.Now()})
	}
	call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); {
		call(`{"type":"step","data":{"op":"wait"}}`)
		time.Sleep(100 * time.Millisecond)
	}
	at := eng.renewedAt()
	byMessage := func(ts time.Time) bool {
		return slices.ContainsFunc(during, func(w [2]time.Time) bool { return !ts.Before(w[0]) && !ts.After(w[1]) })
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); !byMessage(at[i]) && gap < time.Second-50*time.Millisecond {
			t.Errorf("renewal %d came %v after the one before it, outside any message: the heartbeat renewed a busy session", i, gap.Round(time.Millisecond))
		}
	}
	if len(at) < len(during) {
		t.Errorf("%d renewals for %d messages", len(at), len(during))
	}
	// Left alone, the session is renewed by the heartbeat again.
	n := len(at)
	waitFor(t, "a heartbeat", func() bool { return eng.count() > n })
}

// Renewals that keep failing end the session at the lease's deadline with
// LEASE_EXPIRED; the episode is told why and the engine is closed.
func TestLeaseExpiresAtItsDeadline(t *testing.T) {
	eng := newLeasedSketch(600 * time.Millisecond)
	rec := &interruptRec{}
	srv, hs := testServer(t, Options{Provider: "remote_cdp",
		NewEngine:   func(context.Context) (engine.Engine, error) { return eng, nil },
		WrapEpisode: func(base engine.Engine, _ EpisodeStart) (engine.Engine, error) { rec.Engine = base; return rec, nil }})
	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	eng.failWith(errors.New("farm busy"))
	start := time.Now()
	// A step before the deadline still runs: a failed renewal alone is no expiry.
	if code, _ := errCode(t, r.call(`{"type":"step","data":{"op":"wait"}}`)); code != "" {
		t.Fatalf("a step before the deadline failed with %s", code)
	}
	data, err := r.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	code, msg := errCode(t, data)
	if code != "LEASE_EXPIRED" || !strings.Contains(msg, "no renewal succeeded before its deadline") || !strings.Contains(msg, "farm busy") {
		t.Fatalf("got %s", data)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("the lease ended after %s, before its deadline", d)
	}
	_, err = r.recv(5 * time.Second)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after LEASE_EXPIRED: %v, want a normal closure", err)
	}
	waitFor(t, "the session to end", func() bool { return srv.ActiveSessions() == 0 })
	if !eng.closed.Load() {
		t.Error("the engine (the browser) was not closed")
	}
	if got := rec.got(); got != "lease_expired" {
		t.Errorf("the episode's end reason: %q, want lease_expired", got)
	}
}

// remoteGone is an error of its own words that is engine.ErrBrowserGone,
// as a provider's is.
type remoteGone struct{}

func (remoteGone) Error() string        { return "the remote browser is gone" }
func (remoteGone) Is(target error) bool { return target == engine.ErrBrowserGone }

// A browser that is gone (engine.ErrBrowserGone, in the engine's words or a
// provider's own) ends the session at the next step, which does not run;
// the error says what is gone, once.
func TestLeaseGoneEndsAtOnce(t *testing.T) {
	for _, gone := range []error{
		fmt.Errorf("%w: context disposed", engine.ErrBrowserGone),
		fmt.Errorf("%w: the browser context of session s1 no longer exists on http://farm:9222", remoteGone{}),
	} {
		eng := newLeasedSketch(time.Hour)
		_, hs := testServer(t, Options{Provider: "remote_cdp",
			NewEngine: func(context.Context) (engine.Engine, error) { return eng, nil }})
		r := dialRaw(t, hs)
		r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
		eng.failWith(gone)
		data := r.call(`{"type":"step","data":{"op":"wait"}}`)
		code, msg := errCode(t, data)
		if want := "The session's browser lease expired (" + gone.Error() + ");"; code != "LEASE_EXPIRED" || !strings.HasPrefix(msg, want) {
			t.Fatalf("got %s, want a message starting %q", data, want)
		}
		if s := eng.State(); s.StepCount != 0 {
			t.Errorf("the step ran on a lost browser: step count %d", s.StepCount)
		}
	}
}
