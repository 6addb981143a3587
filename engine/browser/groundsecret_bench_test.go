package browser

import (
	"context"
	"encoding/json"
	"testing"
	"time"

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
	e := shopEngines(b)(func(o *Options) { o.Settings.Grounding = engine.GroundingDOM })
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
	snap, err := e.captureDOMSnapshot(ctx, t)
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
	b.ReportMetric(medianMS(snapD), "ms/mask-dom")
	b.ReportMetric(medianMS(bothD), "ms/dom-extras")
	b.ReportMetric(medianMS(axD), "ms/mask-ax")
	b.ReportMetric(float64(len(snap))/1024, "KiB/dom")
	b.ReportMetric(float64(len(tree.Nodes)), "axnodes")
	b.ReportMetric(0, "ns/op")
}
