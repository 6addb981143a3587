package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/browser/browsertest"
	"waymark/ui"
)

// startRemoteChromium starts a Chromium as its own process with a DevTools
// port on 127.0.0.1, as a browser farm runs it, and returns its
// http://127.0.0.1:PORT address.
func startRemoteChromium(t *testing.T) string {
	t.Helper()
	path := browsertest.LookChromium()
	if path == "" {
		t.Skip("no Chromium to serve as the remote browser")
	}
	return browsertest.StartRemote(t, browsertest.RemoteOptions{Path: path, NoSandbox: os.Geteuid() == 0}).HTTP
}

// `play --browser-provider` and the desktop app's "Remote browser" setting
// run their episodes in a Chromium elsewhere. One remote Chromium serves
// the subtests; no local Chromium can start (PATH has none).
func TestRemoteBrowserPlayAndDesktop(t *testing.T) {
	farm := startRemoteChromium(t)
	t.Setenv("PATH", t.TempDir()) // a local Chromium (or Xvfb) cannot be what runs the episodes
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/next" {
			fmt.Fprintf(w, `<title>next %t</title><body>next page</body>`, strings.Contains(r.UserAgent(), "Headless"))
			return
		}
		fmt.Fprint(w, `<title>start</title><body style="margin:0"><a href="/next" style="display:block;width:800px;height:600px">go</a></body>`)
	}))
	defer ts.Close()

	play := func(args ...string) ([]map[string]any, string, int) {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"play", "--start-url", ts.URL + "/", "--max-steps", "5"}, args...),
			strings.NewReader(`{"op":"click","x":400,"y":300}`+"\n"), &stdout, &stderr)
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil {
				lines = append(lines, m)
			}
		}
		return lines, stderr.String(), code
	}

	t.Run("play", func(t *testing.T) {
		lines, stderr, code := play("--browser-provider", farm)
		if code != 0 || len(lines) != 2 {
			t.Fatalf("exit %d, %d lines: %v\n%s", code, len(lines), lines, stderr)
		}
		if lines[0]["title"] != "start" || lines[1]["title"] != "next true" || lines[1]["url"] != ts.URL+"/next" {
			t.Fatalf("observations %v", lines)
		}
	})
	t.Run("play --obs browsergym", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"play", "--obs", "browsergym", "--start-url", ts.URL + "/", "--browser-provider",
			fmt.Sprintf(`{"remote_cdp":{"endpoints":[%q],"lease_ttl":60}}`, farm)},
			strings.NewReader("mouse_click(400, 300)\n"), &stdout, &stderr)
		out := stdout.String()
		if code != 0 || !strings.Contains(out, `"url":"`+ts.URL+`/next"`) {
			t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
		}
	})
	t.Run("play refuses what cannot work", func(t *testing.T) {
		_, stderr, code := play("--browser-provider", "http://127.0.0.1:1")
		if code == 0 || !strings.Contains(stderr, "no remote browser endpoint could take a session") {
			t.Fatalf("an unreachable farm: exit %d: %s", code, stderr)
		}
		_, stderr, code = play("--browser-provider", farm, "--server", "http://127.0.0.1:8000")
		if code == 0 || !strings.Contains(stderr, "--server and --browser-provider cannot go together") {
			t.Fatalf("with --server: exit %d: %s", code, stderr)
		}
		_, stderr, code = play("--browser-provider", "farm:9222")
		if code == 0 || !strings.Contains(stderr, "neither a JSON object, a readable file nor a CDP address") {
			t.Fatalf("a bad value: exit %d: %s", code, stderr)
		}
	})
	t.Run("desktop app records a practice task with the live view", func(t *testing.T) {
		store, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if err := ensurePracticeTasks(store); err != nil {
			t.Fatal(err)
		}
		sites, err := practice.Start()
		if err != nil {
			t.Fatal(err)
		}
		defer sites.Close()
		a := test.NewTempApp(t)
		a.Settings().SetTheme(theme.DefaultTheme()) // the test theme lacks the fonts the screens use
		s := ui.LoadSettings(a.Preferences())
		s.Annotator, s.RemoteBrowser, s.Display = "Ada", farm, "xvfb" // Xvfb is not on PATH: unused on a remote browser
		s.Save(a.Preferences())
		g := buildGUI(&Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, DBPath: store.Path()}, guiFlags{har: true}, a, store, sites)
		task, err := resolveTask(store, guiFlags{startTask: "wiki-varnholm-population"})
		if err != nil {
			t.Fatal(err)
		}
		o, err := g.openEpisode(context.Background(), task, ui.LoadSettings(a.Preferences()))
		if err != nil {
			t.Fatal(err)
		}
		defer o.Engine.Close()
		if o.Frames == nil {
			t.Fatal("no live view for the remote browser")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		obs, err := o.Engine.Reset(ctx, engine.ResetOptions{StartURL: task.StartURL})
		if err != nil {
			t.Fatal(err)
		}
		if obs.URL != "http://wiki.waymark.test/" || obs.Title != "Kaldopedia, the free encyclopedia of Kaldoria" {
			t.Fatalf("the practice task on the remote browser: url %q, title %q, error %q", obs.URL, obs.Title, obs.Error)
		}
		select {
		case f := <-o.Frames:
			if len(f.JPEG) < 100 || f.Width != 800 {
				t.Fatalf("live frame of %d bytes, width %d", len(f.JPEG), f.Width)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("no live frame from the remote browser in 15 s")
		}
		id := o.Engine.(*dataset.Recorder).EpisodeID()
		ep, err := store.GetEpisode(ctx, id)
		if err != nil || !strings.Contains(ep.EngineJSON, `"remote_cdp"`) || !strings.Contains(ep.EngineJSON, "127.0.0.1") {
			t.Fatalf("episode %s engine %s (%v)", id, ep.EngineJSON, err)
		}
	})
}
