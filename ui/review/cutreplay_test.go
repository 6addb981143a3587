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
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/ui"
	"waymark/ui/uitest"
)

// A task cut from an exploration replays from Review's Replay panel (key
// R) from its start state: the exploration's steps before the span, then
// the span, in a fresh Chromium. Offline, from the exploration's traffic,
// it replays although the site changed, its text key point is checked on
// the replayed page, and the label form and the queue say it is
// replayable; online the changed site makes it NOT replayable, said in
// the panel, the form (in red) and the queue.
func TestReplayCutFromStartState(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	var changed atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		link := func(title, to string) {
			fmt.Fprintf(w, `<title>%s</title><body style="margin:0"><a href="%s" style="display:block;width:800px;height:600px;font:30px sans-serif">%s</a></body>`, title, to, title)
		}
		switch r.URL.Path {
		case "/":
			link("shop", "/lamps")
		case "/lamps":
			link("lamps", "/order")
		default:
			msg := "Thank you, the order is placed."
			if changed.Load() {
				msg = "Sorry, the lamp is sold out."
			}
			fmt.Fprintf(w, `<title>order</title><body style="font:20px sans-serif"><h1>%s</h1></body>`, msg)
		}
	}))
	defer site.Close()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	recSet := set
	recSet.HAR = true
	recEng, err := browser.New(browser.Options{Settings: recSet})
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.ExploreTask(ctx, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, recEng, dataset.RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(400, 300), action.ClickAt(400, 300), action.FinishWith("")} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	expl := rec.EpisodeID()
	rec.Close()
	cut, err := s.CutSpan(ctx, dataset.CutSpec{ExplorationID: expl, From: 2, To: 2, Instruction: "Order the lamp", Category: dataset.Interaction,
		KeyPoints: []string{"text: the order is placed"}, Editor: "alice"})
	if err != nil {
		t.Fatal(err)
	}

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
	q, err := s.ReviewQueue(ctx, dataset.QueueFilter{Reviewer: "rita", State: dataset.QueueUnreviewed})
	if err != nil || len(q.Items) != 1 || q.Items[0].EpisodeID != cut.ID {
		t.Fatalf("the unreviewed queue: %+v %v", q.Items, err)
	}
	tab.openItem(q.Items[0])
	r := &tab.player.replay
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
	if !tab.TypedKey(&fyne.KeyEvent{Name: fyne.KeyR}) {
		t.Fatal("R is not handled")
	}
	if !r.cut || !r.offline.Checked {
		t.Fatalf("a cut of an exploration with its traffic: cut %v, offline checked %v", r.cut, r.offline.Checked)
	}
	wait()
	if !strings.Contains(r.status.Text, "Cut checked: replayable offline (2/2 steps matched)") || !strings.Contains(r.status.Text, "key points: 1 of 1 checked passed") {
		t.Fatalf("offline, the site changed: %q", r.status.Text)
	}
	if !strings.HasSuffix(r.title.Text, "from its start state") {
		t.Errorf("the panel's title: %q", r.title.Text)
	}
	o := &tab.form.origin
	if !strings.Contains(o.detail.Text, "Replayable from its start state (2 of 2 steps matched, offline") || !strings.Contains(o.detail.Text, "✓ text: the order is placed") {
		t.Fatalf("the label form after the offline check:\n%s", o.detail.Text)
	}
	runs, err := s.ReplayRuns(ctx, cut.ID)
	if err != nil || len(runs) != 1 || len(runs[0].Steps) != 2 || runs[0].Steps[0].Step != 0 || runs[0].Steps[1].Step != 1 || !runs[0].OK() {
		t.Fatalf("the cut's stored run: %+v %v", runs, err)
	}

	// Online, the changed site: NOT replayable, everywhere it is shown.
	r.offline.SetChecked(false)
	test.Tap(o.checkBtn)
	wait()
	if !strings.Contains(r.status.Text, "Cut checked: NOT replayable") || r.status.Importance != widget.DangerImportance {
		t.Fatalf("online, the site changed: %q", r.status.Text)
	}
	if !strings.Contains(o.detail.Text, "NOT replayable") || o.detail.Importance != widget.DangerImportance {
		t.Fatalf("the label form after the online check:\n%s", o.detail.Text)
	}
	if h, _ := s.HindsightCheckOf(ctx, cut.ID); h.Replayable() {
		t.Fatalf("the stored check: %+v", h.Replay)
	}
	if !strings.Contains(tab.queue.summary.Text, "0 replayable, 1 NOT replayable") {
		t.Fatalf("the queue's summary: %q", tab.queue.summary.Text)
	}
}
