package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/engine/openenv/control"
)

// serve --restore EPISODE:K --record: a person's episode is replayed up to
// step 2 in each session's browser, the agent goes on from there, and the
// store holds a branch whose first steps are the person's (with their
// actor) and then the agent's; the replayed prefix is no intervention.
// A step limit that leaves the agent nothing is refused at start.
func TestServeRestoreLetsAnAgentContinue(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>%s</title><body style="margin:0;height:2000px"><a href="/a" style="display:block;height:100px">a</a>`+
			`<a href="/b" style="display:block;height:100px">b</a>%s</body>`, r.URL.Path, r.URL.Path)
	}))
	defer site.Close()
	db := filepath.Join(t.TempDir(), "w.db")
	set := engine.DefaultSettings()
	set.ActionWait = 300 * time.Millisecond
	ctx := context.Background()

	// The person's episode: a click to /a, a click to /b, finish.
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := newEngine(ctx, engineSpec{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(st, eng, dataset.RecorderOptions{Annotator: "ann"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	parent := rec.EpisodeID()
	for _, a := range []action.Action{action.ClickAt(50, 50), action.ClickAt(50, 150), action.FinishWith("")} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	rec.Close()
	st.Close()

	tight := set
	tight.MaxSteps = 2
	if _, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true, Restore: parent + ":2", ActionSet: action.SetDefault, Settings: tight, Logf: t.Logf}); err == nil ||
		!strings.Contains(err.Error(), "leaves the agent no step after the 2 restored ones") {
		t.Fatalf("a step limit of 2 with 2 restored steps: %v", err)
	}

	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true, Restore: parent + ":2", ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	o, err := agent.ResetWith(ctx, engine.ResetOptions{}, map[string]any{"agent": "bot"})
	if err != nil {
		t.Fatal(err)
	}
	if o.URL != site.URL+"/b" {
		t.Fatalf("the agent starts at %q, want the person's step 2 page /b", o.URL)
	}
	if o, err := agent.Step(ctx, action.Action{Op: action.Back}); err != nil || o.URL != site.URL+"/a" {
		t.Fatalf("the agent's back: %v %q", err, o.URL)
	}
	if o, err := agent.Step(ctx, action.FinishWith("")); err != nil || !o.Done {
		t.Fatalf("finish: %v", err)
	}
	agent.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })

	st, err = dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	branches, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{ParentID: parent})
	if err != nil || len(branches) != 1 {
		t.Fatalf("%d branches, %v", len(branches), err)
	}
	b := branches[0]
	if b.Annotator != "agent:bot" || b.BranchStep == nil || *b.BranchStep != 2 || b.NumInterventions != 0 || b.Status != dataset.StatusFinished {
		t.Fatalf("branch %+v", b)
	}
	steps, err := st.Steps(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	var actors []string
	for _, s := range steps {
		actors = append(actors, s.Actor)
	}
	if want := []string{"agent:bot", "human:ann", "human:ann", "agent:bot", "agent:bot"}; !slices.Equal(actors, want) {
		t.Fatalf("branch actors %q, want %q", actors, want)
	}

	// The app's "Let an agent continue from here" runs the same on a free
	// loopback port; an agent connecting there starts at step 1's page.
	var agents agentServes
	defer agents.stop()
	url, err := agents.start(&Env{}, db, parent, 1, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := control.ListSessions(ctx, url); err != nil || len(list) != 0 {
		t.Fatalf("the app's serve at %s: %v %v", url, list, err)
	}
	a2, err := openenv.Dial(ctx, url, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	if o, err := a2.Reset(ctx, engine.ResetOptions{}); err != nil || o.URL != site.URL+"/a" {
		t.Fatalf("the app's serve starts the agent at %q (%v), want /a", o.URL, err)
	}
	a2.Close()
	agents.stop()
	if _, err := control.ListSessions(ctx, url); err == nil {
		t.Fatalf("the app's serve still answers after stop")
	}
}
