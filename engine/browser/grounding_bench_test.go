package browser

import (
	"slices"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// BenchmarkGrounding measures what element grounding costs on the practice
// shop's pages: two engines, one with grounding off and one with it on,
// take the same scroll steps on the same pages in turn (which goes first
// alternates), and the benchmark reports both medians, the added share and
// the stored size of the extras per step (gzip JSON, as the store keeps
// them), without and with the DOM snapshot, and the median step with the
// snapshot (dom mode).
func BenchmarkGrounding(b *testing.B) {
	shop := shopEngines(b)
	eOff := shop(nil)
	eOn := shop(func(o *Options) { o.Settings.Grounding = engine.GroundingOn })
	pages := []string{"http://shop.waymark.test/", "http://shop.waymark.test/category/footwear",
		"http://shop.waymark.test/product/summit-gtx", "http://shop.waymark.test/search?q=boots"}
	page := 0
	reset(b, eOff, pages[0])
	reset(b, eOn, pages[0])
	var off, on []time.Duration
	var size []int
	timed := func(e *Engine, dy int) {
		start := time.Now()
		obs := step(b, e, action.Action{Op: action.Scroll, DY: dy})
		d := time.Since(start)
		if obs.Error != "" {
			b.Fatalf("step: %s", obs.Error)
		}
		if e == eOn {
			on = append(on, d)
			if obs.Extras == nil || obs.Extras.AXTreeTxt == "" || obs.Target == nil {
				b.Fatal("no extras or target with grounding on")
			}
			size = append(size, gzipJSON(b, obs.Extras))
		} else {
			off = append(off, d)
		}
	}
	n := 0
	for b.Loop() {
		dy := 300
		if n%2 == 1 {
			dy = -300
		}
		first, second := eOff, eOn
		if n%2 == 1 {
			first, second = second, first
		}
		timed(first, dy)
		timed(second, dy)
		n++
		if eOn.State().StepCount >= eOn.set.MaxSteps-1 {
			b.StopTimer()
			page = (page + 1) % len(pages)
			reset(b, eOff, pages[page])
			reset(b, eOn, pages[page])
			b.StartTimer()
		}
	}
	b.StopTimer()
	// The DOM snapshot's size, on a fresh page of each kind, and the time
	// of a few scroll steps there with the snapshot taken.
	var domSize []int
	var dom []time.Duration
	eOn.set.Grounding = engine.GroundingDOM
	for _, p := range pages {
		obs := reset(b, eOn, p)
		if obs.Extras == nil || len(obs.Extras.DOM) == 0 {
			b.Fatal("no dom_object with grounding dom")
		}
		domSize = append(domSize, gzipJSON(b, obs.Extras))
		for i := range 4 {
			start := time.Now()
			obs := step(b, eOn, action.Action{Op: action.Scroll, DY: 300 - 600*(i%2)})
			dom = append(dom, time.Since(start))
			if obs.Error != "" || obs.Extras == nil || len(obs.Extras.DOM) == 0 {
				b.Fatalf("no dom_object in a dom step (%s)", obs.Error)
			}
		}
	}
	medianInt := func(s []int) float64 { slices.Sort(s); return float64(s[len(s)/2]) }
	mOff, mOn := medianMS(off), medianMS(on)
	b.ReportMetric(mOff, "ms/median-off")
	b.ReportMetric(mOn, "ms/median-on")
	b.ReportMetric(100*(mOn-mOff)/mOff, "%added")
	b.ReportMetric(medianMS(dom), "ms/median-dom")
	b.ReportMetric(medianInt(size)/1024, "KiB/step-gz")
	b.ReportMetric(medianInt(domSize)/1024, "KiB/step-gz-dom")
	b.ReportMetric(0, "ns/op")
}
