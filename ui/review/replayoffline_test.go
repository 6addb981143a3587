package review

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/ui"
	"waymark/ui/uitest"
)

// Review's Replay of an episode recorded with its traffic is offline by
// default: with the site answering otherwise (and then stopped) every step
// matches, the status says hermetic, each verdict says what the step was
// served, and the run is listed as offline; unchecked, the same replay
// goes to the site and diverges.
func TestReplayPanelOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	var changed atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Thank you, the order is placed."
		if changed.Load() {
			msg = "Sorry, the teapot is sold out."
		}
		if r.URL.Path == "/next" {
			fmt.Fprintf(w, `<title>next</title><body style="font:20px sans-serif"><h1>%s</h1></body>`, msg)
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
	recSet := set
	recSet.HAR = true
	recEng, err := browser.New(browser.Options{Settings: recSet})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, recEng, dataset.RecorderOptions{Annotator: "alice"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(400, 300), action.FinishWith("placed")} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	id := rec.EpisodeID()
	rec.Close()

	test.NewTempApp(t)
	loop := &uitest.Loop{}
	tab := New(&ui.Context{Store: s, User: func() string { return "rita" }, Bridge: loop.Bridge()})
	t.Cleanup(tab.Close)
	tab.SetReplay(ReplayOptions{Open: func(ctx context.Context, rec *replay.Recording) (engine.Engine, error) {
		eng, err := browser.New(browser.Options{Settings: rec.Settings(set)})
		if err == nil {
			t.Cleanup(func() { eng.Close() })
		}
		return eng, err
	}})
	w := test.NewTempWindow(t, tab.Content())
	w.Resize(fyne.NewSize(1700, 1000))
	q, err := s.ReviewQueue(ctx, dataset.QueueFilter{Reviewer: "rita"})
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("queue %+v %v", q.Items, err)
	}
	tab.openItem(q.Items[0])
	r := &tab.player.replay
	r.follow()
	if !r.offline.Checked || r.offline.Disabled() {
		t.Fatalf("an episode with its traffic: offline checked %v, disabled %v", r.offline.Checked, r.offline.Disabled())
	}
	wait := func() {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for r.running && time.Now().Before(deadline) {
			loop.Run()
			time.Sleep(5 * time.Millisecond)
		}
		if r.running {
			t.Fatal("the replay did not end within 90 s")
		}
		r.wg.Wait()
		loop.Run()
	}
	changed.Store(true)
	test.Tap(r.btn)
	wait()
	if !strings.Contains(r.status.Text, "Every step matched (3 of 3).") || !strings.Contains(r.status.Text, "Offline: hermetic: 3/3 steps matched") {
		t.Fatalf("offline, the site changed: %q", r.status.Text)
	}
	o := r.verdicts.CreateItem()
	r.verdicts.UpdateItem(1, o)
	if _, b := rowLabels(o); !strings.Contains(b.Text, "requests served from the recording, 0 refused") {
		t.Errorf("verdict row 1: %q", b.Text)
	}
	o = r.runsList.CreateItem()
	r.runsList.UpdateItem(0, o)
	if a, _ := rowLabels(o); !strings.HasSuffix(a.Text, "· offline") {
		t.Errorf("the run's row: %q", a.Text)
	}
	runs, err := s.ReplayRuns(ctx, id)
	if err != nil || len(runs) != 1 || runs[0].Fidelity == nil || !runs[0].OK() {
		t.Fatalf("the stored run: %+v %v", runs, err)
	}

	// Online, the changed site diverges.
	r.offline.SetChecked(false)
	test.Tap(r.btn)
	wait()
	if !strings.Contains(r.status.Text, "first divergence is at step 1") || strings.Contains(r.status.Text, "Offline") {
		t.Errorf("online, the site changed: %q", r.status.Text)
	}
}
