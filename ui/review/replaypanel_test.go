package review

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/ui"
	"waymark/ui/uitest"
)

// Replay in the Review player, over a real Chromium: an episode recorded
// on a local page replays in the background with its progress shown, every
// step matches and the run is stored and listed; once the page after the
// click says something else, the next replay diverges there and the step's
// verdict says why and shows the step; Cancel stops a replay (stored as
// cancelled); closing the screen stops one without storing or showing
// anything, and closes its browser.
func TestReplayPanel(t *testing.T) {
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
			fmt.Fprintf(w, `<title>next</title><body style="font:20px sans-serif"><h1>%s</h1><a href="/" style="display:block;height:300px">again</a></body>`, msg)
			return
		}
		fmt.Fprint(w, `<title>start</title><body style="margin:0"><a href="/next" style="display:block;width:800px;height:600px">order</a></body>`)
	}))
	defer site.Close()

	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	recEng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, recEng, dataset.RecorderOptions{Annotator: "alice"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(400, 300), action.ScrollBy(100), action.FinishWith("placed")} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	id := rec.EpisodeID()
	rec.Close()
	recEng.Close()

	test.NewTempApp(t)
	loop := &uitest.Loop{}
	tab := New(&ui.Context{Store: s, User: func() string { return "rita" }, Bridge: loop.Bridge()})
	t.Cleanup(tab.Close)
	var mu sync.Mutex
	var opened []engine.Engine
	tab.SetReplay(ReplayOptions{Open: func(ctx context.Context, rec *replay.Recording) (engine.Engine, error) {
		eng, err := browser.New(browser.Options{Settings: rec.Settings(set)})
		if err == nil {
			mu.Lock()
			opened = append(opened, eng)
			mu.Unlock()
		}
		return eng, err
	}})
	t.Cleanup(func() {
		for _, e := range opened {
			e.Close()
		}
	})
	w := test.NewTempWindow(t, tab.Content())
	w.Resize(fyne.NewSize(1700, 1000))
	if mw := tab.Content().MinSize().Width; mw > ui.MaxTabWidth {
		t.Errorf("the Review tab asks for %v, more than %v", mw, ui.MaxTabWidth)
	}
	q, err := s.ReviewQueue(ctx, dataset.QueueFilter{Reviewer: "rita"})
	if err != nil || len(q.Items) != 1 || q.Items[0].EpisodeID != id {
		t.Fatalf("queue %+v %v", q.Items, err)
	}
	tab.openItem(q.Items[0])
	r := &tab.player.replay

	// wait runs the hand-offs until the replay has ended and returns the
	// statuses seen meanwhile.
	wait := func() []string {
		t.Helper()
		var seen []string
		deadline := time.Now().Add(90 * time.Second)
		for r.running && time.Now().Before(deadline) {
			if loop.Run() > 0 && (len(seen) == 0 || seen[len(seen)-1] != r.status.Text) {
				seen = append(seen, r.status.Text)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if r.running {
			t.Fatalf("the replay did not end within 90 s; statuses %q", seen)
		}
		r.wg.Wait()
		loop.Run()
		return seen
	}
	verdictRow := func(i int) (string, string) {
		o := r.verdicts.CreateItem()
		r.verdicts.UpdateItem(i, o)
		a, b := rowLabels(o)
		return a.Text, b.Text
	}

	test.Tap(r.btn)
	if !r.running || r.cancelBtn.Disabled() || !r.startBtn.Disabled() || tab.side.Selected() != r.tab {
		t.Fatalf("after Replay: running %v, cancel disabled %v, tab %q", r.running, r.cancelBtn.Disabled(), tab.side.Selected().Text)
	}
	seen := wait()
	t.Logf("statuses %q", seen)
	progressed := 0
	for _, st := range seen {
		if strings.HasPrefix(st, "Replaying: step ") {
			progressed++
		}
	}
	if progressed < 2 {
		t.Errorf("progress shown %d times: %q", progressed, seen)
	}
	if r.status.Text != "Every step matched (4 of 4)." || len(r.runs) != 1 || r.shown != 0 || r.verdicts.Length() != 4 || !r.cancelBtn.Disabled() || r.startBtn.Disabled() {
		t.Fatalf("after the replay: %q, %d runs, shown %d, %d verdicts", r.status.Text, len(r.runs), r.shown, r.verdicts.Length())
	}
	if a, b := verdictRow(1); a != "1 · click 400,300" || !strings.HasPrefix(b, "✓ match · score 1.00000") {
		t.Errorf("verdict row 1: %q %q", a, b)
	}
	// The verdicts show beside the stored steps too, in the player's list.
	stepRow := func(i int) string {
		o := tab.player.stepList.CreateItem()
		tab.player.stepList.UpdateItem(i, o)
		for _, c := range o.(*fyne.Container).Objects {
			if texts, ok := c.(*fyne.Container); ok {
				return texts.Objects[1].(*widget.Label).Text
			}
		}
		return ""
	}
	if row := stepRow(1); !strings.Contains(row, "replay ✓ match") {
		t.Errorf("player's step row 1 after a matching replay: %q", row)
	}
	if !r.warning.Visible() || !strings.Contains(r.warning.Text, "cannot restore") {
		t.Errorf("warning %q (visible %v)", r.warning.Text, r.warning.Visible())
	}

	changed.Store(true)
	test.Tap(r.btn)
	wait()
	runs, err := s.ReplayRuns(ctx, id)
	if err != nil || len(runs) != 2 || len(r.runs) != 2 || r.shown != 0 || r.runs[0].ID != runs[0].ID {
		t.Fatalf("runs %+v %v; panel %d runs, shown %d", runs, err, len(r.runs), r.shown)
	}
	if runs[0].OK() || runs[0].FirstDiverged == nil || *runs[0].FirstDiverged != 1 || !runs[1].OK() {
		t.Errorf("stored runs %+v", runs)
	}
	if !strings.Contains(r.status.Text, "1 of 2 compared steps matched; the first divergence is at step 1") || r.status.Importance != widget.DangerImportance {
		t.Errorf("status %q", r.status.Text)
	}
	_, b := verdictRow(1)
	if !strings.HasPrefix(b, "✗ diverged · score 0.") || !strings.Contains(b, "pixels differ") {
		t.Errorf("diverged row %q", b)
	}
	if row := stepRow(1); !strings.Contains(row, "replay ✗ diverged") {
		t.Errorf("player's step row 1 after a diverged replay: %q", row)
	}
	r.verdicts.Select(1)
	if !strings.Contains(r.detail.Text, "screenshot:") || tab.player.cur != 1 || !tab.player.after {
		t.Errorf("selecting the verdict: detail %q, player at %d (after %v)", r.detail.Text, tab.player.cur, tab.player.after)
	}
	// The first run, from the list of past replays.
	r.runsList.Select(1)
	if r.shown != 1 || r.verdicts.Length() != 4 {
		t.Errorf("past run: shown %d, %d verdicts", r.shown, r.verdicts.Length())
	}
	if row := stepRow(1); !strings.Contains(row, "replay ✓ match") {
		t.Errorf("player's step row 1 showing the first (matching) run: %q", row)
	}
	if row := func() string {
		o := r.runsList.CreateItem()
		r.runsList.UpdateItem(0, o)
		_, b := rowLabels(o)
		return b.Text
	}(); !strings.Contains(row, "first divergence at step 1") {
		t.Errorf("runs row 0: %q", row)
	}

	// startAndWaitForStep0 starts a replay and runs the hand-offs until
	// it shows the start page's verdict (three steps are left to run).
	startAndWaitForStep0 := func() {
		t.Helper()
		test.Tap(r.btn)
		deadline := time.Now().Add(60 * time.Second)
		for len(r.live.Steps) == 0 && time.Now().Before(deadline) {
			loop.Run()
			time.Sleep(5 * time.Millisecond)
		}
		if len(r.live.Steps) == 0 {
			t.Fatal("the replay showed no step within 60 s")
		}
	}

	// Cancel at once: nothing ran, nothing is stored.
	test.Tap(r.btn)
	test.Tap(r.cancelBtn)
	wait()
	if runs, _ = s.ReplayRuns(ctx, id); len(runs) != 2 || len(r.runs) != 2 || r.startBtn.Disabled() || !strings.HasPrefix(r.status.Text, "Cancelled before the replay started") {
		t.Errorf("after an early Cancel: %d runs (%q)", len(runs), r.status.Text)
	}
	// Cancel after the start page: the steps so far are stored.
	startAndWaitForStep0()
	test.Tap(r.cancelBtn)
	wait()
	runs, _ = s.ReplayRuns(ctx, id)
	if len(runs) != 3 || !strings.HasPrefix(runs[0].Error, "cancelled after step ") || len(runs[0].Steps) == 0 || !strings.Contains(r.status.Text, "Stopped: cancelled after step") {
		t.Errorf("after Cancel: %d runs, newest %+v, status %q", len(runs), runs[0], r.status.Text)
	}

	// Close the screen while a replay runs.
	startAndWaitForStep0()
	tab.Close()
	stopped := make(chan struct{})
	go func() { r.wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("the replay did not stop after Close")
	}
	shown := len(r.live.Steps)
	loop.Run()
	if len(r.live.Steps) != shown || !r.running {
		t.Errorf("the panel changed after Close: %d steps shown (was %d), running %v", len(r.live.Steps), shown, r.running)
	}
	if runs, _ := s.ReplayRuns(ctx, id); len(runs) != 3 {
		t.Errorf("a replay stopped by Close was stored: %d runs", len(runs))
	}
	mu.Lock()
	last := opened[len(opened)-1]
	mu.Unlock()
	if _, err := last.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("the replay's browser is still open after Close: %v", err)
	}
}

// Without a way to start a browser, or without an open episode, Replay
// says what to do instead of doing nothing.
func TestReplayPanelSaysWhy(t *testing.T) {
	test.NewTempApp(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tab := New(&ui.Context{Store: s, User: func() string { return "rita" }})
	t.Cleanup(tab.Close)
	test.NewTempWindow(t, tab.Content())
	r := &tab.player.replay
	test.Tap(r.btn)
	if r.running || !strings.Contains(r.status.Text, "Open an episode first") || tab.side.Selected() != r.tab {
		t.Errorf("no episode: running %v, %q", r.running, r.status.Text)
	}
	tab.player.ep = &dataset.Episode{ID: "x"}
	test.Tap(r.btn)
	if r.running || !strings.Contains(r.status.Text, "waymark replay EPISODE") {
		t.Errorf("no opener: running %v, %q", r.running, r.status.Text)
	}
}
