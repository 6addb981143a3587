package browser

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"waymark/assets/practice"
	"waymark/engine"
	"waymark/engine/action"
)

// BenchmarkGrounding measures what element grounding costs on the practice
// shop's pages: each iteration is a pair of scroll steps in the same
// episode, one with grounding off and one with it on (the order alternates
// so neither side always follows the other), and reports both medians, the
// added share and the stored size of the extras per step (gzip JSON, as the
// store keeps them), without and with the DOM snapshot.
func BenchmarkGrounding(b *testing.B) {
	ps, err := practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ps.Close() })
	e := newEngine(b, engine.DisplayHeadless, func(o *Options) { o.HostRules = ps.HostRules() })
	pages := []string{"http://shop.waymark.test/", "http://shop.waymark.test/category/footwear",
		"http://shop.waymark.test/product/summit-gtx", "http://shop.waymark.test/search?q=boots"}
	ground := func(g engine.Grounding) { e.mu.Lock(); e.set.Grounding = g; e.mu.Unlock() }
	page := 0
	reset(b, e, pages[0])
	var off, on []time.Duration
	var size []int
	n := 0
	timed := func(g engine.Grounding, dy int) action.Observation {
		ground(g)
		start := time.Now()
		obs := step(b, e, action.Action{Op: action.Scroll, DY: dy})
		d := time.Since(start)
		if obs.Error != "" {
			b.Fatalf("step: %s", obs.Error)
		}
		if g.On() {
			on = append(on, d)
			if obs.Extras == nil || obs.Extras.AXTreeTxt == "" {
				b.Fatal("no extras with grounding on")
			}
			size = append(size, gzipJSON(b, obs.Extras))
		} else {
			off = append(off, d)
		}
		return obs
	}
	for b.Loop() {
		dy := 300
		if n%2 == 1 {
			dy = -300
		}
		first, second := engine.GroundingOff, engine.GroundingOn
		if n%2 == 1 {
			first, second = second, first
		}
		timed(first, dy)
		timed(second, -dy)
		n++
		if e.State().StepCount >= e.set.MaxSteps-2 {
			b.StopTimer()
			page = (page + 1) % len(pages)
			ground(engine.GroundingOff)
			reset(b, e, pages[page])
			b.StartTimer()
		}
	}
	b.StopTimer()
	// The DOM snapshot's size, on a fresh page of each kind.
	var domSize []int
	ground(engine.GroundingDOM)
	for _, p := range pages {
		obs := reset(b, e, p)
		if obs.Extras == nil || len(obs.Extras.DOM) == 0 {
			b.Fatal("no dom_object with grounding dom")
		}
		domSize = append(domSize, gzipJSON(b, obs.Extras))
	}
	ground(engine.GroundingOff)
	median := func(s []time.Duration) float64 {
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	medianInt := func(s []int) float64 { slices.Sort(s); return float64(s[len(s)/2]) }
	mOff, mOn := median(off), median(on)
	b.ReportMetric(mOff, "ms/median-off")
	b.ReportMetric(mOn, "ms/median-on")
	b.ReportMetric(100*(mOn-mOff)/mOff, "%added")
	b.ReportMetric(medianInt(size)/1024, "KiB/step-gz")
	b.ReportMetric(medianInt(domSize)/1024, "KiB/step-gz-dom")
	b.ReportMetric(0, "ns/op")
}

// gzipJSON is the size of v as gzip-compressed JSON.
func gzipJSON(b *testing.B, v any) int {
	js, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(js)
	zw.Close()
	return buf.Len()
}
