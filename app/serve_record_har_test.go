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
	"waymark/engine/har"
)

// The page of the serve --record tests: its start calls /api/me and its
// button calls /api/orders, both with a bearer token.
// The page builds the token from two halves, so only a request header can
// carry it whole.
const bearerToken = "tok-SECRET-29-bearer"

func apiSite(t *testing.T) *httptest.Server {
	t.Helper()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/me", "/api/orders":
			if r.Header.Get("Authorization") != "Bearer "+bearerToken {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"path":%q,"ok":true}`, r.URL.Path)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>api</title><body style="margin:0">
<button id="b" style="display:block;width:300px;height:200px" onclick="call('/api/orders','o')">orders</button>
<p id="me"></p><p id="o"></p>
<script>
function call(p, id) {
  fetch(p, {headers: {Authorization: 'Bearer ' + '%s' + '%s'}}).then(r => r.json()).then(j => {
    document.getElementById(id).textContent = j.path;
  });
}
call('/api/me', 'me');
</script></body>`, bearerToken[:8], bearerToken[8:])
	}))
	t.Cleanup(site.Close)
	return site
}

// startServeBinary runs the built waymark binary's serve with args on a
// free port and returns its http:// address and a stop function that ends
// it as Ctrl+C does and waits for it.
func startServeBinary(t *testing.T, db string, args ...string) (base string, stop func()) {
	t.Helper()
	bin := buildBinary(t)
	cmd := exec.Command(bin, append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("serve did not stop within 60 s of SIGINT\n%s", stderr.String())
		}
	}
	t.Cleanup(stop)
	select {
	case base = <-addr:
	case <-exited:
		t.Fatalf("serve exited before serving:\n%s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve printed no address within 60 s:\n%s", stderr.String())
	}
	return base, stop
}

// runBinary runs the built waymark binary and returns its standard output
// and standard error and its exit code.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// `waymark serve --record` captures each episode's network traffic, as
// the desktop app's recording does: an API call with a bearer token made
// by the page is in `waymark har` and `waymark export --har`, with the
// token redacted.
func TestServeRecordCapturesNetwork(t *testing.T) {
	site := apiSite(t)
	db := filepath.Join(t.TempDir(), "w.db")
	base, stop := startServeBinary(t, db, "--record", "--display", "headless")

	c := dialWS(t, base)
	wsCall(t, c, fmt.Sprintf(`{"type":"reset","data":{"start_url":%q}}`, site.URL+"/"))
	wsCall(t, c, `{"type":"step","data":{"op":"click","x":100,"y":100}}`)
	wsCall(t, c, `{"type":"step","data":{"op":"finish","text":"done"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`))
	stop()

	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{})
	st.Close()
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes (%v), want 1", len(eps), err)
	}
	id := eps[0].ID

	out, errOut, code := runBinary(t, "--db", db, "har", id)
	if code != 0 {
		t.Fatalf("waymark har %s: exit %d: %s", id, code, errOut)
	}
	checkRedactedHAR(t, "waymark har", []byte(out))

	dir := filepath.Join(t.TempDir(), "ds")
	if _, errOut, code := runBinary(t, "--db", db, "export", "--out", dir, "--license", "mit", "--include-unreviewed", "--har"); code != 0 {
		t.Fatalf("waymark export --har: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "har", id+".har"))
	if err != nil {
		t.Fatalf("export --har wrote no HAR for the episode: %v", err)
	}
	checkRedactedHAR(t, "export --har", b)
}

// checkRedactedHAR checks a HAR file of the apiSite episode: both API
// calls, each in its step, the token nowhere.
func checkRedactedHAR(t *testing.T, what string, b []byte) {
	t.Helper()
	if strings.Contains(string(b), bearerToken) {
		t.Errorf("%s: the bearer token is in the HAR", what)
	}
	var f struct {
		Log struct {
			Entries []struct {
				Step    int `json:"_step"`
				Request struct {
					URL     string
					Headers []har.NameValue
				}
				Response struct{ Status int }
			}
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v\n%.500s", what, err, b)
	}
	want := map[string]int{"/api/me": 0, "/api/orders": 1}
	for _, e := range f.Log.Entries {
		for path, step := range want {
			if !strings.HasSuffix(e.Request.URL, path) {
				continue
			}
			auth := ""
			for _, h := range e.Request.Headers {
				if strings.EqualFold(h.Name, "Authorization") {
					auth = h.Value
				}
			}
			if auth != har.Redacted || e.Step != step || e.Response.Status != 200 {
				t.Errorf("%s: %s: Authorization %q, step %d, status %d; want %q, step %d, 200", what, path, auth, e.Step, e.Response.Status, har.Redacted, step)
			}
			delete(want, path)
		}
	}
	if len(want) > 0 {
		t.Errorf("%s: %d entries, none for %v", what, len(f.Log.Entries), want)
	}
}

// `waymark serve --record --grounding on` stores each step's element
// grounding as the desktop app does (the element clicked, BrowserGym's
// observation extras) and still captures the network traffic; the agent's
// observations carry neither.
func TestServeRecordGrounding(t *testing.T) {
	site := apiSite(t)
	db := filepath.Join(t.TempDir(), "w.db")
	base, stop := startServeBinary(t, db, "--record", "--grounding", "on", "--display", "headless")

	c := dialWS(t, base)
	replies := wsCall(t, c, fmt.Sprintf(`{"type":"reset","data":{"start_url":%q}}`, site.URL+"/")) +
		wsCall(t, c, `{"type":"step","data":{"op":"click","x":100,"y":100}}`)
	if strings.Contains(replies, "axtree") || strings.Contains(replies, "bbox") {
		t.Error("an observation sent to the agent carries the grounding")
	}
	stop()

	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, err := st.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes (%v), want 1", len(eps), err)
	}
	id := eps[0].ID
	steps, err := st.Steps(t.Context(), id)
	if err != nil || len(steps) != 2 {
		t.Fatalf("%d steps (%v), want 2", len(steps), err)
	}
	if tg := steps[1].Target; tg == nil || tg.Tag != "button" || tg.Name != "orders" || tg.Bid == "" {
		t.Errorf("the click's target: %+v, want the orders button with its bid", tg)
	}
	x, err := st.StepExtras(t.Context(), id, 1)
	if err != nil || x == nil || len(x.AXTree) < 100 || !strings.Contains(x.AXTreeTxt, "orders") {
		t.Errorf("step 1's extras: %v (%v), want the accessibility tree naming the button", x != nil, err)
	}
	log, err := st.EpisodeHAR(t.Context(), id)
	if err != nil {
		t.Fatalf("the HAR of a grounded episode: %v", err)
	}
	n := 0
	for _, e := range log.Entries {
		if strings.Contains(e.Request.URL, "/api/") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d API calls captured, want 2", n)
	}
}

func TestServeGroundingFlag(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard}
	for _, c := range []struct {
		args []string
		want engine.Grounding
		err  string
	}{
		{nil, engine.GroundingOff, ""},
		{[]string{"--record", "--grounding", "on"}, engine.GroundingOn, ""},
		{[]string{"--record", "--grounding", "dom"}, engine.GroundingDOM, ""},
		{[]string{"--grounding", "on"}, "", "--grounding needs --record"},
		{[]string{"--record", "--grounding", "all"}, "", `unknown grounding "all"`},
	} {
		cfg, _, err := parseServe(env, c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("serve %v: %v, want an error with %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || cfg.Settings.Grounding != c.want {
			t.Errorf("serve %v: grounding %q (%v), want %q", c.args, cfg.Settings.Grounding, err, c.want)
		}
	}
}
