package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// serve --record answers a reset with a 100,000-character start URL by
// naming the URL and its limit, and stores no task; a 5,000-character one
// (longer than a goal may be) is recorded, its ad-hoc task's goal cut to
// fit. Before: "invalid task: the goal is 100032 characters long, at most
// 4000 are allowed" for both, of a goal the agent never gave.
func TestServeRefusesAnOverlongStartURL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<title>p</title><body>a page</body>`))
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "w.db")
	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true,
		ActionSet: action.SetDefault, Settings: engine.DefaultSettings(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	long := site.URL + "/?q=" + strings.Repeat("x", 100_000)
	_, err = c.Reset(ctx, engine.ResetOptions{StartURL: long})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the start URL is %d characters long", len(long))) || !strings.Contains(err.Error(), "at most 8192") ||
		strings.Contains(err.Error(), "goal") || len(err.Error()) > 600 {
		t.Errorf("a 100,000-character start URL: %.600v", err)
	}
	fair := site.URL + "/?q=" + strings.Repeat("y", 5000)
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: fair}); err != nil {
		t.Fatalf("a 5,000-character start URL: %.300v", err)
	}
	c.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tasks, err := st.ListTasks(ctx, dataset.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tk := range tasks {
		if tk.Source != dataset.SourceAdhoc {
			continue
		}
		n++
		if tk.StartURL != fair || !strings.HasPrefix(tk.Goal, "Browse "+site.URL+"/?q=yyy") || len(tk.Goal) > 4000 {
			t.Errorf("ad-hoc task: goal of %d bytes %.80q…, start URL of %d bytes", len(tk.Goal), tk.Goal, len(tk.StartURL))
		}
	}
	if n != 1 {
		t.Errorf("%d ad-hoc tasks stored, want the 5,000-character URL's", n)
	}
}

// play --max-steps 0 is refused as the help says (1–200); it ran with the
// default limit.
func TestPlayRefusesMaxStepsZero(t *testing.T) {
	code, stdout, stderr := runMain("play", "--start-url", "http://127.0.0.1:9/", "--display", "headless", "--max-steps", "0")
	if code != 2 || !strings.Contains(stderr, "--max-steps must be from 1 to 200") || stdout != "" {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// A manifest task whose setupUrl is a javascript: address is skipped
// saying so, not called "a relative address" (with or without --base-url).
func TestTasksImportNamesAJavascriptSetupURL(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "task-manifest.json")
	if err := os.WriteFile(file, []byte(`[{"taskId": "js.one", "goal": "Open the help page.", "setupUrl": "javascript:alert(1)", "category": "navigation"},
 {"taskId": "ok.one", "goal": "Open the wiki.", "setupUrl": "http://wiki.waymark.test/", "category": "navigation"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--base-url", "http://127.0.0.1:8765/"}} {
		args := append([]string{"--db", filepath.Join(t.TempDir(), "w.db"), "tasks", "import", file}, extra...)
		code, out, errOut := tasksRun(t, args...)
		all := out + errOut
		if !strings.Contains(all, `"javascript:alert(1)" is a javascript: address, not a web page`) || strings.Contains(all, "relative address") ||
			!strings.Contains(out, "ok.one") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", extra, code, out, errOut)
		}
	}
}

// play --server at a port nothing listens on answers at once that nothing
// is listening there and what to do; it waited 30 s in silence, then said
// the server "is not answering".
func TestPlayServerRefusedSaysSo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	code, stdout, stderr := runMain("play", "--server", "http://"+addr, "--start-url", "http://127.0.0.1:9/")
	if code != 1 || !strings.Contains(stderr, "nothing is listening at "+addr+" (connection refused)") ||
		!strings.Contains(stderr, "waymark serve --addr "+addr) || strings.Contains(stderr, "not answering") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
