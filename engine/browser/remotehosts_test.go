package browser

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"waymark/assets/practice"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/provider/remotecdp"
)

// A remote browser cannot take --host-resolver-rules: the engine relays the
// mapped hosts itself. One Chromium, started as its own process with a
// DevTools port as a farm runs it, serves every subtest.
func TestRemoteBrowserRelaysMappedHosts(t *testing.T) {
	farm := startFarmChromium(t)
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites.Close()
	// A server of the test's own for what the practice sites do not use:
	// cookies, a redirect, a form's POST body.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/set":
			http.SetCookie(w, &http.Cookie{Name: "flavour", Value: "sage", Path: "/"})
			http.Redirect(w, r, "/show", http.StatusFound)
		case "/show":
			c, _ := r.Cookie("flavour")
			v := ""
			if c != nil {
				v = c.Value
			}
			fmt.Fprintf(w, "<title>host=%s cookie=%s</title>", html.EscapeString(r.Host), html.EscapeString(v))
		case "/form":
			fmt.Fprint(w, `<form method="post" action="/post"><input name="q" value="a b&c"></form><script>document.forms[0].submit()</script>`)
		case "/post":
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "<title>%s %s</title>", r.Method, html.EscapeString(string(b)))
		}
	}))
	defer echo.Close()
	rules := sites.HostRules() + ",MAP echo.waymark.test " + strings.TrimPrefix(echo.URL, "http://")

	p := newProvider(t, fmt.Sprintf(`{"remote_cdp":{"endpoints":[%q]}}`, farm.http))
	open := func(t *testing.T, hostRules string) *Leased {
		t.Helper()
		opts := Options{Settings: engine.DefaultSettings(), HostRules: hostRules}
		if testing.Verbose() {
			opts.Logf = t.Logf
		}
		l, err := Acquire(context.Background(), p, engine.Spec{Metadata: map[string]string{"test": t.Name()}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	reset := func(t *testing.T, e *Leased, u string) action.Observation {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		obs, err := e.Reset(ctx, engine.ResetOptions{StartURL: u})
		if err != nil {
			t.Fatal(err)
		}
		return obs
	}

	e := open(t, rules)
	frames := e.Frames() // the live view, as the desktop app asks for it

	t.Run("practice host loads and the live view gets frames", func(t *testing.T) {
		obs := reset(t, e, "http://wiki.waymark.test/")
		if obs.Error != "" || obs.URL != "http://wiki.waymark.test/" || obs.Title != "Kaldopedia, the free encyclopedia of Kaldoria" {
			t.Fatalf("the practice wiki on the remote browser: error %q, url %q, title %q", obs.Error, obs.URL, obs.Title)
		}
		select {
		case f := <-frames:
			if len(f.JPEG) < 100 || f.Width != 800 || f.Height != 600 {
				t.Fatalf("frame of %d bytes, %dx%d", len(f.JPEG), f.Width, f.Height)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("the remote engine sent no screencast frame in 15 s")
		}
	})
	t.Run("cookies, redirects and the Host header", func(t *testing.T) {
		obs := reset(t, e, "http://echo.waymark.test/set")
		if obs.URL != "http://echo.waymark.test/show" || obs.Title != "host=echo.waymark.test cookie=sage" {
			t.Fatalf("url %q, title %q, error %q", obs.URL, obs.Title, obs.Error)
		}
	})
	t.Run("a form's POST body", func(t *testing.T) {
		obs := reset(t, e, "http://echo.waymark.test/form")
		if obs.Title != "POST q=a+b%26c" {
			t.Fatalf("title %q (url %q, error %q)", obs.Title, obs.URL, obs.Error)
		}
	})
	t.Run("without the rules the host does not resolve", func(t *testing.T) {
		obs := reset(t, open(t, ""), "http://wiki.waymark.test/")
		if obs.Error != "net::ERR_NAME_NOT_RESOLVED" {
			t.Fatalf("error %q, title %q: the host resolved without the relay", obs.Error, obs.Title)
		}
	})
	t.Run("a mapped server that is down fails the load", func(t *testing.T) {
		obs := reset(t, open(t, "MAP down.waymark.test 127.0.0.1:1"), "http://down.waymark.test/")
		if obs.Error != "net::ERR_CONNECTION_REFUSED" {
			t.Fatalf("error %q, title %q", obs.Error, obs.Title)
		}
	})
	t.Run("KeepAlive renews a short lease until Close", func(t *testing.T) {
		ctx := context.Background()
		// 2 s: connecting to the browser, after the farm made the session,
		// may take a loaded machine a second, and the lease must outlast it.
		l, err := Acquire(ctx, p, engine.Spec{LeaseTTL: 2 * time.Second}, Options{Settings: engine.DefaultSettings()})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		first := l.Deadline()
		l.KeepAlive(func(err error) { t.Errorf("a renewal failed: %v", err) })
		time.Sleep(2500 * time.Millisecond) // past the lease's first deadline
		if !l.Deadline().After(first.Add(300 * time.Millisecond)) {
			t.Fatalf("deadline %v not moved on from %v", l.Deadline(), first)
		}
		if err := p.Heartbeat(ctx, l.Handle); err != nil {
			t.Fatalf("the lease lapsed although renewed: %v", err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Heartbeat(ctx, l.Handle); err == nil || !strings.Contains(err.Error(), "released or its lease expired") {
			t.Fatalf("after Close the session still renews: %v", err)
		}
	})
	t.Run("the lease's length is the one asked for on a slow machine", func(t *testing.T) {
		// A busy machine takes a while between the farm's answer and the
		// engine being ready; the lease's length must not shrink by it.
		l, err := Acquire(context.Background(), slowAcquire{p, 30 * time.Millisecond}, engine.Spec{LeaseTTL: time.Minute}, Options{Settings: engine.DefaultSettings()})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.TTL() != time.Minute {
			t.Fatalf("TTL %s, want the 1m0s asked for", l.TTL())
		}
		if err := l.Renew(context.Background()); err != nil {
			t.Fatal(err)
		}
		if left := time.Until(l.Deadline()); left < time.Minute-time.Second {
			t.Fatalf("a renewal left %s of a 1m0s lease", left)
		}
	})
	t.Run("rules a remote browser cannot take are refused", func(t *testing.T) {
		_, err := New(Options{Settings: engine.DefaultSettings(), HostRules: "EXCLUDE x.test", Remote: &Remote{WSURL: farm.ws}})
		if err == nil || !strings.Contains(err.Error(), `only rules of the form "MAP host address[:port]"`) {
			t.Fatalf("EXCLUDE accepted: %v", err)
		}
	})
}

// slowAcquire is a provider on a busy machine: its sessions come back a
// while after the farm made them.
type slowAcquire struct {
	*remotecdp.Provider
	delay time.Duration
}

func (s slowAcquire) Acquire(ctx context.Context, spec engine.Spec) (engine.Handle, error) {
	h, err := s.Provider.Acquire(ctx, spec)
	time.Sleep(s.delay)
	return h, err
}
