package remotecdp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/browser/browsertest"
)

// contextsOn lists the browser contexts on the endpoint of p's first
// endpoint, over the provider's own connection to it.
func contextsOn(t *testing.T, p *Provider) []cdp.BrowserContextID {
	t.Helper()
	p.mu.Lock()
	br := p.eps[0].br
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, br, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return res.BrowserContextIDs
}

// TestLeaseExpiry: a session whose lease ended refuses a heartbeat, the
// next acquire disposes of its browser context, and the engine on it
// stops with ErrRemoteGone (a step and a reset both say so). The
// provider's clock is moved past the lease instead of waiting for it.
func TestLeaseExpiry(t *testing.T) {
	path := browsertest.LookChromium()
	if path == "" {
		t.Skip("no Chromium to serve as a remote endpoint")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>ops</title><body style="margin:0"><button style="width:800px;height:600px">b</button>`)
	}))
	t.Cleanup(site.Close)
	farm := browsertest.StartRemote(t, browsertest.RemoteOptions{Path: path, NoSandbox: os.Geteuid() == 0})
	p, err := New(Options{Endpoints: []string{farm.HTTP}, ConnectTimeout: Duration(5 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })

	h, err := p.Acquire(context.Background(), engine.Spec{LeaseTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	id := cdp.BrowserContextID(h.Metadata[engine.MetaBrowserContextID])
	if d := time.Until(h.Deadline); d < 50*time.Second || d > time.Minute {
		t.Errorf("lease ends in %v, want 1 min", d)
	}
	opts := browser.Options{Settings: engine.DefaultSettings()}
	if testing.Verbose() {
		opts.Logf = t.Logf
	}
	e, err := browser.NewForHandle(h, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	// Two minutes pass without a heartbeat.
	p.mu.Lock()
	p.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	p.mu.Unlock()
	if err := p.Heartbeat(context.Background(), h); err == nil || !strings.Contains(err.Error(), "lease expired") {
		t.Errorf("heartbeat after the lease: %v", err)
	}
	// The next acquire sweeps the expired session away.
	h2, err := p.Acquire(context.Background(), engine.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(context.Background(), h2)
	id2 := cdp.BrowserContextID(h2.Metadata[engine.MetaBrowserContextID])
	if ids := contextsOn(t, p); slices.Contains(ids, id) || !slices.Contains(ids, id2) {
		t.Errorf("contexts after the sweep %v: expired %s gone, new %s there", ids, id, id2)
	}
	// The engine on the expired session stops.
	_, err = e.Step(context.Background(), action.ClickAt(50, 275))
	if !errors.Is(err, engine.ErrRemoteGone) || !strings.Contains(err.Error(), "lease expired") {
		t.Errorf("step on an expired session: %v", err)
	}
	if _, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: site.URL + "/"}); !errors.Is(err, engine.ErrRemoteGone) {
		t.Errorf("reset on an expired session: %v", err)
	}
	if err := p.Release(context.Background(), h); err != nil {
		t.Errorf("release of an expired session: %v", err)
	}
}
