package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// `waymark replay` on an episode recorded through the Recorder over a real
// Chromium: exit 0 and an all-match report while the page is unchanged,
// exit 1 and the divergence at the click once the page after it says
// something else; usage errors exit 2.
func TestReplayCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	var changed atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/next" {
			msg := "Thank you, the order is placed."
			if changed.Load() {
				msg = "Sorry, the teapot is sold out."
			}
			fmt.Fprintf(w, `<title>next</title><body style="font:20px sans-serif"><h1>%s</h1></body>`, msg)
			return
		}
		fmt.Fprint(w, `<title>start</title><body style="margin:0"><a href="/next" style="display:block;width:800px;height:600px">order</a></body>`)
	}))
	defer site.Close()

	db, id := recordHeadless(t, "", site.URL+"/", action.ClickAt(400, 300), action.FinishWith("placed"))
	ctx := context.Background()

	report := filepath.Join(t.TempDir(), "r.json")
	readReport := func() map[string]any {
		t.Helper()
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	code, stdout, stderr := runMain("replay", id, "--db", db, "--display", "headless", "--report", report)
	t.Logf("exit %d\n%s%s", code, stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "OK: all 3 steps matched") || !strings.Contains(stdout, "Warning: the start URL") {
		t.Fatalf("unchanged page: exit %d\n%s%s", code, stdout, stderr)
	}
	m := readReport()
	steps, _ := m["steps"].([]any)
	if m["ok"] != true || m["episode_id"] != id || m["matched"] != 3.0 || len(steps) != 3 || m["first_divergence"] != nil {
		t.Fatalf("report %v", m)
	}
	if s1, _ := steps[1].(map[string]any); s1["action"] != "click 400,300" || s1["verdict"] != "match" || s1["score"] == nil {
		t.Errorf("step 1 %v", s1)
	}

	changed.Store(true)
	code, stdout, stderr = runMain("--db", db, "replay", "--display", "headless", "--report", report, id)
	t.Logf("exit %d\n%s%s", code, stdout, stderr)
	if code != 1 || !strings.Contains(stdout, "first divergence at step 1") || !strings.Contains(stderr, "did not match") {
		t.Fatalf("changed page: exit %d\n%s%s", code, stdout, stderr)
	}
	m = readReport()
	steps, _ = m["steps"].([]any)
	if m["ok"] != false || m["first_divergence"] != 1.0 || len(steps) != 2 {
		t.Fatalf("report %v", m)
	}
	if s1, _ := steps[1].(map[string]any); s1["verdict"] != "diverged" || !strings.HasPrefix(s1["why"].(string), "screenshot: ") {
		t.Errorf("step 1 %v", s1)
	}

	// Both runs are stored beside the episode, newest first, with the
	// warning; the episode is unchanged.
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.ReplayRuns(ctx, id)
	if err != nil || len(runs) != 2 {
		t.Fatalf("stored runs %+v %v", runs, err)
	}
	if r := runs[0]; r.OK() || r.FirstDiverged == nil || *r.FirstDiverged != 1 || r.Matched != 1 || r.Compared != 2 || r.Error != "step 1 diverged" ||
		r.Display != "headless" || len(r.Steps) != 2 || r.Steps[1].Verdict != "diverged" || !strings.Contains(r.Warning, "cannot restore") {
		t.Errorf("newest run %+v", r)
	}
	if r := runs[1]; !r.OK() || r.Matched != 3 || len(r.Steps) != 3 || r.Steps[1].Score == nil || r.EndedAt == nil {
		t.Errorf("first run %+v", r)
	}
	if ep, err := st.GetEpisode(ctx, id); err != nil || ep.NumSteps != 2 || ep.Status != dataset.StatusFinished {
		t.Errorf("episode after the replays %+v %v", ep, err)
	}
}

// An episode recorded on a practice site, whose server then ran on another
// port, replays with every step matching and no warning: stored URLs name
// the practice hosts, never the port.
func TestReplayPracticeEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	start := practice.Tasks()[0].StartURL
	db, id := recordHeadless(t, sites.HostRules(), start, action.ScrollBy(300), action.FinishWith(""))
	ctx := context.Background()
	sites.Close() // the replay starts its own, on another port

	code, stdout, stderr := runMain("--db", db, "replay", id, "--display", "headless")
	t.Logf("exit %d\n%s%s", code, stdout, stderr)
	if code != 0 || strings.Contains(stdout, "Warning") || !strings.Contains(stdout, "OK: all 3 steps matched") || !strings.Contains(stdout, start) {
		t.Fatalf("practice episode: exit %d\n%s%s", code, stdout, stderr)
	}
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if runs, err := st.ReplayRuns(ctx, id); err != nil || len(runs) != 1 || !runs[0].OK() || runs[0].Warning != "" || !strings.Contains(stdout, "Stored as replay run "+runs[0].ID) {
		t.Errorf("stored runs %+v %v", runs, err)
	}
}

func TestReplayUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, args := range [][]string{
		{"replay"},
		{"replay", "a", "b"},
		{"replay", "no-such-episode", "--db", db},
		{"replay", "x", "--display", "tv"},
		{"replay", "x", "--until", "-1"},
	} {
		code, _, stderr := runMain(args...)
		if code != 2 || !strings.Contains(stderr, "waymark replay: usage: ") {
			t.Errorf("%q: exit %d, %q", args, code, stderr)
		}
	}
}

// recordHeadless records the actions from startURL through the Recorder in a
// headless Chromium (hostRules as --host-resolver-rules, if any) into a new
// store file, and returns the file and the episode's id, all closed.
func recordHeadless(t *testing.T, hostRules, startURL string, actions ...action.Action) (db, id string) {
	t.Helper()
	return recordWith(t, engine.DefaultSettings(), hostRules, startURL, actions...)
}

// recordWith is recordHeadless with the engine's settings (headless
// whatever set says).
func recordWith(t *testing.T, set engine.Settings, hostRules, startURL string, actions ...action.Action) (db, id string) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "w.db")
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	set.Display = engine.DisplayHeadless
	eng, err := browser.New(browser.Options{Settings: set, HostRules: hostRules})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(st, eng, dataset.RecorderOptions{Annotator: "alice"})
	defer rec.Close() // closes the engine too
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: startURL}); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	return db, rec.EpisodeID()
}

// `waymark replay` with no --display and no $WAYMARK_DISPLAY replays in the
// mode the episode was recorded in (headless here, on a machine with Xvfb,
// which the automatic choice would take) and warns of no display change.
func TestReplayDefaultsToTheRecordedDisplay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb: the automatic choice is headless anyway")
	}
	t.Setenv(engine.EnvDisplay, "")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>start</title><body style="font:20px sans-serif"><h1>Hello</h1></body>`)
	}))
	defer site.Close()
	db, id := recordHeadless(t, "", site.URL+"/", action.ScrollBy(0))
	code, stdout, stderr := runMain("replay", id, "--db", db)
	t.Logf("exit %d\n%s%s", code, stdout, stderr)
	if code != 0 || strings.Contains(stdout, "replaying") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if runs, err := st.ReplayRuns(context.Background(), id); err != nil || len(runs) != 1 || runs[0].Display != engine.DisplayHeadless {
		t.Fatalf("stored runs %+v %v", runs, err)
	}
}
