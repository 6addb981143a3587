package replay_test

import (
	"context"
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// motionSite serves the pages of testdata/motion, each with a line of text
// ({{MSG}}) that a test may change between recording and replay, and its
// animation shifted by a part of its cycle ({{SHIFT}}, from 0 to 1): a page
// served at another shift shows its animation at another moment however
// alike the timing of recording and replay is.
type motionSite struct {
	*httptest.Server
	mu    sync.Mutex
	msg   string
	shift string
}

func (s *motionSite) setMsg(m string) { s.mu.Lock(); s.msg = m; s.mu.Unlock() }

func (s *motionSite) setShift(f string) { s.mu.Lock(); s.shift = f; s.mu.Unlock() }

func newMotionSite(t testing.TB) *motionSite {
	s := &motionSite{msg: "Three orders were found for your account.", shift: "0"}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join("testdata", "motion", filepath.Base(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		page := strings.NewReplacer("{{MSG}}", s.msg, "{{SHIFT}}", s.shift).Replace(string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(s.Close)
	return s
}

func openStore(t testing.TB) *dataset.Store {
	t.Helper()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// covers reports whether the union of the ignored regions covers r.
func covers(ign []replay.Ignored, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			in := false
			for _, g := range ign {
				if (image.Point{x, y}).In(g.Rect()) {
					in = true
					break
				}
			}
			if !in {
				return false
			}
		}
	}
	return true
}

// Pages with something that animates without end — a CSS spinner, a
// loader drawn by a ::after pseudo-element, a pulsing dot animated through
// the Web Animations API, a blinking banner and a marquee that JavaScript
// moves on every frame — are recorded and replayed: each screenshot shows
// the animation at another moment (the replay is served half a cycle on:
// on an idle machine the steps' timing is so alike that the animations
// were otherwise at the same moment in recording and replay, and the test
// could not tell pages that do not animate), yet every step matches, and the report
// names each region it left out of the comparison, why, and covers the
// animated element with it. A line of text changed on the spinner's page
// still diverges.
func TestReplayIgnoresWhatOnlyAnimates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := newMotionSite(t)
	s := openStore(t)
	eng := headlessEngine(t)
	masked := 0
	for _, c := range []struct {
		page string
		// box is the area the animation paints in (the element's box, or
		// the strip it moves in); why a word of the reason.
		box image.Rectangle
		why string
	}{
		{"spinner.html", image.Rect(360, 200, 412, 252), "CSS animation"},
		{"pseudo.html", image.Rect(100, 250, 300, 260), "CSS animation"},
		{"waapi.html", image.Rect(600, 60, 624, 84), "Web Animation"},
		{"blink.html", image.Rect(20, 420, 540, 440), "CSS animation"},
		{"carousel.html", image.Rect(100, 200, 700, 320), "changed between two captures"},
	} {
		if t.Failed() {
			break
		}
		t.Run(c.page, func(t *testing.T) {
			id := record(t, s, eng, site.URL+"/"+c.page, []action.Action{action.ClickAt(780, 580), action.ScrollBy(0)})
			site.setShift("0.5")
			defer site.setShift("0")
			rep := runReplay(t, s, eng, id, replay.Options{Continue: true})
			if !rep.OK || rep.Matched != 3 {
				t.Fatalf("the replay of %s did not match: %+v", c.page, rep.Steps)
			}
			if rep.Measure.Motion != replay.MotionMeasure {
				t.Errorf("the report's measure does not say what it leaves out: %+v", rep.Measure)
			}
			for _, r := range rep.Steps {
				if len(r.Ignored) == 0 {
					// The animation was at the same moment in both
					// screenshots: nothing needed leaving out.
					if *r.DiffPixels > 96 || r.Why != "" {
						t.Errorf("step %d matched without a region ignored: %d pixels, why %q", r.Step, *r.DiffPixels, r.Why)
					}
					continue
				}
				masked++
				if !covers(r.Ignored, c.box) {
					t.Errorf("step %d: the ignored regions %+v do not cover the animation at %v", r.Step, r.Ignored, c.box)
				}
				area := 0
				for _, g := range r.Ignored {
					area += g.W * g.H
					if g.Why == "" {
						t.Errorf("step %d: region %+v ignored without a reason", r.Step, g)
					}
				}
				if area > 800*600/4 {
					t.Errorf("step %d: %d pixels ignored, more than the page's animation needs: %+v", r.Step, area, r.Ignored)
				}
				if !strings.Contains(fmt.Sprint(r.Ignored), c.why) || !strings.Contains(r.Why, "ignored") {
					t.Errorf("step %d: why %q, regions %+v; want %q among the reasons", r.Step, r.Why, r.Ignored, c.why)
				}
			}
		})
	}
	// Five pages of three steps, each animation half a cycle on in the
	// replay: most steps differ before their regions are left out (a step
	// whose moments differ by a whole cycle, as a busy machine may delay
	// it, needs none).
	t.Logf("%d of 15 steps needed regions left out", masked)
	if masked < 10 {
		t.Errorf("only %d steps of 15 needed a region left out: the test pages do not animate as they should", masked)
	}
	// A branch of the spinner's episode replays its steps through the
	// Recorder (as Continue from step K does): they match too.
	id := record(t, s, eng, site.URL+"/spinner.html", []action.Action{action.ClickAt(780, 580), action.ScrollBy(0)})
	rec := load(t, s, id)
	b := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "bob"})
	obs0, err := b.ResetBranch(context.Background(), engine.ResetOptions{StartURL: rec.StartURL}, id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, res, err := replay.Prefix(context.Background(), b, rec, 2, replay.PrefixOptions{Start: &obs0}, nil); err != nil || len(res) != 3 {
		t.Fatalf("a branch of the spinner's episode: %v %+v", err, res)
	}
	if err := b.Discard(); err != nil {
		t.Fatal(err)
	}

	// A changed line of text outside what animates still diverges.
	site.setMsg("No orders were found for your account.")
	defer site.setMsg("Three orders were found for your account.")
	rep := runReplay(t, s, eng, id, replay.Options{})
	if rep.OK || rep.FirstDivergence == nil || *rep.FirstDivergence != 0 || !strings.Contains(rep.Steps[0].Why, "pixels differ") {
		t.Fatalf("a changed line of text on the spinner's page: %+v", rep.Steps)
	}
}

func xvfbEngine(t testing.TB) engine.Engine {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb")
	}
	set := engine.DefaultSettings()
	set.Display = engine.DisplayXvfb
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// An episode recorded on Xvfb and replayed headless: a replay left to
// choose its display mode takes the recorded one; one made headless warns
// that the modes may draw the page differently and that the measure is the
// same, and a step that diverges on its screenshot alone names both modes. A changed line of text diverges.
func TestReplayInTheOtherDisplayMode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := newNotesSite(t)
	s := openStore(t)
	xe := xvfbEngine(t)
	id := record(t, s, xe, site.URL+"/", []action.Action{
		action.ClickAt(100, 35), action.TypeText("buy tea"), action.ClickAt(390, 37), action.FinishWith("saved"),
	})
	hid := record(t, s, headlessEngine(t), site.URL+"/", []action.Action{action.ClickAt(100, 35)})
	rec, hrec := load(t, s, id), load(t, s, hid)
	if d := rec.Settings(engine.DefaultSettings()).Display; d != engine.DisplayXvfb {
		t.Errorf("the replay of an episode recorded on Xvfb defaults to display %q", d)
	}
	if d := hrec.Settings(engine.DefaultSettings()).Display; d != engine.DisplayHeadless {
		t.Errorf("the replay of an episode recorded headless defaults to display %q", d)
	}
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	if d := rec.Settings(set).Display; d != engine.DisplayHeadless {
		t.Errorf("--display headless became %q", d)
	}

	he := headlessEngine(t)
	rep := runReplay(t, s, he, id, replay.Options{Continue: true})
	t.Logf("recorded on Xvfb, replayed headless: %d of %d steps matched", rep.Matched, rep.Compared)
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "recorded on xvfb, replaying headless") || !strings.Contains(w, "--display xvfb") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	site.setSaved("Not saved: the notebook is full.")
	rep = runReplay(t, s, he, id, replay.Options{})
	if rep.OK || rep.FirstDivergence == nil || *rep.FirstDivergence != 3 || !strings.Contains(rep.Steps[3].Why, "pixels differ") ||
		!strings.Contains(rep.Steps[3].Why, "recorded on xvfb, replayed headless (see the warning)") {
		t.Fatalf("a changed line of text, replayed headless: %+v", rep.Steps)
	}
	// In the recorded mode: no warning, and the same step diverges.
	rep = runReplay(t, s, xe, id, replay.Options{})
	if len(rep.Warnings) != 1 || rep.FirstDivergence == nil || *rep.FirstDivergence != 3 || strings.Contains(rep.Steps[3].Why, "display mode") {
		t.Fatalf("a changed line of text, replayed on Xvfb: %q %+v", rep.Warnings, rep.Steps)
	}
}

// A 40 px spinner placed absolutely in body over a container that covers
// 92 % of the viewport (#52): between two captures of the replayed page
// the spinner's pixels change in squares whose middle is off the spinner's
// circle, where the container is painted. The region left out is the
// spinner's swept box, not the container (which made the whole start step
// diverge: 442,320 px, over the quarter of the viewport that may be left
// out), and the episode replays matched.
func TestReplayLeavesOutASpinnerNotTheContainerBelowIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := newMotionSite(t)
	s := openStore(t)
	eng := headlessEngine(t)
	// The spinner's box, 52 px, turning: its swept box is at most 74 px.
	spin := image.Rect(380, 260, 432, 312)
	id := record(t, s, eng, site.URL+"/container.html", []action.Action{action.ScrollBy(0), action.ScrollBy(0)})
	masked := 0
	for _, shift := range []string{"0.5", "0.25"} {
		site.setShift(shift)
		rep := runReplay(t, s, eng, id, replay.Options{Continue: true})
		for _, r := range rep.Steps {
			area := 0
			for _, g := range r.Ignored {
				area += g.W * g.H
			}
			if r.Verdict != dataset.VerdictMatch {
				t.Errorf("shift %s, step %d diverged: %s (regions %+v)", shift, r.Step, r.Why, r.Ignored)
				continue
			}
			if len(r.Ignored) == 0 {
				continue
			}
			masked++
			if !covers(r.Ignored, spin) {
				t.Errorf("shift %s, step %d: the regions %+v do not cover the spinner at %v", shift, r.Step, r.Ignored, spin)
			}
			if area > 100*100 {
				t.Errorf("shift %s, step %d: %d pixels left out for a 52 px spinner: %+v", shift, r.Step, area, r.Ignored)
			}
		}
	}
	site.setShift("0")
	if masked == 0 {
		t.Errorf("no step needed a region left out: the page does not animate as it should")
	}
}
