package openenv

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
	"waymark/internal/stats"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// BenchmarkStepOverhead measures what serving adds to a step: the same
// scroll steps, alternately on a browser engine called in process and on a
// browser engine behind the OpenEnv server, driven by the Go client over a
// real WebSocket on 127.0.0.1 (JSON, base64 PNG and the socket both ways).
// Reported: median ms/step for each, and the median (and 90th percentile)
// of what serving adds to a step: the client's round trip minus the served
// engine's own time in Step.
func BenchmarkStepOverhead(b *testing.B) {
	s := newSite(b)
	set := testSettings()
	set.MaxSteps = engine.MaxMaxSteps
	local, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	var es engines
	served := &timedEngine{}
	factory := func(context.Context) (engine.Engine, error) {
		e, err := browser.New(browser.Options{Settings: set})
		if err != nil {
			return nil, err
		}
		es.mu.Lock()
		es.list = append(es.list, e)
		es.mu.Unlock()
		served.Engine = e
		return served, nil
	}
	defer func() {
		for _, e := range es.all() {
			e.Close()
		}
	}()
	_, hs := testServer(b, Options{NewEngine: factory, Logf: func(string, ...any) {}})
	ctx := context.Background()
	remote, err := Dial(ctx, hs.URL, ClientOptions{MaxSteps: set.MaxSteps})
	if err != nil {
		b.Fatal(err)
	}
	defer remote.Close()
	start := engine.ResetOptions{StartURL: s.URL + "/"}
	resetBoth := func() {
		if _, err := local.Reset(ctx, start); err != nil {
			b.Fatal(err)
		}
		if _, err := remote.Reset(ctx, start); err != nil {
			b.Fatal(err)
		}
	}
	resetBoth()
	var inproc, socket, added []float64
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if local.State().StepCount >= set.MaxSteps-2 {
			b.StopTimer()
			resetBoth()
			b.StartTimer()
		}
		dy := 300
		if i%2 == 1 {
			dy = -300
		}
		t0 := time.Now()
		if _, err := local.Step(ctx, action.ScrollBy(dy)); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		o, err := remote.Step(ctx, action.ScrollBy(dy))
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if len(o.Screenshot) == 0 {
			b.Fatal("no screenshot over the socket")
		}
		inproc = append(inproc, ms(t1.Sub(t0)))
		socket = append(socket, ms(t2.Sub(t1)))
		added = append(added, ms(t2.Sub(t1)-time.Duration(served.last.Load())))
	}
	b.StopTimer()
	mi, msock := stats.Median(inproc), stats.Median(socket)
	b.ReportMetric(mi, "inproc-ms/step")
	b.ReportMetric(msock, "socket-ms/step")
	// Added by serving: the client's round trip minus the time the served
	// engine spent in Step, per step (same step, so browser noise cancels).
	b.ReportMetric(stats.Median(added), "added-ms/step")
	b.ReportMetric(stats.Percentile(added, 0.9), "added-p90-ms/step")
	b.ReportMetric(0, "ns/op") // the pair of steps is not the figure of interest
}

// timedEngine records how long the served engine's last Step took.
type timedEngine struct {
	engine.Engine
	last atomic.Int64 // ns
}

func (t *timedEngine) Step(ctx context.Context, a action.Action) (engine.Observation, error) {
	start := time.Now()
	o, err := t.Engine.Step(ctx, a)
	t.last.Store(int64(time.Since(start)))
	return o, err
}
