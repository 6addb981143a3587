package browser

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// cutProxy forwards TCP connections to a remote browser until cut, which
// closes them all at once: a connection lost to the network or to a farm
// that dropped it, while the browser itself runs on.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, to string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// A connection to a remote browser that drops during a step is told the
// same way every time: the step returns engine.ErrRemoteGone (its message says to
// acquire a new session) and the observation ends the episode as a crash;
// never a step with no error whose observation says "interrupted". A pending
// call fails with chromedp's "lost the connection … context canceled"
// before the browser's context is cancelled, so the engine must read the
// connection's own loss, not wait for its context.
func TestRemoteConnectionLossIsAlwaysGone(t *testing.T) {
	farm := startFarmChromium(t)
	site := newSite(t)
	hostPort := strings.TrimPrefix(farm.http, "http://")
	path := strings.TrimPrefix(farm.ws, "ws://"+hostPort)
	for trial := range 8 {
		px := newCutProxy(t, hostPort)
		e, err := New(Options{Settings: engine.DefaultSettings(), Remote: &Remote{WSURL: "ws://" + px.ln.Addr().String() + path}})
		if err != nil {
			t.Fatal(err)
		}
		reset(t, e, site.URL+"/")
		// The click's page work starts, then the connection drops.
		px.cut()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		obs, err := e.Step(ctx, action.ClickAt(50, 275))
		cancel()
		if !errors.Is(err, engine.ErrRemoteGone) || !strings.Contains(err.Error(), "acquire a new one") {
			t.Fatalf("trial %d: step on a lost connection: %v (observation error %q), want engine.ErrRemoteGone", trial, err, obs.Error)
		}
		if !obs.Done || obs.EndReason != action.EndCrashed || obs.Error != action.ErrRendererCrashed {
			t.Fatalf("trial %d: observation done %v, end %q, error %q; want a crash end", trial, obs.Done, obs.EndReason, obs.Error)
		}
		e.Close()
	}
}
