package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// crossSiteSite serves parent at / and child at /child. The parent's %[1]s
// is the server's port: a frame at http://localhost:%[1]s/child is another
// site than the page at 127.0.0.1, so it runs in a process of its own.
func crossSiteSite(t *testing.T, parent, child string) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, parent, strings.TrimPrefix(r.Host[strings.LastIndex(r.Host, ":"):], ":"))
	})
	mux.HandleFunc("/child", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, child)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// A cross-site frame whose process is busy (a script that does not yield)
// cannot answer the settle's probe: it is busy, not quiet, and the step
// waits for it up to the cap. It was taken for quiet once its probe went
// unanswered for a second: under load, a frame's 100 ms timer and its
// change came after an observation that said "quiet" (the staleness
// corpus's iframe-cross-site page, a CI-like loaded run).
func TestSettleWaitsForABusyCrossSiteFrame(t *testing.T) {
	ts := crossSiteSite(t, `<!doctype html><title>parent</title><body style="margin:0">
<button id="b" style="width:300px;height:80px" onclick="document.title='clicked'; frames[0].postMessage('go', '*')">parent</button>
<iframe style="position:absolute;left:0;top:200px;width:800px;height:300px;border:0" src="http://localhost:%[1]s/child"></iframe></body>`,
		// Told by the parent's click, it is busy for good: every probe
		// of it goes unanswered.
		`<!doctype html><body style="background:#efe">busy frame<script>
addEventListener('message', () => { for (;;) {} });</script></body>`)
	// A Chromium of its own, ended with the test: the looping frame's
	// renderer process outlived its episode's browser context (seen still
	// there 10 s after Close), and it must not spin beside the other tests.
	pool := chromium.NewPool(chromium.PoolOptions{NoSpare: true})
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

// Cross-site frames that change but are not on the screen (one
// display:none, one below the fold) draw no animation frames to wait for:
// the observation's screenshot does not wait for them (it waited
// frameDrawWait and more at every step).
func TestScreenshotDoesNotWaitForUnseenCrossSiteFrames(t *testing.T) {
	ts := crossSiteSite(t, `<!doctype html><title>parent</title><body style="margin:0">
<button id="b" style="width:300px;height:80px" onclick="document.title='clicked ' + (++n); for (let i = 0; i < frames.length; i++) frames[i].postMessage('go', '*')">parent</button>
<iframe style="display:none" src="http://localhost:%[1]s/child"></iframe>
<iframe style="position:absolute;left:0;top:3000px;width:300px;height:100px;border:0" src="http://localhost:%[1]s/child"></iframe>
<script>let n = 0;</script></body>`,
		`<!doctype html><body><div id="d">idle</div><script>
let n = 0; addEventListener('message', () => { document.getElementById('d').textContent = 'go ' + (++n); });</script></body>`)
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, ts.URL+"/")
	for i := 1; i <= 2; i++ {
		obs := step(t, e, action.ClickAt(150, 40))
		if want := fmt.Sprintf("clicked %d", i); obs.Title != want {
			t.Fatalf("step %d: title %q, want %q (error %q)", i, obs.Title, want, obs.Error)
		}
		if obs.Timings.CaptureMS >= frameDrawWait.Milliseconds() {
			t.Errorf("step %d: the observation took %d ms to capture: it waited for frames that are not on the screen", i, obs.Timings.CaptureMS)
		}
	}
}
