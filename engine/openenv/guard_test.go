package openenv

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
)

// countingFactory makes sketch engines and counts them (safe for the
// concurrent stateless requests).
type countingFactory struct {
	mu   sync.Mutex
	made int
}

func (f *countingFactory) new(context.Context) (engine.Engine, error) {
	f.mu.Lock()
	f.made++
	f.mu.Unlock()
	return newSketch(), nil
}

func (f *countingFactory) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made
}

// request sends one HTTP request with the given Host, Origin and
// Content-Type headers ("" leaves a header out; host "" keeps the URL's).
func request(t *testing.T, hs *httptest.Server, method, path, host, origin, ctype, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dialWS opens /ws with the given Host and Origin; it returns the HTTP
// status of a refused handshake (0 when the session opened).
func dialWS(t *testing.T, hs *httptest.Server, host, origin string) (status int, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, resp, err := websocket.Dial(ctx, wsURL(hs), &websocket.DialOptions{Host: host, HTTPHeader: h})
	if err == nil {
		_ = c.Close(websocket.StatusNormalClosure, "")
		return 0, ""
	}
	if resp == nil {
		t.Fatalf("dial /ws (Host %q, Origin %q): %v", host, origin, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type endpoint struct{ method, path, body string }

var allEndpoints = []endpoint{
	{"GET", "/health", ""}, {"GET", "/metadata", ""}, {"GET", "/schema", ""}, {"GET", "/openapi.json", ""},
	{"GET", "/state", ""}, {"POST", "/mcp", `{}`}, {"POST", "/step", `{"action":{"op":"wait"}}`},
	{"POST", "/reset", `{"start_url":"https://example.com/"}`},
}

// DNS rebinding: a web page whose name resolves to 127.0.0.1 reaches the
// server with its own name in Host. Every endpoint refuses such a request,
// the WebSocket upgrade included, and no engine is started for it; the
// loopback names, the address the connection came in on and the names
// given in AllowHosts are served.
func TestHostAllowList(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
	for _, ep := range allEndpoints {
		for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "localhost.evil.example:" + port} {
			status, body := request(t, hs, ep.method, ep.path, host, "", "application/json", ep.body)
			if status != http.StatusForbidden || !strings.Contains(body, "--allow-host") || !strings.Contains(body, host) {
				t.Errorf("%s %s with Host %s: %d %.200s; want 403 naming the host and --allow-host", ep.method, ep.path, host, status, body)
			}
		}
	}
	if status, body := dialWS(t, hs, "evil.example:"+port, ""); status != http.StatusForbidden || !strings.Contains(body, "--allow-host") {
		t.Errorf("/ws with Host evil.example: %d %.200s; want 403", status, body)
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d engines started for refused requests", n)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST.:" + port, "[::1]:" + port, "127.0.0.1", "0.0.0.0:" + port} {
		for _, ep := range allEndpoints {
			status, body := request(t, hs, ep.method, ep.path, host, "", "application/json", ep.body)
			if status == http.StatusForbidden {
				t.Errorf("%s %s with Host %s refused: %.200s", ep.method, ep.path, host, body)
			}
		}
		if status, body := dialWS(t, hs, host, ""); status != 0 {
			t.Errorf("/ws with Host %s: %d %.200s", host, status, body)
		}
	}

	// --allow-host: a name (any port), or a name with its port.
	var f2 countingFactory
	_, hs2 := testServer(t, Options{NewEngine: f2.new, AllowHosts: []string{"Waymark.lan", "box.lan:" + port}})
	for host, want := range map[string]int{"waymark.lan:" + port: 200, "waymark.lan:1": 200, "box.lan:" + port: 200,
		"box.lan:1": 403, "evil.example:" + port: 403} {
		if status, body := request(t, hs2, "POST", "/reset", host, "", "application/json", `{"start_url":"https://example.com/"}`); status != want {
			t.Errorf("AllowHosts, Host %s: %d %.200s, want %d", host, status, body, want)
		}
	}
	if status, _ := dialWS(t, hs2, "waymark.lan:"+port, ""); status != 0 {
		t.Errorf("/ws with an allowed Host: %d", status)
	}
	_, hs3 := testServer(t, Options{NewEngine: f2.new, AllowHosts: []string{"*"}})
	if status, _ := request(t, hs3, "GET", "/health", "anything.example", "", "", ""); status != 200 {
		t.Errorf("AllowHosts * refused a host: %d", status)
	}
	if _, err := NewServer(Options{NewEngine: f2.new, AllowHosts: []string{"http://x/"}}); err == nil || !strings.Contains(err.Error(), "host name") {
		t.Errorf("AllowHosts with a URL: %v", err)
	}
}

// Cross-origin requests from web pages: any endpoint refuses an Origin
// that is neither the server's own nor allowed (the WebSocket check, kept,
// and now every HTTP endpoint too).
func TestOriginChecked(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	self := hs.URL // http://127.0.0.1:PORT
	for _, ep := range allEndpoints {
		for _, origin := range []string{"http://evil.example", "null", "http://localhost:1", "https://127.0.0.1:1"} {
			status, body := request(t, hs, ep.method, ep.path, "", origin, "application/json", ep.body)
			if status != http.StatusForbidden || !strings.Contains(body, "--allow-origin") || !strings.Contains(body, origin) {
				t.Errorf("%s %s with Origin %s: %d %.200s; want 403 naming the origin and --allow-origin", ep.method, ep.path, origin, status, body)
			}
		}
		if status, body := request(t, hs, ep.method, ep.path, "", self, "application/json", ep.body); status == http.StatusForbidden {
			t.Errorf("%s %s with its own Origin refused: %.200s", ep.method, ep.path, body)
		}
	}
	if status, _ := dialWS(t, hs, "", "http://evil.example"); status != http.StatusForbidden {
		t.Errorf("/ws with Origin evil.example: %d, want 403", status)
	}
	if status, body := dialWS(t, hs, "", self); status != 0 {
		t.Errorf("/ws with its own Origin: %d %.200s", status, body)
	}
	// One engine for each allowed /state and /reset, one for the session;
	// none for the refused requests nor for /step (which has no episode).
	waitFor(t, "the session's engine", func() bool { return f.count() >= 3 })
	if n := f.count(); n != 3 {
		t.Errorf("%d engines started, want 3 (none for refused requests)", n)
	}

	// --allow-origin: a full origin, or a host pattern.
	_, hs2 := testServer(t, Options{NewEngine: f.new, AllowOrigins: []string{"http://localhost:3000", "*.tools.lan"}})
	for origin, want := range map[string]int{"http://localhost:3000": 200, "https://localhost:3000": 403,
		"http://a.tools.lan": 200, "https://b.tools.lan": 200, "http://evil.example": 403} {
		if status, body := request(t, hs2, "GET", "/health", "", origin, "", ""); status != want {
			t.Errorf("AllowOrigins, Origin %s: %d %.200s, want %d", origin, status, body, want)
		}
	}
	if status, body := dialWS(t, hs2, "", "http://localhost:3000"); status != 0 {
		t.Errorf("/ws with an allowed Origin: %d %.200s", status, body)
	}
	if _, err := NewServer(Options{NewEngine: f.new, AllowOrigins: []string{"http://[bad"}}); err == nil {
		t.Error("a malformed allowed origin was accepted")
	}
}

// A web page can POST text/plain (a form, or fetch in no-cors mode)
// without a preflight: every POST endpoint takes only application/json.
func TestPostNeedsJSON(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	for _, path := range []string{"/reset", "/step", "/mcp"} {
		for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
			status, body := request(t, hs, "POST", path, "", "", ct, `{"start_url":"https://example.com/"}`)
			if status != http.StatusUnsupportedMediaType || !strings.Contains(body, "Content-Type: application/json") {
				t.Errorf("POST %s as %q: %d %.200s; want 415 asking for application/json", path, ct, status, body)
			}
		}
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d engines started for refused requests", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		if status, body := request(t, hs, "POST", "/reset", "", "", ct, `{"start_url":"https://example.com/"}`); status != 200 {
			t.Errorf("POST /reset as %q: %d %.200s", ct, status, body)
		}
	}
	_, body := request(t, hs, "POST", "/reset", "", "", "text/plain", `{}`)
	t.Logf("415 body: %s", body)
}

// The Go client (the app's "OpenEnv server at URL" engine, play --server)
// reports a refusal with the server's reason at once, instead of waiting
// for /health and asking whether the server runs.
func TestClientReportsRefusal(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, hs.Listener.Addr().String())
	}}}
	start := time.Now()
	_, err := Dial(context.Background(), "http://evil.example:"+port, ClientOptions{HTTPClient: hc, HealthTimeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "--allow-host evil.example") || !strings.Contains(err.Error(), "403") {
		t.Fatalf("Dial through a refused name: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the refusal took %s to report", d)
	}
	t.Log(err)
}
