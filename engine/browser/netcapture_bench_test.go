package browser

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"testing"
	"time"

	"waymark/engine/action"
)

// BenchmarkHARCapture is the cost of network capture on the practice shop:
// two engines, one capturing and one not, go through the same pages (each
// a navigation whose page fetches the shop's JSON API), one step each in
// turn. It reports the median step time with capture off and on, the
// added percentage (the target is at most 10 %), and the bytes a step's
// entries take in the store (gzip JSON, as har_chunks keeps them).
func BenchmarkHARCapture(b *testing.B) {
	engines := shopEngines(b)
	mk := func(on bool) *Engine {
		return engines(func(o *Options) {
			o.Settings.ActionSet = action.SetExtended
			o.Settings.HAR = on
		})
	}
	off, on := mk(false), mk(true)
	const shop = "http://shop.waymark.test"
	pages := []string{"/", "/category/footwear", "/search?q=boots", "/product/trail-runner-x", "/product/summit-gtx", "/cart"}
	reset(b, off, shop+"/")
	reset(b, on, shop+"/")
	on.TakeHAR(false)
	timed := func(e *Engine, u string) time.Duration {
		start := time.Now()
		if _, err := e.Step(context.Background(), action.Action{Op: action.Goto, URL: u}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var tOff, tOn []time.Duration
	var stored, entries int
	i := 0
	for b.Loop() {
		u := shop + pages[i%len(pages)]
		i++
		if i%2 == 0 { // alternate which goes first
			tOff = append(tOff, timed(off, u))
			tOn = append(tOn, timed(on, u))
		} else {
			tOn = append(tOn, timed(on, u))
			tOff = append(tOff, timed(off, u))
		}
		c := on.TakeHAR(false)
		entries += len(c.Entries)
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if err := json.NewEncoder(zw).Encode(c.Entries); err != nil {
			b.Fatal(err)
		}
		zw.Close()
		stored += buf.Len()
		// Each engine ends its episode at the step limit: start again.
		if on.State().StepCount >= on.set.MaxSteps-1 {
			reset(b, off, shop+"/")
			reset(b, on, shop+"/")
			on.TakeHAR(false)
		}
	}
	mOff, mOn := medianMS(tOff), medianMS(tOn)
	b.ReportMetric(mOff, "ms/step-off")
	b.ReportMetric(mOn, "ms/step-on")
	b.ReportMetric(100*(mOn-mOff)/mOff, "%added")
	b.ReportMetric(float64(stored)/float64(len(tOn)), "B/step")
	b.ReportMetric(float64(entries)/float64(len(tOn)), "entries/step")
	b.ReportMetric(0, "ns/op")
}
