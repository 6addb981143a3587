package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
	"waymark/engine/provider/remotecdp"
)

// browserlessPackage is the Browserless release the test runs (its npm
// package, started with Node.js on Debian's Chromium).
const browserlessPackage = "@browserless.io/browserless@2.42.0"

// browserlessStart starts Browserless with only the routes whose browsers
// are installed (Debian's Chromium, linked where playwright-core looks for
// its own Chromium); Browserless's own entry point refuses to start when
// Chrome, Edge, Firefox or WebKit is missing.
const browserlessStart = `import fs from 'node:fs';
import path from 'node:path';
const { default: pw } = await import('playwright-core');
const exe = pw.chromium.executablePath();
fs.mkdirSync(path.dirname(exe), { recursive: true });
try { fs.unlinkSync(exe); } catch {}
fs.symlinkSync(process.env.WAYMARK_CHROMIUM, exe);
const { Browserless, availableBrowsers } = await import('@browserless.io/browserless');
const have = await availableBrowsers;
const b = new Browserless();
const own = b.routeIsDisabled.bind(b);
b.routeIsDisabled = (r) => own(r) || (!!r.browser && !have.includes(r.browser));
await b.start();
`

// syncBuffer collects a process's output for a failure message.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b.Bytes()
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

type browserless struct {
	addr    string // 127.0.0.1:PORT
	token   string
	version string
	log     *syncBuffer
}

// installBrowserless installs the npm package once into the user's cache
// folder (about a minute) and returns the folder; the test is skipped when
// Node.js, npm or the registry is not there.
func installBrowserless(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: install Node.js and npm (apt-get install nodejs npm) to test against a real Browserless", tool)
		}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "waymark-test", "browserless")
	marker := filepath.Join(dir, "installed.txt")
	if b, err := os.ReadFile(marker); err == nil && string(b) == browserlessPackage {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir, browserlessPackage)
	// Browserless's browser libraries must not fetch browsers of their own:
	// it runs on the machine's Chromium.
	cmd.Env = append(os.Environ(), "PUPPETEER_SKIP_DOWNLOAD=1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm could not install %s (no npm registry?): %v\n%s", browserlessPackage, err, out)
	}
	if err := os.WriteFile(marker, []byte(browserlessPackage), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startBrowserless runs a Browserless server on a free loopback port until
// the test ends; it skips the test, saying why, when Browserless cannot
// start here.
func startBrowserless(t *testing.T) *browserless {
	t.Helper()
	chromium, err := chromium.Find("")
	if err != nil {
		t.Skipf("no Chromium for Browserless to run: %v", err)
	}
	// Browserless asks for Node.js 24 and was checked to run on 20; older
	// ones (Debian 12 ships 18) are not tried.
	if v := nodeVersion(); v != "" {
		if major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(v, "v"), ".", 2)[0]); err == nil && major < 20 {
			t.Skipf("Browserless needs Node.js 20 or newer and this machine has %s; install a newer Node.js to run this test", v)
		}
	}
	dir := installBrowserless(t)
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@browserless.io", "browserless", "package.json")); err == nil {
		json.Unmarshal(b, &pkg)
	}
	script := filepath.Join(dir, "waymark-start.mjs")
	if err := os.WriteFile(script, []byte(browserlessStart), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	data := t.TempDir()
	s := &browserless{addr: addr, token: "waymark-test-token", version: pkg.Version, log: &syncBuffer{}}
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WAYMARK_CHROMIUM="+chromium, "PLAYWRIGHT_BROWSERS_PATH="+filepath.Join(dir, "browsers"),
		"HOST=127.0.0.1", "PORT="+port, "TOKEN="+s.token, "DATA_DIR="+data, "DOWNLOAD_DIR="+data,
		"METRICS_JSON_PATH="+filepath.Join(data, "metrics.json"), "CONCURRENT=8",
		"DEBUG=browserless*,-**:trace,-**:verbose")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // node and what it started in its group
		<-done
		// Browserless launches its Chromiums detached (their own process
		// groups), with profiles under the data directory: end them too,
		// or they outlive the test and load the machine.
		killWithArg(data)
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := s.sessions(""); err == nil {
			t.Logf("Browserless %s on %s (Chromium %s)", s.version, addr, chromium)
			return s
		}
		select {
		case <-done:
			t.Skipf("Browserless %s did not start here (node %s exited):\n%s", s.version, nodeVersion(), s.log.tail())
		default:
		}
		if time.Now().After(deadline) {
			t.Skipf("Browserless %s did not answer on %s within 30 s:\n%s", s.version, addr, s.log.tail())
		}
	}
}

func nodeVersion() string {
	out, _ := exec.Command("node", "--version").Output()
	return strings.TrimSpace(string(out))
}

// blSession is one browser Browserless runs.
type blSession struct {
	BrowserID  string `json:"browserId"`
	TrackingID string `json:"trackingId"`
	Type       string `json:"type"`
}

// sessions lists the browsers Browserless runs (pages left out).
func (s *browserless) sessions(trackingID string) ([]blSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u := fmt.Sprintf("http://%s/sessions?token=%s", s.addr, s.token)
	if trackingID != "" {
		u += "&trackingId=" + trackingID
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("/sessions: %s", resp.Status)
	}
	var all, browsers []blSession
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil {
		return nil, err
	}
	for _, x := range all {
		if x.Type == "browser" {
			browsers = append(browsers, x)
		}
	}
	return browsers, nil
}

// provider is a remote_cdp provider on s's bare address, with Browserless's
// per-connection timeout (its side of the lease) in milliseconds.
func (s *browserless) provider(t *testing.T, timeoutMS int) *remotecdp.Provider {
	return newProvider(t, fmt.Sprintf(`{"remote_cdp":{"endpoints":["ws://%s"],"connect_timeout":"60s",
		"query":{"token":%q,"timeout":%d,"launch":{"args":["--disable-background-networking","--disable-component-update",
		"--disable-sync","--no-first-run","--disable-quic","--disable-dev-shm-usage"]}}}}`, s.addr, s.token, timeoutMS))
}

// clickSite is a hermetic page: a button whose click sets a cookie and
// shows it in the title.
func clickSite(t *testing.T) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>not clicked</title></head><body style="margin:0">
<button style="position:absolute;left:100px;top:200px;width:200px;height:80px"
 onclick="document.cookie='who=one; path=/'; document.title='clicked '+document.cookie">click</button></body></html>`)
	}))
	t.Cleanup(site.Close)
	return site
}

// TestBrowserless runs sessions of the remote_cdp provider on a real
// Browserless server. Browserless starts a browser for each websocket
// connection to its address; the provider's one connection holds the
// sessions' browser contexts, and the engines reach that same browser
// through Browserless's /devtools/browser/<id> address.
func TestBrowserless(t *testing.T) {
	bl := startBrowserless(t)
	site := clickSite(t)
	opts := Options{Settings: engine.DefaultSettings()}
	if testing.Verbose() {
		opts.Logf = t.Logf
	}
	p := bl.provider(t, 1800000) // longer than the whole test on a loaded machine

	// How long an acquire and a reset take here sizes the farm timeout of
	// the last subtest (a loaded machine needs a longer one).
	var took time.Duration
	t.Run("episode and isolation", func(t *testing.T) {
		ctx := hangGuard(t)
		start := time.Now()
		l1, err := Acquire(ctx, p, engine.Spec{}, opts)
		if err != nil {
			t.Fatalf("acquire on Browserless: %v\n%s", err, bl.log.tail())
		}
		defer l1.Close()
		if !strings.HasPrefix(l1.Handle.Endpoint, "ws://"+bl.addr+"/devtools/browser/") {
			t.Errorf("the session's endpoint %q is not Browserless's address of one browser", engine.RedactURL(l1.Handle.Endpoint))
		}
		obs, err := l1.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"})
		if err != nil || obs.Title != "not clicked" {
			t.Fatalf("reset: title %q, %v", obs.Title, err)
		}
		took = time.Since(start)
		if w, h := pngSize(t, obs.Screenshot); w != 800 || h != 600 {
			t.Errorf("screenshot %dx%d", w, h)
		}
		obs, err = l1.Step(ctx, action.ClickAt(200, 240))
		if err != nil || obs.Title != "clicked who=one" || obs.Error != "" {
			t.Fatalf("after the click: title %q error %q, %v", obs.Title, obs.Error, err)
		}
		if got := eval[[]float64](t, l1.Engine, `[innerWidth, innerHeight, devicePixelRatio]`); fmt.Sprint(got) != "[800 600 1]" {
			t.Errorf("viewport %v", got)
		}

		l2, err := Acquire(ctx, p, engine.Spec{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		if l2.Handle.Metadata[engine.MetaBrowserContextID] == l1.Handle.Metadata[engine.MetaBrowserContextID] {
			t.Fatal("two sessions share a browser context")
		}
		if got := p.Load()["ws://"+bl.addr]; got != 2 {
			t.Errorf("load %d, want 2", got)
		}
		if _, err := l2.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
			t.Fatal(err)
		}
		if got := eval[string](t, l2.Engine, `document.cookie`); got != "" {
			t.Fatalf("session 2 sees session 1's cookie: %q", got)
		}
		if got := eval[string](t, l1.Engine, `document.cookie`); got != "who=one" {
			t.Fatalf("session 1 lost its cookie: %q", got)
		}
		// Both sessions live in the one browser of the provider's connection.
		if s, err := bl.sessions(""); err != nil || len(s) != 1 {
			t.Errorf("Browserless runs %d browsers (%v), want 1: %+v", len(s), err, s)
		}

		// Release is idempotent, and ends only its own session.
		for i := 0; i < 2; i++ {
			if err := l2.Close(); err != nil {
				t.Fatalf("release %d: %v", i+1, err)
			}
		}
		if err := p.Release(ctx, l2.Handle); err != nil {
			t.Fatalf("a third release through the provider: %v", err)
		}
		if got := p.Load()["ws://"+bl.addr]; got != 1 {
			t.Errorf("load after a release %d, want 1", got)
		}
		if obs, err := l1.Step(ctx, action.ClickAt(200, 240)); err != nil || obs.Title != "clicked who=one" {
			t.Errorf("session 1 after session 2's release: title %q, %v", obs.Title, err)
		}
	})

	t.Run("farm timeout", func(t *testing.T) {
		ctx := hangGuard(t)
		// Browserless ends a connection after its timeout (the farm's side
		// of the lease), with the browser and every context in it.
		before, err := bl.sessions("")
		if err != nil {
			t.Fatal(err)
		}
		timeout := min(max(3*took, 6*time.Second), 3*time.Minute)
		tp := bl.provider(t, int(timeout.Milliseconds()))
		start := time.Now()
		l, err := Acquire(ctx, tp, engine.Spec{}, opts)
		if err != nil {
			t.Fatalf("acquire with a %v farm timeout: %v", timeout, err)
		}
		defer l.Close()
		if _, err := l.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
			t.Fatalf("reset with a %v farm timeout: %v", timeout, err)
		}
		select {
		case <-l.anchorGone:
		case <-time.After(timeout + 30*time.Second):
			t.Fatalf("the session outlived Browserless's %v timeout by 30 s\n%s", timeout, bl.log.tail())
		}
		t.Logf("Browserless's %v timeout ended the session %v after it was acquired", timeout, time.Since(start).Round(time.Millisecond))
		_, err = l.Step(ctx, action.ClickAt(200, 240))
		if !errors.Is(err, engine.ErrRemoteGone) || !strings.Contains(err.Error(), "acquire a new one") {
			t.Fatalf("step after the farm's timeout: %v", err)
		}
		if err := l.Renew(ctx); err == nil {
			t.Error("a heartbeat renewed a session the farm ended")
		}
		if err := l.Close(); err != nil {
			t.Errorf("release after the farm's timeout: %v", err)
		}
		// The farm freed the browser: every browser it runs now ran before
		// this session. (The first provider's browser may have ended too,
		// at its own timeout on a slow run, so the count may fall.)
		was := map[string]bool{}
		for _, b := range before {
			was[b.BrowserID] = true
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			s, err := bl.sessions("")
			var extra []blSession
			for _, b := range s {
				if !was[b.BrowserID] {
					extra = append(extra, b)
				}
			}
			if err == nil && len(extra) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a minute after the timeout Browserless still runs %d browsers (%v) it did not run before: %+v", len(extra), err, extra)
			}
		}
	})
}

// killWithArg kills every process whose command line mentions arg.
func killWithArg(arg string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), arg) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// hangGuard is a subtest's context: a bound on hanging, not on speed.
// Browserless starts a Chromium for each connection; on a loaded two-core
// machine opening one tab took 20 s, and one context shared by every
// subtest ran out before the last subtest's reset.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
