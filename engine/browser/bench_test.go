package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// report prints the median and the 90th percentile of the samples.
func report(b *testing.B, samples []time.Duration) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(samples[len(samples)/2]), "ms/median")
	b.ReportMetric(ms(samples[len(samples)*9/10]), "ms/p90")
	b.ReportMetric(0, "ns/op")
}

func benchEngine(b *testing.B) (*Engine, string) {
	ts := newSite(b)
	e := newEngine(b, engine.DisplayAuto, nil)
	reset(b, e, ts.URL+"/")
	return e, ts.URL
}

// BenchmarkFloor is the least a click step can cost: a bare CDP click and a
// PNG screenshot, with no waiting and no checks.
func BenchmarkFloor(b *testing.B) {
	e, _ := benchEngine(b)
	tb := e.ep.tab
	var samples []time.Duration
	for b.Loop() {
		samples = append(samples, floorStep(b, tb))
	}
	report(b, samples)
}

// floorStep is one bare CDP click and PNG screenshot, timed.
func floorStep(b *testing.B, tb *tab) time.Duration {
	start := time.Now()
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	if err := click(ctx, 600, 500, 1); err != nil {
		b.Fatal(err)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil || len(res.Data) == 0 {
		b.Fatal(err)
	}
	return time.Since(start)
}

// staticStep is one full click step on the static page, timed; the episode
// is reset (off the clock) before it reaches the step limit.
func staticStep(b *testing.B, e *Engine) time.Duration {
	start := time.Now()
	obs := step(b, e, action.ClickAt(600, 500))
	d := time.Since(start)
	if obs.Error != "" || len(obs.Screenshot) == 0 {
		b.Fatalf("%+v", obs)
	}
	if e.State().StepCount >= e.set.MaxSteps-1 {
		b.StopTimer()
		reset(b, e, e.ep.lastURL)
		b.StartTimer()
	}
	return d
}

// BenchmarkClickStatic is a full click step on a page where the click
// changes nothing.
func BenchmarkClickStatic(b *testing.B) {
	e, _ := benchEngine(b)
	var samples []time.Duration
	for b.Loop() {
		samples = append(samples, staticStep(b, e))
	}
	report(b, samples)
}

// BenchmarkClickFetch is a click whose result arrives by fetch 200 ms
// later; every observation must show the update.
func BenchmarkClickFetch(b *testing.B) {
	e, _ := benchEngine(b)
	eval[any](b, e, `window.fetchDelay = 200`)
	var samples []time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		obs := step(b, e, action.ClickAt(50, 150))
		samples = append(samples, time.Since(start))
		n++
		b.StopTimer()
		got := eval[string](b, e, `document.getElementById('out').textContent`)
		// The observation (title read with the screenshot) must show the update.
		if obs.Error != "" || got == "none" || got == "" || obs.Title != got {
			b.Fatalf("step %d: the fetch result is not in the observation: page %q, observed title %q", n, got, obs.Title)
		}
		if e.State().StepCount >= e.set.MaxSteps-1 {
			reset(b, e, e.ep.lastURL)
			eval[any](b, e, `window.fetchDelay = 200`)
		}
		eval[any](b, e, `document.getElementById('out').textContent = 'none'; document.title = 'ops'`)
		b.StartTimer()
	}
	report(b, samples)
}

// BenchmarkType types a short word into the focused input.
func BenchmarkType(b *testing.B) {
	e, _ := benchEngine(b)
	step(b, e, action.ClickAt(100, 25))
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		obs := step(b, e, action.TypeText("hello"))
		samples = append(samples, time.Since(start))
		if obs.Error != "" {
			b.Fatal(obs.Error)
		}
		if e.State().StepCount >= e.set.MaxSteps-1 {
			b.StopTimer()
			reset(b, e, e.ep.lastURL)
			step(b, e, action.ClickAt(100, 25))
			b.StartTimer()
		}
	}
	report(b, samples)
}

// BenchmarkReset opens a new episode (fresh browser context and tab) on the
// running browser.
func BenchmarkReset(b *testing.B) {
	e, url := benchEngine(b)
	var samples []time.Duration
	for b.Loop() {
		start := time.Now()
		obs := reset(b, e, url+"/page2")
		samples = append(samples, time.Since(start))
		if obs.Title != "page 2" {
			b.Fatal(fmt.Sprint(obs))
		}
	}
	report(b, samples)
}

// BenchmarkStaticVsFloor alternates a bare click+screenshot and a full
// static click step, so both see the same machine load, and reports the
// ratio of the medians (target ≤ 1.5).
func BenchmarkStaticVsFloor(b *testing.B) {
	e, _ := benchEngine(b)
	var floor, full []time.Duration
	for b.Loop() {
		floor = append(floor, floorStep(b, e.ep.tab))
		full = append(full, staticStep(b, e))
	}
	slices.Sort(floor)
	slices.Sort(full)
	f, s := floor[len(floor)/2], full[len(full)/2]
	b.ReportMetric(float64(f.Microseconds())/1000, "ms/floor-median")
	b.ReportMetric(float64(s.Microseconds())/1000, "ms/step-median")
	b.ReportMetric(float64(s)/float64(f), "ratio")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkStaleCorpus runs the staleness corpus once (every page: its
// action, then the 1.5 s reference wait) on one browser and reports the
// median step time of the corpus's actions, how many observations were
// stale, how many must-not-stall pages waited for the cap, and beside them
// the floor (a bare CDP click and PNG, timed in the benchmark loop) and a
// step made of a click, a fixed 1.5 s sleep and a PNG (the reference
// environment's way). Targets: 0 stale; corpus median ≤ 1/3 of the sleep.
func BenchmarkStaleCorpus(b *testing.B) {
	cases := loadCorpus(b)
	ts := corpusServer(b)
	e := corpusEngine(b, engine.DisplayAuto)
	res := runCorpus(b, e, ts.URL, cases)
	var steps []time.Duration
	stale, stalled := 0, 0
	for _, r := range res {
		steps = append(steps, r.Step)
		if len(r.Stale) > 0 {
			stale++
			b.Logf("%s: stale: %s", r.Name, strings.Join(r.Stale, "; "))
		}
		if r.Stalled {
			stalled++
		}
	}
	slices.Sort(steps)
	reset(b, e, ts.URL+"/stale/timer-click-0.html")
	tb := e.ep.tab
	// The reference's step: the action, a fixed 1.5 s sleep, the screenshot.
	sleepStart := time.Now()
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	if err := click(ctx, 600, 500, 1); err != nil {
		b.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}); err != nil {
		b.Fatal(err)
	}
	cancel()
	sleepStep := time.Since(sleepStart)
	var floor []time.Duration
	for b.Loop() {
		floor = append(floor, floorStep(b, tb))
	}
	slices.Sort(floor)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	med := steps[len(steps)/2]
	b.ReportMetric(float64(len(res)), "cases")
	b.ReportMetric(float64(stale), "stale")
	b.ReportMetric(float64(stalled), "stalled")
	b.ReportMetric(ms(med), "ms/corpus-median")
	b.ReportMetric(ms(steps[len(steps)*9/10]), "ms/corpus-p90")
	b.ReportMetric(ms(floor[len(floor)/2]), "ms/floor-median")
	b.ReportMetric(ms(sleepStep), "ms/sleep-1.5s-step")
	b.ReportMetric(float64(med)/float64(sleepStep), "corpus/sleep")
	b.ReportMetric(0, "ns/op")
}
