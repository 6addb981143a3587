package browser

import (
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/chromium"
)

// BenchmarkFirstObservation is the time from a new engine to its first
// observation (a static page), as the desktop app pays it at every Start,
// Undo and replay and serve at every session. "prepared": the Chromium of a
// pool that already runs, with the next episode's browser context made
// ahead (the 2nd…Nth episode of a process, after the time a person takes
// to read the next task); "warm": the same Chromium with no spare context
// (the context is made at the Reset); "cold": a Chromium (and Xvfb) started
// for the episode, what every episode paid before the pool.
func BenchmarkFirstObservation(b *testing.B) {
	ts := newSite(b)
	for _, mode := range []string{"prepared", "warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			var pool *chromium.Pool
			if mode != "cold" {
				pool = chromium.NewPool(chromium.PoolOptions{NoSpare: mode == "warm"})
				b.Cleanup(pool.Close)
				first := newEngine(b, engine.DisplayAuto, func(o *Options) { o.Pool = pool })
				reset(b, first, ts.URL+"/page2") // the process's first episode starts the browser
				first.Close()
			}
			var samples []time.Duration
			for b.Loop() {
				p := pool
				if mode == "cold" {
					p = chromium.NewPool(chromium.PoolOptions{})
				}
				if mode == "prepared" {
					b.StopTimer()
					waitSpare(b, pool)
					b.StartTimer()
				}
				start := time.Now()
				e := newEngine(b, engine.DisplayAuto, func(o *Options) { o.Pool = p })
				obs := reset(b, e, ts.URL+"/page2")
				samples = append(samples, time.Since(start))
				if obs.Title != "page 2" || len(obs.Screenshot) == 0 {
					b.Fatalf("first observation: %q, %d bytes of screenshot", obs.Title, len(obs.Screenshot))
				}
				b.StopTimer()
				e.Close()
				if mode == "cold" {
					p.Close()
				}
				b.StartTimer()
			}
			report(b, samples)
		})
	}
}
