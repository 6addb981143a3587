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
)

// shopEngines starts the practice shop for a benchmark (closed when it
// ends, after the engines) and returns a maker of headless engines whose
// host rules lead to it, each further set by mod (nil: nothing more).
func shopEngines(b *testing.B) func(mod func(*Options)) *Engine {
	ps, err := practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ps.Close() })
	return func(mod func(*Options)) *Engine {
		return newEngine(b, engine.DisplayHeadless, func(o *Options) {
			o.HostRules = ps.HostRules()
			if mod != nil {
				mod(o)
			}
		})
	}
}

// medianMS sorts d and returns its median in milliseconds (to the
// microsecond).
func medianMS(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Microseconds()) / 1000
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
