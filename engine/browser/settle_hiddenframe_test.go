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

// Cross-site frames that change but are not on the screen (one
// display:none, one below the fold) draw no animation frames to wait for:
// the observation's screenshot does not wait for them (it waited
// frameDrawWait and more at every step).
func TestScreenshotDoesNotWaitForUnseenCrossSiteFrames(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		port := strings.TrimPrefix(r.Host[strings.LastIndex(r.Host, ":"):], ":")
		fmt.Fprintf(w, `<!doctype html><title>parent</title><body style="margin:0">
<button id="b" style="width:300px;height:80px" onclick="document.title='clicked ' + (++n); for (let i = 0; i < frames.length; i++) frames[i].postMessage('go', '*')">parent</button>
<iframe style="display:none" src="http://localhost:%[1]s/child"></iframe>
<iframe style="position:absolute;left:0;top:3000px;width:300px;height:100px;border:0" src="http://localhost:%[1]s/child"></iframe>
<script>let n = 0;</script></body>`, port)
	})
	mux.HandleFunc("/child", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><body><div id="d">idle</div><script>
let n = 0; addEventListener('message', () => { document.getElementById('d').textContent = 'go ' + (++n); });</script></body>`)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
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
