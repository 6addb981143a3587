package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
)

func TestPlay(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/next" {
			fmt.Fprint(w, `<title>next</title><body>next page</body>`)
			return
		}
		fmt.Fprint(w, `<title>start</title><body style="margin:0"><a href="/next" style="display:block;width:800px;height:600px">go</a></body>`)
	}))
	defer ts.Close()
	shots := t.TempDir()
	input := strings.Join([]string{
		`{"op":"click","x":400}`,
		``,
		`{"metadata":{},"op":"click","x":400,"y":300,"text":"","dy":0}`,
		" \t ",
		`# a comment`,
		`{"op":"finish","text":"done it"}`,
		`{"op":"wait"}`, // after done: never read
	}, "\n")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"play", "--start-url", ts.URL + "/", "--shots", shots, "--display", "headless", "--max-steps", "5"},
		strings.NewReader(input), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	// One answer per line read: a blank or comment line is refused too (no
	// step), so an agent waiting for a reply to each line never hangs.
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout.String())
	}
	var obs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		obs = append(obs, m)
	}
	if obs[0]["step"] != 0.0 || obs[0]["title"] != "start" || obs[0]["done"] != false {
		t.Errorf("reset line %v", obs[0])
	}
	if obs[1]["error"] != "click needs x and y" || obs[1]["line"] != 1.0 {
		t.Errorf("refusal line %v", obs[1])
	}
	if obs[2]["line"] != 2.0 || obs[2]["error"] != `line 2 is empty: nothing was done (write one JSON action per line; {"op":"wait"} observes the page again)` {
		t.Errorf("blank line's refusal %v", obs[2])
	}
	if obs[3]["step"] != 1.0 || obs[3]["url"] != ts.URL+"/next" || obs[3]["title"] != "next" {
		t.Errorf("click line %v", obs[3])
	}
	if obs[4]["line"] != 4.0 || obs[4]["error"] != `line 4 is empty: nothing was done (write one JSON action per line; {"op":"wait"} observes the page again)` {
		t.Errorf("whitespace line's refusal %v", obs[4])
	}
	if obs[5]["line"] != 5.0 || obs[5]["error"] != "line 5 is a comment: nothing was done" {
		t.Errorf("comment line's refusal %v", obs[5])
	}
	if obs[6]["done"] != true || obs[6]["end_reason"] != "finished" || obs[6]["answer"] != "done it" || obs[6]["step"] != 2.0 {
		t.Errorf("finish line %v", obs[6])
	}
	for _, o := range []map[string]any{obs[0], obs[3], obs[6]} {
		p, _ := o["screenshot"].(string)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("screenshot %q: %v", p, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			t.Errorf("screenshot %s: %v %v", p, err, img.Bounds())
		}
		if _, ok := o["ms"].(float64); !ok {
			t.Errorf("no ms in %v", o)
		}
	}
}

func TestPlayUsage(t *testing.T) {
	for _, args := range [][]string{
		{"play"},
		{"play", "--start-url", "ftp://x/"},
		{"play", "--start-url", "http://127.0.0.1/", "--max-steps", "500"},
		{"play", "--start-url", "http://127.0.0.1/", "--display", "wayland"},
		{"play", "--start-url", "http://127.0.0.1/", "--action-set", "huge"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// `waymark play --restore EPISODE:K` over a real Chromium: an episode
// recorded on a local page is restored at step 2 (its start page and two
// clicks replayed and checked, marked restored), then the actions on
// standard input go on from there; once the page after the first click
// says something else, the restore stops at step 1 with exit 1 and reads
// nothing.
func TestPlayRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	var changed atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/b":
			msg := "Second page"
			if changed.Load() {
				msg = "Sorry, this page has moved."
			}
			fmt.Fprintf(w, `<title>b</title><body style="margin:0;font:20px sans-serif"><h1>%s</h1><a href="/c" style="display:block;width:800px;height:400px">on</a></body>`, msg)
		case "/c":
			fmt.Fprint(w, `<title>c</title><body style="margin:0"><a href="/d" style="display:block;width:800px;height:600px">last</a></body>`)
		case "/d":
			fmt.Fprint(w, `<title>d</title><body>the end</body>`)
		default:
			fmt.Fprint(w, `<title>a</title><body style="margin:0"><a href="/b" style="display:block;width:800px;height:600px">start</a></body>`)
		}
	}))
	defer site.Close()

	db, id := recordHeadless(t, "", site.URL+"/", action.ClickAt(400, 300), action.ClickAt(400, 200), action.ClickAt(400, 300), action.FinishWith("done"))

	input := `{"op":"click","x":400,"y":300}` + "\n" + `{"op":"finish","text":"went on"}` + "\n"
	var stdout, stderr bytes.Buffer
	code := Main([]string{"play", "--restore", id + ":2", "--db", db, "--display", "headless"}, strings.NewReader(input), &stdout, &stderr)
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("restore: exit %d: %s", code, stderr.String())
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 5 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, want := range []struct {
		title    string
		restored bool
	}{{"a", true}, {"b", true}, {"c", true}, {"d", false}, {"d", false}} {
		if lines[i]["title"] != want.title || (lines[i]["restored"] == true) != want.restored || lines[i]["step"] != float64(i) {
			t.Errorf("line %d: %v, want title %q restored %v", i, lines[i], want.title, want.restored)
		}
	}
	if lines[4]["done"] != true || lines[4]["answer"] != "went on" {
		t.Errorf("last line %v", lines[4])
	}
	if !strings.Contains(stderr.String(), "restored at step 2") || !strings.Contains(stderr.String(), "warning: the start URL") {
		t.Errorf("stderr %q", stderr.String())
	}

	changed.Store(true)
	stdout.Reset()
	stderr.Reset()
	code = Main([]string{"--db", db, "play", "--display", "headless", "--restore", id + ":2"}, strings.NewReader(input), &stdout, &stderr)
	t.Logf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	if code != 1 || !strings.Contains(stderr.String(), "cannot restore episode "+id+" at step 2: step 1 did not replay as recorded") ||
		!strings.Contains(stderr.String(), "nothing was read from standard input") {
		t.Fatalf("diverged restore: exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 2 || strings.Count(stdout.String(), `"restored":true`) != 1 || !strings.Contains(stdout.String(), `"title":"b"`) {
		t.Errorf("diverged restore printed %d lines (the diverged step's not marked restored):\n%s", n, stdout.String())
	}
}

func TestPlayRestoreUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	task, err := st.AddTask(t.Context(), dataset.Task{Goal: "g", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := st.CreateEpisode(t.Context(), dataset.Episode{TaskID: task.ID, Annotator: "a"})
	if err != nil {
		t.Fatal(err)
	}
	a := action.ClickAt(1, 1)
	for _, s := range []dataset.Step{{EpisodeID: ep.ID, Index: 0, URL: "http://127.0.0.1:9/"}, {EpisodeID: ep.ID, Index: 1, Action: &a, URL: "http://127.0.0.1:9/"}} {
		if err := st.AppendStep(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--restore", "abc"}, "no colon before the step"},
		{[]string{"play", "--restore", ":3"}, "no episode id"},
		{[]string{"play", "--restore", "abc:"}, "no step after the colon"},
		{[]string{"play", "--restore", "abc:x"}, `the step "x" is not a whole number`},
		{[]string{"play", "--restore", "abc:-1"}, `the step "-1" is not a whole number`},
		{[]string{"play", "--restore", "abc:1", "--start-url", "http://127.0.0.1/"}, "--start-url cannot go with --restore"},
		{[]string{"play", "--restore", "abc:1", "--action-set", "extended"}, "--action-set cannot go with --restore"},
		{[]string{"play", "--start-url", "http://127.0.0.1/", "--db", db}, "--db is only for --restore"},
		{[]string{"play", "--restore", "nope:1", "--db", db}, `no episode "nope"`},
		{[]string{"play", "--restore", ep.ID + ":2", "--db", db}, "has no step 2 (its steps are 0–1)"},
		{[]string{"play", "--restore", ep.ID + ":1", "--db", db, "--max-steps", "1"}, "a step limit of 1 leaves no step after the 1 restored ones"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(c.args, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) || !strings.Contains(stderr.String(), "usage") {
			t.Errorf("%q: exit %d, stderr %q (want %q)", c.args, code, stderr.String(), c.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"play", "--restore", "x:1", "--db", filepath.Join(t.TempDir(), "none.db")}, strings.NewReader(""), &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "no Waymark database") {
		t.Errorf("missing database: exit %d, %q", code, stderr.String())
	}
}
