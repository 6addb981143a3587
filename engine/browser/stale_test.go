package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// The staleness corpus: hermetic pages in testdata/stale, each with a
// scripted action (and setup actions) in a <script id="waymark-case">
// block. The test performs the action and compares the engine's
// observation (URL, title, the page-state value window.__state() read with
// them, and the screenshot) with the page after a further fixed 1.5 s wait,
// the reference environment's sleep. Regions marked data-volatile (a clock,
// a spinner) are left out of the screenshot comparison.

// staleCase is one corpus page.
type staleCase struct {
	Name    string
	Setup   []action.Action `json:"setup"`
	Act     action.Action   `json:"act"`
	NoStall bool            `json:"noStall"` // must end by quiet or navigation, never by the cap
	MayCap  bool            `json:"mayCap"`  // never quiet by design (bounded by the cap)
}

// staleResult is what one case gave.
type staleResult struct {
	Name      string
	Stale     []string      // what differed from the page 1.5 s later
	Step      time.Duration // the measured step, end to end
	SettledBy string
	Stalled   bool // a must-not-stall page held the step to the cap
}

const caseTag = `<script type="application/json" id="waymark-case">`

// loadCorpus reads every case of testdata/stale.
func loadCorpus(t testing.TB) []staleCase {
	t.Helper()
	files, err := filepath.Glob("testdata/stale/*.html")
	if err != nil {
		t.Fatal(err)
	}
	var cases []staleCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i := strings.Index(s, caseTag)
		if i < 0 {
			continue // a helper page (a frame, a target)
		}
		s = s[i+len(caseTag):]
		s = s[:strings.Index(s, "</script>")]
		c := staleCase{Name: filepath.Base(f)}
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// corpusServer serves testdata/stale under /stale/ and the pages' APIs.
func corpusServer(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/stale/", http.StripPrefix("/stale/", http.FileServer(http.Dir("testdata/stale"))))
	var n atomic.Int64
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, r *http.Request) {
		var ms int
		fmt.Sscan(r.URL.Query().Get("ms"), &ms)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "r%d", n.Add(1))
	})
	mux.HandleFunc("/api/suggest", func(w http.ResponseWriter, r *http.Request) {
		var ms int
		fmt.Sscan(r.URL.Query().Get("ms"), &ms)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		q := r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode([]string{q + " shop", q + "es", q + "w"})
	})
	mux.HandleFunc("/api/longpoll", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts
}

// corpusEngine is the engine the corpus runs on: the "wait" action is the
// reference's fixed 1.5 s sleep; the page state is read with each
// observation.
func corpusEngine(t testing.TB, display string) *Engine {
	e := newEngine(t, display, func(o *Options) {
		o.Settings.ExplicitWait = 1500 * time.Millisecond
		o.Settings.MaxSteps = 50
	})
	e.stateExpr = `window.__state ? window.__state() : ''`
	return e
}

// volatileScript lists the data-volatile regions of the active page.
const volatileScript = `JSON.stringify([...document.querySelectorAll('[data-volatile]')].map(el => {
  const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];
}))`

// runCase performs one case and compares its observation with the page
// 1.5 s later.
func runCase(t testing.TB, e *Engine, base string, c staleCase) staleResult {
	t.Helper()
	res := staleResult{Name: c.Name}
	ctx := context.Background()
	obs0, err := e.Reset(ctx, engine.ResetOptions{StartURL: base + "/stale/" + c.Name})
	if err != nil || obs0.Error != "" {
		t.Fatalf("%s: reset: %v %q", c.Name, err, obs0.Error)
	}
	for _, a := range c.Setup {
		if o, err := e.Step(ctx, a); err != nil || o.Error != "" {
			t.Fatalf("%s: setup %s: %v %q", c.Name, a, err, o.Error)
		}
	}
	start := time.Now()
	obs, err := e.Step(ctx, c.Act)
	res.Step = time.Since(start)
	if err != nil || obs.Error != "" {
		t.Fatalf("%s: %s: %v %q", c.Name, c.Act, err, obs.Error)
	}
	state := e.lastState
	res.SettledBy = obs.Timings.SettledBy
	ref, err := e.Step(ctx, action.Action{Op: action.Wait})
	if err != nil || ref.Error != "" {
		t.Fatalf("%s: wait: %v %q", c.Name, err, ref.Error)
	}
	refState := e.lastState
	var masks []image.Rectangle
	var rects [][4]float64
	if err := json.Unmarshal([]byte(eval[string](t, e, volatileScript)), &rects); err == nil {
		for _, r := range rects {
			masks = append(masks, image.Rect(int(r[0])-2, int(r[1])-2, int(r[2])+3, int(r[3])+3))
		}
	}
	if obs.URL != ref.URL {
		res.Stale = append(res.Stale, fmt.Sprintf("url %q, later %q", obs.URL, ref.URL))
	}
	if obs.Title != ref.Title {
		res.Stale = append(res.Stale, fmt.Sprintf("title %q, later %q", obs.Title, ref.Title))
	}
	if state != refState {
		res.Stale = append(res.Stale, fmt.Sprintf("state %q, later %q", state, refState))
	}
	if n, err := pixelDiff(obs.Screenshot, ref.Screenshot, masks); err != nil || n > 0 {
		res.Stale = append(res.Stale, fmt.Sprintf("screenshot: %d pixels differ %v", n, err))
	}
	res.Stalled = c.NoStall && !c.MayCap && obs.Timings.SettledBy == action.SettledCap
	return res
}

// pixelDiff counts the pixels that differ between two PNGs outside masks.
func pixelDiff(a, b []byte, masks []image.Rectangle) (int, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return -1, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return -1, err
	}
	if ia.Bounds() != ib.Bounds() {
		return -1, fmt.Errorf("sizes %v and %v", ia.Bounds(), ib.Bounds())
	}
	n := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
	px:
		for x := r.Min.X; x < r.Max.X; x++ {
			for _, m := range masks {
				if (image.Point{x, y}).In(m) {
					continue px
				}
			}
			r1, g1, b1, _ := ia.At(x, y).RGBA()
			r2, g2, b2, _ := ib.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				n++
			}
		}
	}
	return n, nil
}

// runCorpus runs every case on one engine, in sequence. A case whose step
// ended at the settle cap and then failed (stale, or a must-not-stall page
// held to the cap) runs once more, and the second run counts: an
// observation taken at the cap is what the engine promises when a page
// does not settle within it, and on a machine busy with other test
// binaries a navigation alone took longer than the 1.5 s cap. A settle
// that misreads a page fails the same way twice (its step ends at the cap
// again, or ends early as "quiet" and is never run again).
func runCorpus(t testing.TB, e *Engine, base string, cases []staleCase) []staleResult {
	var out []staleResult
	for _, c := range cases {
		r := runCase(t, e, base, c)
		if r.SettledBy == action.SettledCap && (len(r.Stale) > 0 || r.Stalled) {
			t.Logf("%s: its step ended at the cap after %s and failed (stale %q, stalled %v); running it once more",
				c.Name, r.Step.Round(time.Millisecond), r.Stale, r.Stalled)
			r = runCase(t, e, base, c)
		}
		out = append(out, r)
	}
	return out
}

// TestStaleCorpus: no observation of the corpus is stale, and no
// must-not-stall page holds a step to the cap, in both display modes.
// STALE_CASES=regexp runs only the matching pages and traces every probe.
func TestStaleCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if f := os.Getenv("STALE_CASES"); f != "" {
		re := regexp.MustCompile(f)
		cases = slices.DeleteFunc(cases, func(c staleCase) bool { return !re.MatchString(c.Name) })
		settleTrace = t.Logf
		t.Cleanup(func() { settleTrace = nil })
	} else if len(cases) < 30 {
		t.Fatalf("the corpus has %d cases, want at least 30", len(cases))
	}
	ts := corpusServer(t)
	for _, mode := range []string{engine.DisplayHeadless, engine.DisplayXvfb} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // one browser per mode, both at once: half the wall time
			e := corpusEngine(t, mode)
			if mode == engine.DisplayXvfb && e.Info().Display != engine.DisplayXvfb {
				t.Skip("Xvfb is not installed")
			}
			res := runCorpus(t, e, ts.URL, cases)
			stale, stalled := 0, 0
			var steps []time.Duration
			for _, r := range res {
				steps = append(steps, r.Step)
				if len(r.Stale) > 0 {
					stale++
					t.Errorf("%s: stale observation (%s, settled by %s): %s", r.Name, r.Step.Round(time.Millisecond), r.SettledBy, strings.Join(r.Stale, "; "))
				}
				if r.Stalled {
					stalled++
					t.Errorf("%s: the step waited for the cap (%s)", r.Name, r.Step.Round(time.Millisecond))
				}
				t.Logf("%-28s %6s %-10s stale=%v", r.Name, r.Step.Round(time.Millisecond), r.SettledBy, len(r.Stale) > 0)
			}
			slices.Sort(steps)
			t.Logf("%s: %d cases, %d stale, %d stalled, median step %s", mode, len(res), stale, stalled, steps[len(steps)/2].Round(time.Millisecond))
		})
	}
}
