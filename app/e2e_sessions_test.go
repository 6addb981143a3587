package app

import (
	"context"
	"math"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// The Sessions tab of the real app under Xvfb: `gui --watch URL` watches
// an agent's live session of a `serve --record`; Ctrl+Shift+T takes over,
// a real click on the live view reaches the page as the person's step
// (stored as human:NAME) while the agent's step is held, Ctrl+Shift+H hands
// back and the agent's held step is answered without being performed.
func TestE2ESessionsTakeOver(t *testing.T) {
	needTools(t)
	display := startXvfb(t)
	rs := newReportServer(t, 0)
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	db := filepath.Join(t.TempDir(), "server.db")
	sv, err := newServing(&Env{DBPath: db}, serveConfig{MaxSessions: 1, Record: true, ActionSet: action.SetDefault, Settings: set,
		Display: engine.DisplayHeadless, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	t.Cleanup(func() { sv.Close(); hs.Close() })
	ctx := context.Background()
	agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{MessageTimeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := agent.ResetWith(ctx, engine.ResetOptions{StartURL: rs.URL + "/"}, map[string]any{"agent": "bot"}); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Step(ctx, action.Action{Op: action.Wait}); err != nil {
		t.Fatal(err)
	}

	g := launchGUI(t, display, guiOptions{args: []string{"--watch", hs.URL}})
	m := g.waitLine(`sessions liveview at ([\d.]+),([\d.]+) size 800x600 scale ([\d.]+)`, 90*time.Second)
	wx, wy := g.windowPos()
	vx, _ := strconv.ParseFloat(m[1], 64)
	vy, _ := strconv.ParseFloat(m[2], 64)
	g.viewX, g.viewY = float64(wx)+vx, float64(wy)+vy
	g.waitLine(`sessions control agent:bot `, 30*time.Second)

	// Watching only: a click reaches nothing.
	g.clickPage(200, 200)
	g.xdo("key", "ctrl+shift+t")
	g.waitLine(`sessions control human:`+e2eAnnotator+` `, 30*time.Second)
	held := make(chan engine.Observation, 1)
	go func() {
		o, err := agent.Step(ctx, action.ClickAt(10, 10))
		if err != nil {
			t.Error(err)
		}
		held <- o
	}()
	g.waitLine(`sessions control human:`+e2eAnnotator+` waiting=true`, 30*time.Second)
	g.clickPage(500, 300)
	g.waitLine(`sessions step 2 by human:`+e2eAnnotator, 60*time.Second)
	g.xdo("key", "ctrl+shift+h")
	o := <-held
	if string(o.Error) != openenv.ErrorNotExecuted {
		t.Fatalf("the agent's held step: error %q", o.Error)
	}
	landed := rs.all()
	if len(landed) != 1 || math.Abs(landed[0].X-500) > 0 || math.Abs(landed[0].Y-300) > 0 {
		t.Fatalf("the page saw %+v, want only the person's click at 500,300", landed)
	}
	g.quit()
	agent.Close()
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, _ := st.ListEpisodes(ctx, dataset.EpisodeFilter{})
	if len(eps) != 1 {
		t.Fatalf("%d episodes", len(eps))
	}
	steps, _ := st.Steps(ctx, eps[0].ID)
	var actors []string
	for _, s := range steps {
		actors = append(actors, s.Actor)
	}
	if want := []string{"agent:bot", "agent:bot", "human:" + e2eAnnotator}; !slices.Equal(actors, want) || steps[2].Action.String() != "click 500,300" {
		t.Fatalf("stored actors %q (step 2 %v), want %q", actors, steps[2].Action, want)
	}
}
