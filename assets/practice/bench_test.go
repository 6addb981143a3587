package practice

import (
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkRenderPages measures server-side rendering of typical pages (the
// practice server must never be what slows a step down).
func BenchmarkRenderPages(b *testing.B) {
	h, err := Handler()
	if err != nil {
		b.Fatal(err)
	}
	pages := []struct{ host, path string }{
		{"shop.waymark.test", "/"},
		{"shop.waymark.test", "/category/footwear?min=50&max=200&sort=price-asc"},
		{"shop.waymark.test", "/search?q=waterproof+boots"},
		{"shop.waymark.test", "/product/summit-gtx"},
		{"wiki.waymark.test", "/wiki/Kaldoria"},
		{"wiki.waymark.test", "/search?q=river"},
		{"forms.waymark.test", "/book"},
	}
	start := time.Now()
	n := 0
	for b.Loop() {
		for _, p := range pages {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "http://"+p.host+p.path, nil))
			if rec.Code != 200 {
				b.Fatalf("%s%s: %d", p.host, p.path, rec.Code)
			}
			n++
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(n), "µs/page")
}
