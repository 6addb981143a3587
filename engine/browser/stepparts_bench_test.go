package browser

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
)

// BenchmarkStepParts times, on the static page, each part a click step is
// made of, one after the other in each round so that all see the same
// load: the dispatch (mouse move, press, release), one settle probe that
// waits for two animation frames, one that does not, the page read, the
// PNG screenshot (Chromium's default encoding, and optimizeForSpeed), and
// beside them the whole step and its own timings (action, settle,
// capture) and the bare-CDP floor (click + PNG).
func BenchmarkStepParts(b *testing.B) {
	e, _ := benchEngine(b)
	tb := e.ep.tab
	parts := map[string][]time.Duration{}
	add := func(name string, d time.Duration) { parts[name] = append(parts[name], d) }
	timed := func(name string, fn func(ctx context.Context) error) {
		ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
		defer cancel()
		start := time.Now()
		if err := fn(ctx); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		add(name, time.Since(start))
	}
	shot := func(fast bool) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
			if fast {
				p.OptimizeForSpeed = new(true)
			}
			res, err := chromedp.Call(ctx, page.CaptureScreenshot, p)
			if err == nil && len(res.Data) == 0 {
				b.Fatal("empty screenshot")
			}
			return err
		}
	}
	probeWith := func(frames bool) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			_, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](probeExpr(frames, time.Second, time.Now()), chromedp.EvalAwaitPromise))
			return err
		}
	}
	for b.Loop() {
		add("floor", floorStep(b, tb))
		timed("dispatch", func(ctx context.Context) error { return click(ctx, 600, 500, 1) })
		timed("probe-2-frames", probeWith(true))
		timed("probe", probeWith(false))
		timed("page-read", func(ctx context.Context) error {
			_, err := tb.info(ctx, 5*time.Second, "", false)
			return err
		})
		timed("png", shot(false))
		timed("png-fast", shot(true))
		start := time.Now()
		obs := step(b, e, action.ClickAt(600, 500))
		add("step", time.Since(start))
		add("step-action", time.Duration(obs.Timings.ActionMS)*time.Millisecond)
		add("step-settle", time.Duration(obs.Timings.SettleMS)*time.Millisecond)
		add("step-capture", time.Duration(obs.Timings.CaptureMS)*time.Millisecond)
		if e.State().StepCount >= e.set.MaxSteps-1 {
			b.StopTimer()
			reset(b, e, e.ep.lastURL)
			tb = e.ep.tab
			b.StartTimer()
		}
	}
	for name, s := range parts {
		slices.Sort(s)
		b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, "ms/"+name)
	}
	b.ReportMetric(0, "ns/op")
}
