package browser

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/chromedp"

	"waymark/assets/practice"
	"waymark/engine"
	"waymark/engine/action"
)

// BenchmarkGroundingMaskSecrets measures what masking the secret fields
// adds to a grounded step: on the practice shop's checkout page with a card
// number typed, the median time to mask its DOM snapshot and its
// accessibility tree (each from the same raw capture every time), the
// median time of all a step does with the snapshot (one decode: masking
// and clickable bids), and the snapshot's size.
func BenchmarkGroundingMaskSecrets(b *testing.B) {
	ps, err := practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ps.Close() })
	e := newEngine(b, engine.DisplayHeadless, func(o *Options) {
		o.HostRules = ps.HostRules()
		o.Settings.Grounding = engine.GroundingDOM
	})
	reset(b, e, "http://shop.waymark.test/checkout")
	step(b, e, action.ScrollBy(600))
	step(b, e, action.ClickAt(277, 305))
	if obs := step(b, e, action.TypeText("4000056655665556")); !obs.Redacted {
		b.Fatal("the click missed the card field")
	}
	e.mu.Lock()
	t := e.ep.tab
	e.mu.Unlock()
	ctx := context.Background()
	res, err := e.runMarks(ctx, t, markOpts{Op: "mark", Full: true, Aria: true})
	if err != nil || len(res.Secrets) == 0 {
		b.Fatalf("marking: %v, %d secret fields", err, len(res.Secrets))
	}
	tree, err := e.readAXTree(ctx, t)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.runMarks(ctx, t, markOpts{Op: "unaria"}); err != nil {
		b.Fatal(err)
	}
	treeJSON, _ := json.Marshal(tree)
	yes := true
	var snap json.RawMessage
	err = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		snap, err = chromedp.Call(c, captureSnapshot, domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{}, IncludeDOMRects: &yes, IncludePaintOrder: &yes})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	var snapD, axD, bothD []time.Duration
	for b.Loop() {
		start := time.Now()
		var ds domSnap
		if json.Unmarshal(snap, &ds) != nil {
			b.Fatal("the snapshot was not read")
		}
		if _, ok := ds.maskSecrets(snap); !ok {
			b.Fatal("the snapshot was not written back")
		}
		snapD = append(snapD, time.Since(start))
		start = time.Now()
		if _, click, ok := readDOMSnapshot(snap); !ok || len(click) == 0 {
			b.Fatalf("the snapshot was not read (%d clickable)", len(click))
		}
		bothD = append(bothD, time.Since(start))
		var tr axTree
		if err := json.Unmarshal(treeJSON, &tr); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		e.maskAXSecrets(ctx, t, &tr, res.Secrets)
		axD = append(axD, time.Since(start))
	}
	median := func(s []time.Duration) float64 {
		slices.Sort(s)
		return float64(s[len(s)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(snapD), "ms/mask-dom")
	b.ReportMetric(median(bothD), "ms/dom-extras")
	b.ReportMetric(median(axD), "ms/mask-ax")
	b.ReportMetric(float64(len(snap))/1024, "KiB/dom")
	b.ReportMetric(float64(len(tree.Nodes)), "axnodes")
	b.ReportMetric(0, "ns/op")
}
