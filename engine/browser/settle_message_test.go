package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// A message posted to a window (the page's own, a frame's, the parent's)
// is recorded as posted, so the step waits until it is received. A
// window's postMessage is the window's own property, not Window.prototype's
// (Window is the global object's interface), and the recorder wrapped only
// the prototype's, which does not exist: window messages were never
// waited for, and on a loaded machine the staleness corpus's iframe-message
// page (a frame's timer posts to the parent, whose handler changes the
// page) was observed before the parent heard it.
func TestSettleRecordsWindowMessages(t *testing.T) {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(`<!doctype html><title>parent</title><body style="margin:0">
<button style="position:absolute;left:0;top:0;width:200px;height:80px" onclick="window.postMessage('self', '*')">self</button>
<button style="position:absolute;left:300px;top:0;width:200px;height:80px" onclick="frames[0].postMessage('down', '*')">down</button>
<iframe style="position:absolute;left:0;top:200px;width:800px;height:300px;border:0" src="/child"></iframe></body>`))
	mux.HandleFunc("/child", page(`<!doctype html><body style="margin:0">
<button style="width:200px;height:80px" onclick="parent.postMessage('up', '*')">up</button></body>`))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, ts.URL+"/")
	// The latest message posted, as the recorders of the page and its frame
	// hold it (the probe takes the latest of all).
	const sent = `(() => { const K = Symbol.for('waymark.settle'); return Math.max(window[K].sent, frames[0][K].sent); })()`
	for _, c := range []struct {
		how  string
		x, y int
	}{
		{"window.postMessage, to the page itself", 100, 40},
		{"frames[0].postMessage, to a frame", 400, 40},
		{"parent.postMessage, from a frame", 100, 240},
	} {
		before := eval[float64](t, e, `Date.now()`)
		step(t, e, action.ClickAt(c.x, c.y))
		if got := eval[float64](t, e, sent); got < before {
			t.Errorf("%s: the latest message posted was at %.0f, before the click at %.0f: it was not recorded", c.how, got, before)
		}
	}
}
