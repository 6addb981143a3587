package replay_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// notesSite is a hermetic two-page site: a form with a text field, a
// password field and a Save button that opens /saved, which shows a
// message that a test may change between recording and replay.
type notesSite struct {
	*httptest.Server
	mu    sync.Mutex
	saved string
}

func (s *notesSite) setSaved(msg string) { s.mu.Lock(); s.saved = msg; s.mu.Unlock() }

func newNotesSite(t testing.TB) *notesSite {
	s := &notesSite{saved: "Saved."}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Notes</title><style>
body { margin: 0; font: 16px sans-serif; }
input { position: absolute; left: 20px; width: 300px; height: 30px; font: 16px sans-serif; }
#go { position: absolute; left: 340px; top: 20px; width: 100px; height: 34px; }
</style><input id="q" style="top:20px" autocomplete="off"><input id="pw" type="password" style="top:70px">
<button id="go" onclick="location.href='/saved?q='+encodeURIComponent(q.value)">Save</button>
<p style="position:absolute;top:120px;left:20px">Write a note and save it.</p>`)
	})
	mux.HandleFunc("/saved", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		msg := s.saved
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Saved</title><body style="margin:20px;font:16px sans-serif"><h1>%s</h1><p>Your note: %s</p><a href="/">Write another</a></body>`,
			html.EscapeString(msg), html.EscapeString(r.URL.Query().Get("q")))
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func headlessEngine(t testing.TB) engine.Engine {
	t.Helper()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// record runs actions through a Recorder over eng and returns the episode id.
func record(t testing.TB, s *dataset.Store, eng engine.Engine, startURL string, actions []action.Action) string {
	t.Helper()
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "alice"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: startURL}); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		obs, err := rec.Step(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if obs.Done {
			break
		}
	}
	return rec.EpisodeID()
}

func snapshot(t *testing.T, s *dataset.Store, id string) (dataset.Episode, []dataset.Step) {
	t.Helper()
	ep, err := s.GetEpisode(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var steps []dataset.Step
	for st, err := range s.EpisodeSteps(context.Background(), id) {
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, st)
	}
	return ep, steps
}

func runReplay(t *testing.T, s *dataset.Store, eng engine.Engine, id string, opts replay.Options) *replay.Report {
	t.Helper()
	rec, err := replay.Load(context.Background(), s, id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Run(context.Background(), eng, rec, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Steps {
		score := "-"
		if r.Score != nil {
			score = fmt.Sprintf("%.6f (%d px)", *r.Score, *r.DiffPixels)
		}
		t.Logf("step %d %-22s %-10.10s %s %s", r.Step, r.Action, r.Verdict, score, r.Why)
	}
	return rep
}

// Record an episode of a local page through the Recorder over a real
// Chromium, replay it (every step matches), change what the page shows
// after the save and replay again (step 3 diverges, on its screenshot); a
// secret typed into the password field stops the replay, or with Continue
// makes the rest unreliable. The store is never changed by a replay.
func TestReplayRecordedEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := newNotesSite(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recEng := headlessEngine(t)
	id := record(t, s, recEng, site.URL+"/", []action.Action{
		action.ClickAt(100, 35), action.TypeText("buy tea"), action.ClickAt(390, 37), action.FinishWith("saved"),
	})
	secretID := record(t, s, recEng, site.URL+"/", []action.Action{
		action.ClickAt(100, 85), action.TypeText("hunter2"), action.ClickAt(390, 37), action.FinishWith("saved"),
	})
	ep0, steps0 := snapshot(t, s, id)
	sep0, ssteps0 := snapshot(t, s, secretID)
	if !ssteps0[2].Action.IsRedacted() {
		t.Fatalf("the password was stored: %+v", ssteps0[2].Action)
	}

	// The same engine replays: each Reset opens a fresh profile.
	eng := recEng
	var progress []string
	rep := runReplay(t, s, eng, id, replay.Options{Progress: func(r replay.StepResult) { progress = append(progress, fmt.Sprint(r.Step, r.Verdict)) }})
	if !rep.OK || rep.Compared != 5 || rep.Matched != 5 || rep.FirstDivergence != nil || rep.Stopped != "" {
		t.Fatalf("replay of the unchanged site: %+v", rep)
	}
	if want := []string{"0match", "1match", "2match", "3match", "4match"}; !reflect.DeepEqual(progress, want) {
		t.Errorf("progress %q, want %q", progress, want)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "not a practice site") || !strings.Contains(rep.Warnings[0], "cannot restore") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	// Stored beside the episode, as Review shows it.
	saved, err := s.SaveReplayRun(t.Context(), rep.StoredRun(eng.Info(), nil))
	if err != nil {
		t.Fatal(err)
	}
	if runs, err := s.ReplayRuns(context.Background(), id); err != nil || len(runs) != 1 || runs[0].ID != saved.ID || !runs[0].OK() ||
		runs[0].Display != engine.DisplayHeadless || len(runs[0].Steps) != 5 || runs[0].Steps[3].Action != "click 390,37" ||
		runs[0].Steps[3].Score == nil || runs[0].Warning != rep.Warnings[0] || !strings.Contains(runs[0].EngineJSON, `"kind":"local"`) {
		t.Errorf("stored run %+v %v", runs, err)
	}
	if rep.Steps[3].Action != "click 390,37" || rep.Steps[3].Replayed.URL != site.URL+"/saved?q=buy%20tea" || rep.Steps[4].Replayed.Done != true {
		t.Errorf("steps %+v", rep.Steps)
	}
	// The start URL's host as a practice host: no warning.
	rec, _ := replay.Load(context.Background(), s, id)
	if rep, err := replay.Run(context.Background(), eng, rec, replay.Options{Until: 1, PracticeHosts: []string{"127.0.0.1"}}); err != nil || len(rep.Warnings) != 0 || !rep.OK || len(rep.Steps) != 2 {
		t.Errorf("--until 1 with the host a practice one: %+v %v", rep, err)
	}

	site.setSaved("Not saved: the notebook is full.")
	rep = runReplay(t, s, eng, id, replay.Options{})
	if rep.OK || rep.FirstDivergence == nil || *rep.FirstDivergence != 3 || len(rep.Steps) != 4 || rep.Stopped != "step 3 diverged" {
		t.Fatalf("replay of the changed site: %+v", rep)
	}
	if r := rep.StoredRun(eng.Info(), nil); r.OK() || *r.FirstDiverged != 3 || r.Error != "step 3 diverged" || r.Matched != 3 || r.Compared != 4 || r.Steps[3].Why != rep.Steps[3].Why {
		t.Errorf("stored form of the diverged run %+v", r)
	}
	// Cancelled after two steps: the steps so far, and the error says so.
	cctx, cancel := context.WithCancel(context.Background())
	rec2, _ := replay.Load(cctx, s, id)
	crep, cerr := replay.Run(cctx, eng, rec2, replay.Options{Progress: func(r replay.StepResult) {
		if r.Step == 1 {
			cancel()
		}
	}})
	if cr := crep.StoredRun(eng.Info(), cerr); !errors.Is(cerr, context.Canceled) || cr.Error != "cancelled after step 1, with 1 of 4 actions replayed" || len(cr.Steps) != 2 {
		t.Errorf("cancelled run: %v %+v", cerr, cr)
	}
	d := rep.Steps[3]
	if d.Verdict != dataset.VerdictDiverged || !strings.HasPrefix(d.Why, "screenshot: ") || !strings.Contains(d.Why, "pixels differ") || d.Score == nil || *d.Score >= 1 {
		t.Errorf("step 3: %+v", d)
	}
	for _, r := range rep.Steps[:3] {
		if r.Verdict != dataset.VerdictMatch {
			t.Errorf("step %d before the change: %+v", r.Step, r)
		}
	}

	site.setSaved("Saved.")
	rep = runReplay(t, s, eng, secretID, replay.Options{})
	if rep.OK || len(rep.Steps) != 3 || rep.Steps[2].Verdict != dataset.VerdictSecret || *rep.FirstDivergence != 2 || rep.Matched != 2 {
		t.Fatalf("replay with a secret: %+v", rep)
	}
	rep = runReplay(t, s, eng, secretID, replay.Options{Continue: true})
	if rep.OK || len(rep.Steps) != 5 || rep.Steps[2].Verdict != dataset.VerdictSecret || rep.Stopped != "" {
		t.Fatalf("replay with a secret, --continue: %+v", rep)
	}
	for _, r := range rep.Steps[3:] {
		if r.Verdict != dataset.VerdictUnreliable || r.Why != "after step 2's secret: matched" {
			t.Errorf("after the secret: %+v", r)
		}
	}

	if ep1, steps1 := snapshot(t, s, id); !reflect.DeepEqual(ep0, ep1) || !reflect.DeepEqual(steps0, steps1) {
		t.Error("a replay changed the stored episode")
	}
	if ep1, steps1 := snapshot(t, s, secretID); !reflect.DeepEqual(sep0, ep1) || !reflect.DeepEqual(ssteps0, steps1) {
		t.Error("a replay changed the stored episode with a secret")
	}
}

// BenchmarkReplay20Steps replays a 20-step episode (clicks, typing and
// scrolls on a local page, ending at the step limit) in headless Chromium.
// Run it once: go test -run XXX -bench Replay20 -benchtime 1x.
func BenchmarkReplay20Steps(b *testing.B) {
	site := newNotesSite(b)
	s, err := dataset.Open(filepath.Join(b.TempDir(), "w.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	eng := headlessEngine(b)
	var actions []action.Action
	for len(actions) < 20 {
		actions = append(actions, action.ClickAt(100, 35), action.TypeText("tea"), action.ScrollBy(100), action.ClickAt(390, 37), action.PressKey("TAB"))
	}
	id := record(b, s, eng, site.URL+"/", actions[:20])
	rec, err := replay.Load(context.Background(), s, id)
	if err != nil {
		b.Fatal(err)
	}
	if len(rec.Steps) != 21 {
		b.Fatalf("%d steps stored", len(rec.Steps))
	}
	b.ResetTimer()
	for b.Loop() {
		rep, err := replay.Run(context.Background(), eng, rec, replay.Options{Continue: true})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK {
			for _, r := range rep.Steps {
				if r.Verdict != dataset.VerdictMatch {
					b.Logf("step %d %s: %s %s", r.Step, r.Action, r.Verdict, r.Why)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/replay")
}
