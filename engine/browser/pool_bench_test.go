package browser

import (
	"testing"
	"time"

	"waymark/engine"
)

// BenchmarkFirstObservation is the time from a new engine to its first
// observation (a static page), as the desktop app pays it at every Start,
// Undo and replay and serve at every session: "warm" takes the Chromium of
// a pool that already runs (the 2nd…Nth episode of a process), "cold"
// starts one for the episode (what every episode paid before the pool).
func BenchmarkFirstObservation(b *testing.B) {
	ts := newSite(b)
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			var pool *Pool
			if mode == "warm" {
				pool = NewPool(PoolOptions{})
				b.Cleanup(pool.Close)
				first := newEngine(b, engine.DisplayAuto, func(o *Options) { o.Pool = pool })
				reset(b, first, ts.URL+"/page2") // the process's first episode starts the browser
				first.Close()
			}
			var samples []time.Duration
			for b.Loop() {
				p := pool
				if mode == "cold" {
					p = NewPool(PoolOptions{})
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
