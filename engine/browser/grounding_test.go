package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// groundPage is a small page for the grounding tests: a button at a known
// place, an input, a same-origin frame with a button of its own, a shadow
// root, and a long body (an element below the fold).
const groundPage = `<!doctype html><html><head><title>ground</title><style>
body { margin: 0; font: 16px sans-serif; height: 2000px; }
#buy { position: absolute; left: 100px; top: 50px; width: 120px; height: 40px; }
#q { position: absolute; left: 300px; top: 50px; width: 200px; height: 30px; }
#fr { position: absolute; left: 100px; top: 200px; width: 300px; height: 150px; border: 5px solid #000; padding: 0; }
#host { position: absolute; left: 500px; top: 200px; }
#far { position: absolute; left: 10px; top: 1500px; width: 80px; height: 30px; }
</style></head><body>
<button id="buy" aria-label="Buy now">Buy</button>
<input id="q" placeholder="Search">
<iframe id="fr" src="/inner"></iframe>
<div id="host"></div>
<button id="far">Far</button>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button id="sb" style="width:90px;height:30px">Shadow</button>';
window.rec = {clicks: 0, mutations: 0};
document.getElementById('buy').addEventListener('click', () => rec.clicks++);
</script></body></html>`

const groundInner = `<!doctype html><html><body style="margin:0">
<button id="ib" style="position:absolute;left:20px;top:30px;width:100px;height:30px">Inner</button></body></html>`

func groundSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(groundPage))
	mux.HandleFunc("/inner", page(groundInner))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func TestGrounding(t *testing.T) {
	ts := groundSite(t)
	e := newEngine(t, engine.DisplayHeadless, nil)
	ctx := context.Background()

	t.Run("ElementMissing", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		_, err := e.Element(ctx, "zz99")
		if !errors.Is(err, ErrNoElement) {
			t.Fatalf("want ErrNoElement, got %v", err)
		}
		want := `no element with bid "zz99" in the page (bids change when the page changes: read the latest observation)`
		if err.Error() != want {
			t.Errorf("message:\n got %s\nwant %s", err, want)
		}
	})

	t.Run("ElementInFrame", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		if tg, err := e.Element(ctx, "0"); err != nil || tg.Tag != "html" {
			t.Fatalf("bid 0: %+v %v", tg, err)
		}
		bid := eval[string](t, e, `document.getElementById('fr').contentDocument.getElementById('ib').getAttribute('bid')`)
		fbid := eval[string](t, e, `document.getElementById('fr').getAttribute('bid')`)
		if fbid != "a" || len(bid) < 2 || bid[:1] != "a" {
			t.Fatalf("frame bid %q, inner button bid %q: want the frame's letter as the prefix", fbid, bid)
		}
		tg, err := e.Element(ctx, bid)
		if err != nil {
			t.Fatal(err)
		}
		// frame content at 100+5, 200+5; button at 20, 30 inside.
		if tg.Tag != "button" || tg.BBox != [4]float64{125, 235, 100, 30} || tg.Name != "Inner" || tg.Role != "button" {
			t.Errorf("target %+v", tg)
		}
		if tg.Selector != "#fr >>> #ib" {
			t.Errorf("selector %q", tg.Selector)
		}
	})

	t.Run("ElementScrolls", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		e.Element(ctx, "0")
		bid := eval[string](t, e, `document.getElementById('far').getAttribute('bid')`)
		tg, err := e.Element(ctx, bid)
		if err != nil {
			t.Fatal(err)
		}
		if tg.BBox[1] < 0 || tg.BBox[1]+tg.BBox[3] > 600 {
			t.Errorf("not scrolled into view: %+v", tg)
		}
	})
}

var _ = action.Click
