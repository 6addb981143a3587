package openenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/chromium"
)

// site is the test website, served on 127.0.0.1.
type site struct {
	*httptest.Server
	mu      sync.Mutex
	cookies []string // Cookie headers seen on /show
}

const formPage = `<!doctype html><html><head><title>form</title><style>
body { margin: 0; height: 2500px; font: 16px sans-serif; }
#q { position: absolute; left: 100px; top: 100px; width: 300px; height: 40px; }
#go { position: absolute; left: 300px; top: 250px; width: 200px; height: 100px; }
</style></head><body>
<form action="/search"><input id="q" name="q" autocomplete="off"></form>
<button id="go" onclick="location.href='/clicked'">go</button>
</body></html>`

func newSite(t testing.TB) *site {
	s := &site{}
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", html(formPage))
	mux.HandleFunc("/clicked", html(`<title>clicked</title><h1>clicked</h1>`))
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<title>results</title><p>results for %s</p>", r.URL.Query().Get("q"))
	})
	// /set stores a cookie and a localStorage item in this browser.
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>set</title><body style="margin:0"><a href="/show" style="display:block;width:800px;height:600px">show</a>
<script>localStorage.setItem('who', %q)</script></body>`, r.URL.Query().Get("v"))
	})
	// /show reports what this browser holds, in its own URL.
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.cookies = append(s.cookies, r.Header.Get("Cookie"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>show</title><script>
history.replaceState(null, '', '/shown?ls=' + (localStorage.getItem('who') || 'none') + '&ck=' + encodeURIComponent(document.cookie || 'none'));
</script>`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// engines records the browser engines a factory made.
type engines struct {
	mu   sync.Mutex
	list []*browser.Engine
}

func (es *engines) all() []*browser.Engine {
	es.mu.Lock()
	defer es.mu.Unlock()
	return append([]*browser.Engine(nil), es.list...)
}

func testSettings() engine.Settings {
	set := engine.DefaultSettings()
	set.ActionWait = 400 * time.Millisecond
	set.ExplicitWait = 3 * time.Second
	return set
}

// browserFactory makes real browser engines (each its own Chromium and
// profile) and makes sure they are closed when the test ends.
func browserFactory(t testing.TB, es *engines) func(context.Context) (engine.Engine, error) {
	return browserFactoryOn(t, es, nil)
}

// browserFactoryOn makes the engines take their Chromium from pool (nil:
// the process's shared pool).
func browserFactoryOn(t testing.TB, es *engines, pool *chromium.Pool) func(context.Context) (engine.Engine, error) {
	// The engines' diagnostics (why an episode ended, …) go to the test's
	// log while it runs.
	var ended atomic.Bool
	t.Cleanup(func() { ended.Store(true) })
	logf := func(format string, args ...any) {
		if !ended.Load() {
			t.Logf(format, args...)
		}
	}
	t.Cleanup(func() {
		for _, e := range es.all() {
			e.Close()
		}
	})
	return func(context.Context) (engine.Engine, error) {
		e, err := browser.New(browser.Options{Settings: testSettings(), Pool: pool, Logf: logf})
		if err != nil {
			return nil, err
		}
		es.mu.Lock()
		es.list = append(es.list, e)
		es.mu.Unlock()
		return e, nil
	}
}

// The spec's example exchange, sent byte for byte (with the start URL on
// the test site), the replies compared field by field.
func TestSpecExampleExchange(t *testing.T) {
	s := newSite(t)
	var es engines
	pool := privatePool(t)
	srv, hs := testServer(t, Options{NewEngine: browserFactoryOn(t, &es, pool)})
	r := dialRaw(t, hs)

	checkObservation := func(reply []byte, wantURL string) {
		t.Helper()
		if k := strings.Join(keysOf(t, reply), ","); k != "type,data" {
			t.Fatalf("reply keys %s: %.300s", k, reply)
		}
		m := decoded(t, reply)
		if m["type"] != "observation" {
			t.Fatalf("reply type %v: %.300s", m["type"], reply)
		}
		_, rawData, _ := strings.Cut(string(reply), `"data":`)
		if k := strings.Join(keysOf(t, []byte(rawData[:len(rawData)-1])), ","); k != "observation,reward,done" {
			t.Errorf("data keys %s", k)
		}
		_, rawObs, _ := strings.Cut(rawData, `"observation":`)
		end := strings.Index(rawObs, `},"reward":`)
		if k := strings.Join(keysOf(t, []byte(rawObs[:end+1])), ","); k != "screenshot,url,error" {
			t.Errorf("observation keys %s (only screenshot, url, error)", k)
		}
		if !strings.HasSuffix(string(reply), `,"reward":0,"done":false}}`) {
			t.Errorf("reward/done: %s", reply[len(reply)-40:])
		}
		d := m["data"].(map[string]any)
		o := d["observation"].(map[string]any)
		if o["url"] != wantURL || o["error"] != "" {
			t.Errorf("url %v error %v, want %s and no error", o["url"], o["error"], wantURL)
		}
		shot, err := base64.StdEncoding.DecodeString(o["screenshot"].(string))
		if err != nil {
			t.Fatalf("screenshot is not base64: %v", err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			t.Errorf("screenshot: %v %v", err, img.Bounds())
		}
	}

	checkObservation(r.call(`{"type":"reset","data":{"start_url":"`+s.URL+`"}}`), s.URL+"/")
	// The button covers (400,300): the click navigates.
	checkObservation(r.call(`{"type":"step","data":{"metadata":{},"op":"click","x":400,"y":300,"text":"","dy":0}}`), s.URL+"/clicked")
	st := r.call(`{"type":"state"}`)
	m := decoded(t, st)
	d := m["data"].(map[string]any)
	if k := strings.Join(keysOf(t, st), ","); k != "type,data" || m["type"] != "state" || d["step_count"] != jsonNum(1) || len(d["episode_id"].(string)) != 36 {
		t.Errorf("state reply %s", st)
	}
	if !strings.HasPrefix(string(st), `{"type":"state","data":{"episode_id":"`) || !strings.HasSuffix(string(st), `","step_count":1}}`) {
		t.Errorf("state reply layout %s", st)
	}
	pid := es.all()[0].BrowserPID()
	if pid == 0 || openPages(t, pool) != 1 {
		t.Fatalf("the session has no Chromium (pid %d) or not one tab (%d)", pid, openPages(t, pool))
	}
	r.send(`{"type":"close"}`)
	if data, err := r.recv(30 * time.Second); err == nil {
		t.Errorf("close got a reply: %s", data)
	}
	waitFor(t, "the session to end", func() bool { return srv.ActiveSessions() == 0 })
	waitFor(t, "the session's tab to close", func() bool { return openPages(t, pool) == 0 })
	if es.all()[0].BrowserPID() != 0 {
		t.Error("the closed session's engine still holds its Chromium")
	}
}

// privatePool is a pool of the test's own, closed after it, so the test
// can count its tabs and see its processes end.
func privatePool(t testing.TB) *chromium.Pool {
	p := chromium.NewPool(chromium.PoolOptions{})
	t.Cleanup(p.Close)
	return p
}

// openPages counts the tabs open in pool's Chromium.
func openPages(t testing.TB, pool *chromium.Pool) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := pool.OpenPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func jsonNum(n int) any { return json.Number(strconv.Itoa(n)) }

// The Go client drives the Go server through a whole episode, with a
// task's check giving the reward at the end.
func TestGoClientWholeEpisode(t *testing.T) {
	s := newSite(t)
	var es engines
	task := Task{ID: "search-boots", Goal: "Search for boots", Category: "navigation", StartURL: s.URL + "/",
		Check: &action.Check{Kind: action.CheckKindURL, URL: `/search\?q=boots$`}}
	_, hs := testServer(t, Options{NewEngine: browserFactory(t, &es),
		Task:    func(id string) (Task, bool) { return task, id == task.ID },
		TaskIDs: func() []string { return []string{task.ID} }})
	ctx := context.Background()
	c, err := Dial(ctx, hs.URL, ClientOptions{ResetExtra: map[string]any{"task_id": "search-boots"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	o, err := c.Reset(ctx, engine.ResetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.URL != s.URL+"/" || o.Step != 0 || len(o.Screenshot) == 0 {
		t.Fatalf("reset: url %q step %d %d bytes", o.URL, o.Step, len(o.Screenshot))
	}
	steps := []struct {
		a       action.Action
		wantURL string
	}{
		{action.ClickAt(200, 120), s.URL + "/"},
		{action.TypeText("boots"), s.URL + "/"},
		{action.PressKey("ENTER"), s.URL + "/search?q=boots"},
		{action.ScrollBy(200), s.URL + "/search?q=boots"},
		{action.Action{Op: action.Back}, s.URL + "/"},
		{action.Action{Op: action.Key, Text: "TAB"}, s.URL + "/"},
	}
	for i, st := range steps {
		o, err := c.Step(ctx, st.a)
		if err != nil {
			t.Fatalf("step %d %s: %v", i+1, st.a, err)
		}
		if o.Step != i+1 || o.URL != st.wantURL || o.Done || o.Error != "" {
			t.Fatalf("step %d %s: step %d url %q done %v error %q", i+1, st.a, o.Step, o.URL, o.Done, o.Error)
		}
		if _, err := png.Decode(bytes.NewReader(o.Screenshot)); err != nil {
			t.Fatalf("step %d screenshot: %v", i+1, err)
		}
	}
	st, err := c.RemoteState(ctx)
	if err != nil || st["step_count"] != float64(len(steps)) || st["episode_id"] != c.State().EpisodeID {
		t.Errorf("remote state %v (%v), local %+v", st, err, c.State())
	}
	// Go forward to the result page again, then finish: the check passes.
	// Each step says why, should one end the episode early.
	for _, a := range []action.Action{action.ClickAt(200, 120), action.TypeText("boots")} {
		if o, err = c.Step(ctx, a); err != nil || o.Done || o.Error != "" {
			t.Fatalf("%s: %v; done %v (%q), error %q", a, err, o.Done, o.EndReason, o.Error)
		}
	}
	if o, err = c.Step(ctx, action.PressKey("ENTER")); err != nil || !strings.HasSuffix(o.URL, "q=boots") || o.Done || o.Error != "" {
		t.Fatalf("search again: %q %v; done %v (%q), error %q", o.URL, err, o.Done, o.EndReason, o.Error)
	}
	o, err = c.Step(ctx, action.FinishWith("done"))
	if err != nil {
		t.Fatal(err)
	}
	if !o.Done || o.EndReason != action.EndFinished || o.Reward == nil || *o.Reward != 1 {
		t.Errorf("finish: done %v reason %q reward %v", o.Done, o.EndReason, o.Reward)
	}
	if _, err := c.Step(ctx, action.ScrollBy(10)); err == nil || !strings.Contains(err.Error(), "reset before stepping") {
		t.Errorf("step after the end: %v", err)
	}
	// Unknown task ids are explained.
	_, err = c.ResetWith(ctx, engine.ResetOptions{}, map[string]any{"task_id": "nope"})
	if err == nil || !strings.Contains(err.Error(), `unknown task_id "nope"; known tasks: search-boots`) {
		t.Errorf("unknown task: %v", err)
	}
}

// Two concurrent sessions never share cookies or localStorage.
func TestSessionsAreIsolated(t *testing.T) {
	s := newSite(t)
	var es engines
	_, hs := testServer(t, Options{NewEngine: browserFactory(t, &es), MaxSessions: 2})
	ctx := context.Background()
	dial := func() *Client {
		c, err := Dial(ctx, hs.URL, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := dial(), dial()
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, errA = a.Reset(ctx, engine.ResetOptions{StartURL: s.URL + "/set?v=alice"})
	}()
	go func() {
		defer wg.Done()
		_, errB = b.Reset(ctx, engine.ResetOptions{StartURL: s.URL + "/set?v=bob"})
	}()
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	for name, c := range map[string]*Client{"alice": a, "bob": b} {
		o, err := c.Step(ctx, action.ClickAt(400, 300)) // the link to /show

		if err != nil {
			t.Fatal(err)
		}
		want := "/shown?ls=" + name + "&ck=who%3D" + name
		if !strings.HasSuffix(o.URL, want) {
			t.Errorf("session %s sees %s, want …%s", name, o.URL, want)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cookies) != 2 || s.cookies[0] == s.cookies[1] {
		t.Errorf("cookies sent to /show: %q", s.cookies)
	}
}

// A client that disconnects in the middle of a step leaves nothing behind:
// the session's engine is closed, its tab and browser context are gone
// from the warm Chromium, and once the pool closes no process is left.
func TestDisconnectMidStepLeavesNoBrowser(t *testing.T) {
	s := newSite(t)
	var es engines
	pool := privatePool(t)
	srv, hs := testServer(t, Options{NewEngine: browserFactoryOn(t, &es, pool)})
	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"` + s.URL + `"}}`)
	eng := es.all()[0]
	pid := eng.BrowserPID()
	if pid == 0 || !processAlive(pid) {
		t.Fatal("no Chromium for the session")
	}
	if len(chromiumDescendants(pool.Profiles())) == 0 {
		t.Fatal("the process scan does not see the session's Chromium")
	}
	// A wait step takes 3 s; hang up 300 ms into it.
	r.send(`{"type":"step","data":{"metadata":{},"op":"wait","x":null,"y":null,"text":"","dy":0}}`)
	time.Sleep(300 * time.Millisecond)
	_ = r.c.CloseNow()
	waitFor(t, "the session to end", func() bool { return srv.ActiveSessions() == 0 })
	waitFor(t, "the session's tab to close", func() bool { return openPages(t, pool) == 0 })
	profile := pool.Profiles()
	if eng.BrowserPID() != 0 {
		t.Errorf("engine not torn down: it still holds Chromium %d", eng.BrowserPID())
	}
	pool.Close()
	if processAlive(pid) {
		t.Errorf("Chromium %d runs on after the pool closed", pid)
	}
	for _, p := range profile {
		if dirExists(p) {
			t.Errorf("profile %s left after the pool closed", p)
		}
	}
	if left := chromiumDescendants(profile); len(left) > 0 {
		t.Errorf("Chromium processes left: %v", left)
	}
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie waiting for its parent counts as gone.
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// chromiumDescendants lists live chromium processes descended from this
// test process that run with one of the profiles (other browsers, this
// binary's shared pool's among them, are ignored).
func chromiumDescendants(profiles []string) []int {
	me := os.Getpid()
	parent := map[int]int{}
	comm := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[close+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		comm[pid] = string(b[open+1 : close])
		parent[pid], _ = strconv.Atoi(f[1])
	}
	var out []int
	for pid, name := range comm {
		if !strings.Contains(name, "chrom") {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !slices.ContainsFunc(profiles, func(p string) bool { return bytes.Contains(cmd, []byte(p)) }) {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == me {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// Stateless POST /reset opens a browser context for the request and closes
// it with the request.
func TestStatelessResetClosesItsBrowser(t *testing.T) {
	s := newSite(t)
	var es engines
	pool := privatePool(t)
	_, hs := testServer(t, Options{NewEngine: browserFactoryOn(t, &es, pool)})
	resp, err := http.Post(hs.URL+"/reset", "application/json", strings.NewReader(`{"start_url":"`+s.URL+`/clicked"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Observation struct{ Screenshot, URL, Error string }
		Reward      *float64
		Done        bool
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /reset: %d %v", resp.StatusCode, err)
	}
	if body.Observation.URL != s.URL+"/clicked" || len(body.Observation.Screenshot) < 100 || body.Reward == nil || *body.Reward != 0 {
		t.Errorf("POST /reset body: url %q reward %v", body.Observation.URL, body.Reward)
	}
	made := es.all()
	if len(made) != 1 {
		t.Fatalf("%d engines for one request", len(made))
	}
	if made[0].BrowserPID() != 0 {
		t.Error("the request's engine still holds its browser")
	}
	if n := openPages(t, pool); n != 0 {
		t.Errorf("%d tabs of the request are still open", n)
	}
	profiles := pool.Profiles()
	pool.Close()
	if left := chromiumDescendants(profiles); len(left) > 0 {
		t.Errorf("Chromium processes left: %v", left)
	}
}
