package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// `serve --browser-provider` against a real remote Chromium (its own
// process, as a browser farm runs it): sessions hold leases that steps
// renew and /health reports, a lost browser context ends the session with
// LEASE_EXPIRED (recorded as the episode's end reason), and a serve killed
// with SIGKILL leaves no browser context behind. One remote Chromium for
// the whole file.
func TestServeBrowserProvider(t *testing.T) {
	farm := startRemoteChromium(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>farm</title><body style="margin:0;height:2000px"><a href="/next" style="display:block;height:300px">next</a></body>`)
	}))
	defer site.Close()
	provider := fmt.Sprintf(`{"remote_cdp":{"endpoints":[%q],"connect_timeout":5}}`, farm)

	t.Run("steps renew the lease shown by /health", func(t *testing.T) {
		sv, base := startProviderServing(t, provider, 0, "")
		c := dialWS(t, base)
		wsCall(t, c, fmt.Sprintf(`{"type":"reset","data":{"start_url":%q}}`, site.URL+"/"))
		// The session's context, and the episode's own inside the session.
		if n := len(farmContexts(t, farm)); n < 1 {
			t.Errorf("no browser context on the farm during the session")
		}
		h1 := leaseOf(t, base)
		if h1.Transport != "remote_cdp" || h1.LeaseID == "" || h1.TTL != 900 ||
			!strings.HasPrefix(h1.Endpoint, strings.Replace(farm, "http://", "ws://", 1)+"/devtools/browser/") {
			t.Errorf("/health lease: %+v", h1)
		}
		wsCall(t, c, `{"type":"step","data":{"op":"click","x":100,"y":100}}`)
		reply := wsCall(t, c, `{"type":"step","data":{"op":"scroll","dy":300}}`)
		if !strings.Contains(reply, `"url":"`+site.URL+`/next"`) {
			t.Errorf("the click did not follow the link: %.300s", reply)
		}
		h2 := leaseOf(t, base)
		if !h2.Deadline.After(h1.Deadline) || h2.Renewals < h1.Renewals+2 {
			t.Errorf("steps did not renew the lease: deadline %s → %s, renewals %d → %d", h1.Deadline, h2.Deadline, h1.Renewals, h2.Renewals)
		}
		c.Close(websocket.StatusNormalClosure, "")
		waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
		waitUntil(t, func() bool { return len(farmContexts(t, farm)) == 0 })
	})

	t.Run("a lost browser context ends the session with LEASE_EXPIRED", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "w.db")
		sv, base := startProviderServing(t, provider, 3*time.Second, db)
		c := dialWS(t, base)
		wsCall(t, c, fmt.Sprintf(`{"type":"reset","data":{"start_url":%q,"agent":"bot"}}`, site.URL+"/"))
		wsCall(t, c, `{"type":"step","data":{"op":"scroll","dy":200}}`)
		ids := farmContexts(t, farm)
		if len(ids) < 1 {
			t.Fatal("no browser context on the farm during the session")
		}
		// The farm loses the session's contexts (another client disposes
		// of them); the next heartbeat (every TTL/3 = 1 s) finds them gone.
		for _, id := range ids {
			cdpCall(t, farm, "Target.disposeBrowserContext", map[string]any{"browserContextId": id})
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no frame after the context was lost: %v", err)
		}
		if !strings.Contains(string(data), `"code":"LEASE_EXPIRED"`) || !strings.Contains(string(data), "no longer exists") {
			t.Fatalf("got %s", data)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("the lease ended %s after the context was lost, want within its 3 s TTL (a heartbeat every 1 s)", d)
		}
		if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Errorf("after LEASE_EXPIRED: %v, want the socket closed normally", err)
		}
		waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
		if got := httpGet(t, base+"/health"); !strings.Contains(got, `"active":0,"max":2,"provider":"remote_cdp","leases":[]`) {
			t.Errorf("/health after the session: %s", got)
		}
		sv.Close()
		st, err := dataset.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		eps, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{})
		if err != nil || len(eps) != 1 {
			t.Fatalf("%d episodes (%v), want 1", len(eps), err)
		}
		if ep := eps[0]; ep.Status != "interrupted" || ep.EndReason != "lease_expired" || ep.NumSteps != 1 {
			t.Errorf("the episode: status %q, end reason %q, %d steps; want interrupted, lease_expired, 1", ep.Status, ep.EndReason, ep.NumSteps)
		}
	})

	t.Run("a serve killed with SIGKILL leaves no context on the farm", func(t *testing.T) {
		bin := buildBinary(t) // built once for the package's tests
		const ttl = 5 * time.Second
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--browser-provider", provider, "--lease-ttl", ttl.String())
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		addr := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `)
			for sc.Scan() {
				if m := re.FindStringSubmatch(sc.Text()); m != nil {
					addr <- m[1]
				}
			}
		}()
		var base string
		select {
		case base = <-addr:
		case <-time.After(30 * time.Second):
			t.Fatal("serve printed no address within 30 s")
		}
		c := dialWS(t, base)
		wsCall(t, c, fmt.Sprintf(`{"type":"reset","data":{"start_url":%q}}`, site.URL+"/"))
		if n := len(farmContexts(t, farm)); n < 1 {
			t.Fatal("no browser context on the farm during the session")
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		killed := time.Now()
		for len(farmContexts(t, farm)) != 0 {
			if time.Since(killed) > ttl {
				t.Fatalf("the farm still holds the session's context %s after serve was killed (lease %s)", time.Since(killed), ttl)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("the farm disposed of the context %s after serve was killed", time.Since(killed).Round(time.Millisecond))
	})
}

// startProviderServing runs serve's server with the provider (and a lease
// TTL, and recording into db, when given) on 127.0.0.1; it returns its
// http:// address.
func startProviderServing(t *testing.T, provider string, ttl time.Duration, db string) (*serving, string) {
	t.Helper()
	p, err := parseBrowserProvider(provider)
	if err != nil {
		t.Fatal(err)
	}
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 2, Provider: p, LeaseTTL: ttl, Record: db != "",
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	t.Cleanup(func() {
		sv.Close()
		hs.Close()
	})
	return sv, hs.URL
}

func dialWS(t *testing.T, base string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(100 << 20)
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// wsCall sends one message and returns the reply; an error frame fails
// the test.
func wsCall(t *testing.T, c *websocket.Conn, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("reply to %s: %v", msg, err)
	}
	if strings.HasPrefix(string(data), `{"type":"error"`) {
		t.Fatalf("reply to %s: %s", msg, data)
	}
	return string(data)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

type healthLease struct {
	SessionID string    `json:"session_id"`
	LeaseID   string    `json:"lease_id"`
	Transport string    `json:"transport"`
	Endpoint  string    `json:"endpoint"`
	TTL       float64   `json:"ttl_seconds"`
	Deadline  time.Time `json:"deadline"`
	Left      float64   `json:"seconds_left"`
	Renewals  int       `json:"renewals"`
}

// leaseOf is the one lease /health reports.
func leaseOf(t *testing.T, base string) healthLease {
	t.Helper()
	body := httpGet(t, base+"/health")
	var h struct {
		Status   string
		Sessions struct {
			Active, Max int
			Provider    string
			Leases      []healthLease
		}
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("/health: %v: %s", err, body)
	}
	s := h.Sessions
	if h.Status != "healthy" || s.Active != 1 || s.Max != 2 || s.Provider != "remote_cdp" || len(s.Leases) != 1 {
		t.Fatalf("/health: %s", body)
	}
	return s.Leases[0]
}

// farmContexts lists the farm Chromium's browser contexts, asked on a
// connection of its own.
func farmContexts(t *testing.T, farm string) []string {
	t.Helper()
	var res struct {
		BrowserContextIDs []string `json:"browserContextIds"`
	}
	if err := json.Unmarshal(cdpCall(t, farm, "Target.getBrowserContexts", nil), &res); err != nil {
		t.Fatal(err)
	}
	return res.BrowserContextIDs
}

// cdpCall sends one CDP command to the browser at farm (http://host:port)
// on a fresh connection and returns its result.
func cdpCall(t *testing.T, farm, method string, params any) json.RawMessage {
	t.Helper()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal([]byte(httpGet(t, farm+"/json/version")), &v); err != nil || v.WS == "" {
		t.Fatalf("/json/version: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, v.WS, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	req, _ := json.Marshal(map[string]any{"id": 1, "method": method, "params": params})
	if params == nil {
		req, _ = json.Marshal(map[string]any{"id": 1, "method": method})
	}
	if err := c.Write(ctx, websocket.MessageText, req); err != nil {
		t.Fatal(err)
	}
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(data, &m) == nil && m.ID == 1 {
			if m.Error != nil {
				t.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		}
	}
}
