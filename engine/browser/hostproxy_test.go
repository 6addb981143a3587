package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// proxyAsk sends one request through the proxy at addr as any local
// program could (curl -x): a GET of target (an absolute URL) or, with
// connect, a CONNECT to target (host:port). auth, when set, is the
// Proxy-Authorization header. It returns the status and the body.
func proxyAsk(t *testing.T, addr, method, target, auth string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	host := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host = u.Host
	}
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\n", method, target, host)
	if auth != "" {
		req += "Proxy-Authorization: " + auth + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if method == http.MethodConnect && res.StatusCode == http.StatusOK {
		return res.StatusCode, ""
	}
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// The host-mapping proxy serves only the browser contexts it was made for.
// The episode's own page loads through it (its host is mapped to the test
// server); a local program that finds the proxy's port gets 407 for a
// plain request, a CONNECT, and a made-up or withdrawn credential,
// whatever it asks for (the test server, serve's own address). Even with
// a context's live credentials the proxy relays only the mapped hosts and
// the web: this machine's own addresses are refused with 403.
func TestHostProxyServesOnlyItsContexts(t *testing.T) {
	site := newSite(t)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proxy-authorization=%q", r.Header.Get("Proxy-Authorization"))
	}))
	defer echo.Close()
	rules := "MAP shop.waymark.test 127.0.0.1:" + hostPort(t, site.URL) + ",MAP echo.waymark.test 127.0.0.1:" + hostPort(t, echo.URL)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.HostRules = rules })
	if obs := reset(t, e, "http://shop.waymark.test/host"); obs.Error != "" || obs.Title != "host shop.waymark.test" {
		t.Fatalf("the episode's page through the proxy: error %q, title %q", obs.Error, obs.Title)
	}
	addr, proxyUser, secrets := chromium.ProxyCredentials(rules)
	if addr == "" {
		t.Fatal("no proxy for the engine's host rules")
	}
	var live string
	for _, tok := range secrets {
		live = tok
	}
	if live == "" {
		t.Fatal("the episode's context holds no credentials")
	}
	serve := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"sessions":[]}`) }))
	defer serve.Close()
	for _, c := range []struct{ method, target, auth string }{
		{"GET", "http://shop.waymark.test/host", ""},
		{"GET", serve.URL + "/sessions", ""},
		{"GET", "http://example.com/", ""},
		{"CONNECT", "shop.waymark.test:443", ""},
		{"CONNECT", serve.Listener.Addr().String(), ""},
		{"GET", "http://shop.waymark.test/host", basic(proxyUser, "guess")},
		{"GET", "http://shop.waymark.test/host", basic("someone", live)},
		{"GET", "http://shop.waymark.test/host", "Bearer " + live},
	} {
		if code, body := proxyAsk(t, addr, c.method, c.target, c.auth); code != http.StatusProxyAuthRequired ||
			!strings.Contains(body, "serves only the browser contexts it was made for") {
			t.Errorf("%s %s (auth %q): %d %q, want 407", c.method, c.target, c.auth, code, body)
		}
	}
	// With the live credentials: the mapped hosts, which never see them,
	// not this machine.
	if code, body := proxyAsk(t, addr, "GET", "http://shop.waymark.test/host", basic(proxyUser, live)); code != http.StatusOK || !strings.Contains(body, "served for shop.waymark.test") {
		t.Errorf("the mapped host with the context's credentials: %d %q", code, body)
	}
	if code, body := proxyAsk(t, addr, "GET", "http://echo.waymark.test/", basic(proxyUser, live)); code != http.StatusOK || body != `proxy-authorization=""` {
		t.Errorf("what the mapped server got: %d %q", code, body)
	}
	for _, c := range []struct{ method, target string }{
		{"GET", serve.URL + "/sessions"},
		{"GET", "http://localhost:" + hostPort(t, serve.URL) + "/sessions"},
		{"GET", "http://[::1]:" + hostPort(t, serve.URL) + "/"},
		{"GET", "http://0.0.0.0:" + hostPort(t, serve.URL) + "/"},
		{"CONNECT", serve.Listener.Addr().String()},
	} {
		if code, body := proxyAsk(t, addr, c.method, c.target, basic(proxyUser, live)); code != http.StatusForbidden || !strings.Contains(body, "not this machine's own addresses") {
			t.Errorf("%s %s with the context's credentials: %d %q, want 403", c.method, c.target, code, body)
		}
	}
	// The next episode's context has credentials of its own; the last
	// one's are withdrawn with it.
	if obs := reset(t, e, "http://shop.waymark.test/host"); obs.Error != "" || obs.Title != "host shop.waymark.test" {
		t.Fatalf("the next episode's page: error %q, title %q", obs.Error, obs.Title)
	}
	if code, _ := proxyAsk(t, addr, "GET", "http://shop.waymark.test/host", basic(proxyUser, live)); code != http.StatusProxyAuthRequired {
		t.Errorf("the previous episode's credentials after it ended: %d, want 407", code)
	}
	// Pages the episode opens (a tab, a fetch) go through with the
	// context's credentials.
	reset(t, e, "http://shop.waymark.test/")
	if obs := step(t, e, action.ClickAt(70, 155)); !strings.HasPrefix(obs.Title, "loaded ") {
		t.Errorf("the page's fetch: title %q (error %q)", obs.Title, obs.Error)
	}
	reset(t, e, "http://shop.waymark.test/opener")
	if obs := step(t, e, action.ClickAt(400, 300)); obs.Title != "popup" || obs.URL != "http://shop.waymark.test/popup" {
		t.Errorf("the tab the page opened: %q %q (error %q)", obs.Title, obs.URL, obs.Error)
	}
}

// A context's proxy secret never leaves the engine: the episode's network
// capture, kept with its secrets (--no-redact), holds no trace of it, on
// the page's own requests nor on a fetch.
func TestHostProxySecretNotCaptured(t *testing.T) {
	site := newSite(t)
	rules := "MAP shop.waymark.test 127.0.0.1:" + hostPort(t, site.URL)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) {
		o.HostRules, o.Settings.HAR, o.Settings.HARNoRedact = rules, true, true
	})
	reset(t, e, "http://shop.waymark.test/")
	step(t, e, action.ClickAt(70, 155))
	_, proxyUser, tokens := chromium.ProxyCredentials(rules)
	var secrets []string
	for _, tok := range tokens {
		secrets = append(secrets, tok, base64.StdEncoding.EncodeToString([]byte(proxyUser+":"+tok)))
	}
	capture := e.TakeHAR(true)
	b, err := json.Marshal(capture)
	if err != nil {
		t.Fatal(err)
	}
	if len(capture.Entries) < 2 {
		t.Fatalf("%d entries captured", len(capture.Entries))
	}
	for _, s := range append(secrets, "Proxy-Authorization", "proxy-authorization") {
		if strings.Contains(string(b), s) {
			t.Errorf("the capture holds %q", s)
		}
	}
}

// BenchmarkHostProxyContext is what a browser context with host rules
// costs to make (the proxy's credentials handed over, admit) next to one
// without, and a whole reset on a pool that makes no spare ahead (where
// the pool makes one, the spare pays it while the agent thinks). The two
// kinds alternate, so both see the same machine load; the medians are
// reported.
func BenchmarkHostProxyContext(b *testing.B) {
	site := newSite(b)
	rules := "MAP shop.waymark.test 127.0.0.1:" + hostPort(b, site.URL)
	e := newEngine(b, engine.DisplayHeadless, nil)
	reset(b, e, site.URL+"/")
	ms := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	b.Run("context", func(b *testing.B) {
		var none, proxy []time.Duration
		for b.Loop() {
			for _, r := range []string{"", rules} {
				start := time.Now()
				tc, err := chromium.NewTabContext(context.Background(), e.browserCtx, r, 30*time.Second, nil)
				if err != nil {
					b.Fatal(err)
				}
				if r == "" {
					none = append(none, time.Since(start))
				} else {
					proxy = append(proxy, time.Since(start))
				}
				tc.Cancel()
			}
		}
		b.ReportMetric(ms(none), "ms/none")
		b.ReportMetric(ms(proxy), "ms/proxy")
		b.ReportMetric(0, "ns/op")
	})
	pool := chromium.NewPool(chromium.PoolOptions{NoSpare: true})
	b.Cleanup(pool.Close)
	plain := newEngine(b, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	mapped := newEngine(b, engine.DisplayHeadless, func(o *Options) { o.Pool, o.HostRules = pool, rules })
	b.Run("reset", func(b *testing.B) {
		var none, proxy []time.Duration
		for b.Loop() {
			start := time.Now()
			reset(b, plain, site.URL+"/page2")
			none = append(none, time.Since(start))
			start = time.Now()
			reset(b, mapped, site.URL+"/page2")
			proxy = append(proxy, time.Since(start))
		}
		b.ReportMetric(ms(none), "ms/none")
		b.ReportMetric(ms(proxy), "ms/proxy")
		b.ReportMetric(0, "ns/op")
	})
}
