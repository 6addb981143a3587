package remotecdp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// A failed call on a remote browser is slow when it ran out of time on a
// connection still open, and gone otherwise (any other error, or a
// timeout on a connection that ended): each of the four, with its whole
// message (the endpoint without its query, the wait rounded to 0.1 s, a
// URL query inside the error hidden).
func TestRemoteCallErrorSlowOrGone(t *testing.T) {
	open := &chromedp.Browser{LostConnection: make(chan struct{})}
	dropped := &chromedp.Browser{LostConnection: make(chan struct{})}
	close(dropped.LostConnection)
	const addr = "ws://farm.test:9222/devtools/browser/b1?token=SECRET"
	other := errors.New("websocket: close 1006 (abnormal closure) on ws://farm.test:9222/x?token=SECRET")
	for _, c := range []struct {
		name  string
		br    *chromedp.Browser
		limit time.Duration
		err   error
		slow  bool
		msg   string
	}{
		{"timeout, connection open", open, 1040 * time.Millisecond, context.DeadlineExceeded, true,
			"the remote browser is slow to answer: ws://farm.test:9222/devtools/browser/b1 did not answer the lease renewal within 1s (its connection is open: the farm may be overloaded)"},
		{"wrapped timeout, connection open", open, 1060 * time.Millisecond, fmt.Errorf("calling: %w", context.DeadlineExceeded), true,
			"the remote browser is slow to answer: ws://farm.test:9222/devtools/browser/b1 did not answer the lease renewal within 1.1s (its connection is open: the farm may be overloaded)"},
		{"other error, connection open", open, time.Second, other, false,
			"the remote browser is gone: ws://farm.test:9222/devtools/browser/b1: the lease renewal: websocket: close 1006 (abnormal closure) on ws://farm.test:9222/x?…"},
		{"timeout, connection lost", dropped, time.Second, context.DeadlineExceeded, false,
			"the remote browser is gone: ws://farm.test:9222/devtools/browser/b1: the lease renewal: context deadline exceeded"},
		{"cancelled, connection open", open, time.Second, context.Canceled, false,
			"the remote browser is gone: ws://farm.test:9222/devtools/browser/b1: the lease renewal: context canceled"},
	} {
		err := remoteCallError(c.br, addr, "the lease renewal", c.limit, c.err)
		if got := errors.Is(err, engine.ErrRemoteSlow); got != c.slow {
			t.Errorf("%s: slow = %v, want %v", c.name, got, c.slow)
		}
		if got := errors.Is(err, engine.ErrRemoteGone); got == c.slow {
			t.Errorf("%s: gone = %v, want %v", c.name, got, !c.slow)
		}
		if got := errors.Is(err, engine.ErrBrowserGone); got == c.slow {
			t.Errorf("%s: engine.ErrBrowserGone = %v, want %v", c.name, got, !c.slow)
		}
		if err.Error() != c.msg {
			t.Errorf("%s:\n got %s\nwant %s", c.name, err, c.msg)
		}
	}
}

// timeoutErr is a net.Error that did or did not time out.
type timeoutErr bool

func (e timeoutErr) Error() string   { return "net error" }
func (e timeoutErr) Timeout() bool   { return bool(e) }
func (e timeoutErr) Temporary() bool { return false }

var _ net.Error = timeoutErr(false)

// isTimeout: a slow farm, a context deadline and a network timeout are
// timeouts (the endpoint is up); a refused connection, a cancellation and
// a gone browser are not.
func TestIsTimeout(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{engine.ErrRemoteSlow, true},
		{fmt.Errorf("acquire: %w", engine.ErrRemoteSlow), true},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("dial: %w", timeoutErr(true)), true},
		{timeoutErr(false), false},
		{&net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}, true},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, false},
		{context.Canceled, false},
		{engine.ErrRemoteGone, false},
		{errors.New("boom"), false},
	} {
		if got := isTimeout(c.err); got != c.want {
			t.Errorf("isTimeout(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A remote_cdp session's lease has ended at its deadline exactly: a
// heartbeat then (or later, or for a session the provider does not know)
// says so without calling the farm.
func TestRemoteCDPHeartbeatAtTheDeadline(t *testing.T) {
	p, err := New(Options{Endpoints: []string{"http://farm.test:9222"}})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p.sessions["s1"] = &cdpSession{ep: p.eps[0], deadline: at, ttl: time.Minute} // no connection: a call would fail
	h := engine.Handle{SessionID: "s1", OwnerPID: os.Getpid()}
	const want = "the remote browser session s1 was released or its lease expired; acquire a new one"
	for _, now := range []time.Time{at, at.Add(time.Nanosecond), at.Add(time.Hour)} {
		p.now = func() time.Time { return now }
		if err := p.Heartbeat(context.Background(), h); err == nil || err.Error() != want {
			t.Errorf("heartbeat at deadline%+v: %v, want %q", now.Sub(at), err, want)
		}
	}
	h2 := engine.Handle{SessionID: "s2", OwnerPID: os.Getpid()}
	if err := p.Heartbeat(context.Background(), h2); err == nil || err.Error() != strings.Replace(want, "s1", "s2", 1) {
		t.Errorf("heartbeat of an unknown session: %v", err)
	}
}
