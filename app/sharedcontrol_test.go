package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"waymark/dataset"
	"waymark/dataset/hfexport"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/engine/openenv/control"
)

// Shared control end to end: `serve --record`, a scripted agent over /ws,
// a person taking over with `play --attach` in the middle (the agent's
// step is held, then answered with the intervention and not performed),
// the hand-back at the end of input, the agent finishing. The store holds
// the exact actor sequence and the export's actor column matches it.
func TestSharedControlWithPlayAttach(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>%s</title><body style="margin:0;height:2000px"><a href="/a" style="display:block;height:100px">a</a>`+
			`<a href="/b" style="display:block;height:100px">b</a><a href="/c" style="display:block;height:100px">c</a>%s</body>`, r.URL.Path, r.URL.Path)
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "w.db")
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true, ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	ctx := context.Background()
	agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := agent.ResetWith(ctx, engine.ResetOptions{StartURL: site.URL + "/"}, map[string]any{"agent": "bot"}); err != nil {
		t.Fatal(err)
	}
	if o, err := agent.Step(ctx, action.ClickAt(50, 50)); err != nil || o.URL != site.URL+"/a" { // link a
		t.Fatalf("agent's click: %v %q", err, o.URL)
	}
	list, err := control.ListSessions(ctx, hs.URL)
	if err != nil || len(list) != 1 || list[0].Control != "agent:bot" || list[0].Steps != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	id := list[0].ID

	// A watcher of our own sees who is in control.
	w, err := control.Watch(ctx, hs.URL, id)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitEvent := func(what string, ok func(control.WatchEvent) bool) {
		t.Helper()
		for {
			wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			ev, err := w.Next(wctx)
			cancel()
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			if ok(ev) {
				return
			}
		}
	}

	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var errOut strings.Builder
	exited := make(chan int, 1)
	go func() {
		code := Main([]string{"play", "--server", hs.URL, "--attach", id, "--as", "ann"}, stdinR, stdoutW, &errOut)
		stdoutW.Close()
		exited <- code
	}()
	waitEvent("ann in control", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })

	type result struct {
		o   engine.Observation
		err error
	}
	held := make(chan result, 1)
	go func() {
		o, err := agent.Step(ctx, action.ClickAt(50, 250)) // link c: must not be performed
		held <- result{o, err}
	}()
	waitEvent("the agent's step held", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })

	out := bufio.NewScanner(stdoutR)
	for i, line := range []string{`{"op":"click","x":50,"y":150}`, `{"op":"scroll","dy":300}`} {
		if _, err := io.WriteString(stdinW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !out.Scan() {
			t.Fatalf("play printed no answer to line %d: %s", i+1, errOut.String())
		}
		if want := fmt.Sprintf(`"step":%d,`, 2+i); !strings.Contains(out.Text(), want) || !strings.Contains(out.Text(), `"error":""`) {
			t.Fatalf("line %d answered %s, want …%s…", i+1, out.Text(), want)
		}
		if i == 0 && !strings.Contains(out.Text(), site.URL+"/b") {
			t.Fatalf("the person's click: %s", out.Text())
		}
	}
	select {
	case r := <-held:
		t.Fatalf("the agent's step was answered while the person held control: %+v %v", r.o.URL, r.err)
	default:
	}
	stdinW.Close() // end of input: hand back
	if code := <-exited; code != 0 {
		t.Fatalf("play --attach exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "control handed back") {
		t.Fatalf("play --attach said: %s", errOut.String())
	}
	r := <-held
	if r.err != nil || string(r.o.Error) != openenv.ErrorNotExecuted || r.o.URL != site.URL+"/b" || r.o.Done {
		t.Fatalf("the held step's answer: url %q error %q done %v err %v", r.o.URL, r.o.Error, r.o.Done, r.err)
	}
	if r.o.Step != 3 {
		t.Fatalf("the agent's client counts %d steps, want 3 (the person's two)", r.o.Step)
	}
	if o, err := agent.Step(ctx, action.Action{Op: action.Back}); err != nil || o.URL != site.URL+"/a" || o.Error != "" {
		t.Fatalf("the agent's next step (back): %v %q %q", err, o.URL, o.Error)
	}
	if o, err := agent.Step(ctx, action.FinishWith("done")); err != nil || !o.Done {
		t.Fatalf("finish: %v", err)
	}
	agent.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })

	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("%d episodes, %v", len(eps), err)
	}
	ep := eps[0]
	steps, err := st.Steps(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actors, urls []string
	for _, s := range steps {
		actors = append(actors, s.Actor)
		urls = append(urls, strings.TrimPrefix(s.URL, site.URL))
	}
	wantActors := []string{"agent:bot", "agent:bot", "human:ann", "human:ann", "agent:bot", "agent:bot"}
	if !slices.Equal(actors, wantActors) || !slices.Equal(urls, []string{"/", "/a", "/b", "/b", "/a", "/a"}) {
		t.Fatalf("stored actors %q urls %q; want actors %q", actors, urls, wantActors)
	}
	if ep.Annotator != "agent:bot" || ep.NumInterventions != 1 || ep.Status != dataset.StatusFinished || ep.NumSteps != 5 {
		t.Fatalf("episode %+v", ep)
	}

	dir := filepath.Join(t.TempDir(), "ds")
	if _, err := hfexport.Export(ctx, st, hfexport.Options{Out: dir, License: "cc-by-4.0", IncludeUnreviewed: true}, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "steps", "*.parquet"))
	var exported []string
	for _, p := range files {
		type row struct {
			StepIndex *int64  `parquet:"step_index"`
			Actor     *string `parquet:"actor"`
		}
		rows, err := parquet.ReadFile[row](p)
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(rows, func(a, b row) int { return int(*a.StepIndex - *b.StepIndex) })
		for _, r := range rows {
			exported = append(exported, *r.Actor)
		}
	}
	if !slices.Equal(exported, wantActors[1:]) {
		t.Fatalf("exported actors %q, want %q", exported, wantActors[1:])
	}
	card, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(card), "in 1 episode a person took over from the agent (1 takeover in all, 2 steps by the person)") {
		t.Fatalf("card:\n%s", card)
	}
}
