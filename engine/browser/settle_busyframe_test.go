package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// A cross-site frame whose process is busy (a script that does not yield)
// cannot answer the settle's probe: it is busy, not quiet, and the step
// waits for it up to the cap. It was taken for quiet once its probe went
// unanswered for a second: under load, a frame's 100 ms timer and its
// change came after an observation that said "quiet" (the staleness
// corpus's iframe-cross-site page, a CI-like loaded run).
func TestSettleWaitsForABusyCrossSiteFrame(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>parent</title><body style="margin:0">
<button id="b" style="width:300px;height:80px" onclick="document.title='clicked'; frames[0].postMessage('go', '*')">parent</button>
<iframe style="position:absolute;left:0;top:200px;width:800px;height:300px;border:0" src="http://localhost:%s/busy"></iframe></body>`,
			strings.TrimPrefix(r.Host[strings.LastIndex(r.Host, ":"):], ":"))
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// Told by the parent's click, it is busy for good: every probe
		// of it goes unanswered.
		fmt.Fprint(w, `<!doctype html><body style="background:#efe">busy frame<script>
addEventListener('message', () => { for (;;) {} });</script></body>`)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	// A Chromium of its own, ended with the test: the looping frame's
	// renderer process outlived its episode's browser context (seen still
	// there 10 s after Close), and it must not spin beside the other tests.
	pool := NewPool(PoolOptions{NoSpare: true})
	t.Cleanup(pool.Close)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	reset(t, e, ts.URL+"/")
	// The parent's click tells the frame, which then never answers again.
	obs := step(t, e, action.ClickAt(150, 40))
	if obs.Title != "clicked" {
		t.Fatalf("the parent's button was not clicked: title %q, error %q", obs.Title, obs.Error)
	}
	if obs.Timings.SettledBy != action.SettledCap {
		t.Errorf("a step beside a frame that never answers settled by %q, want %q (the frame is busy)", obs.Timings.SettledBy, action.SettledCap)
	}
}
