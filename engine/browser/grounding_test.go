package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/assets/practice"
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
<span id="gone" style="display:none">hidden</span>
<div id="lst" style="position:absolute;left:600px;top:50px;width:80px;height:30px">listens</div>
<script>
document.getElementById('lst').addEventListener('click', () => {});
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button id="sb" style="width:90px;height:30px">Shadow</button>';
window.rec = {clicks: 0, mutations: 0};
document.getElementById('buy').addEventListener('click', () => rec.clicks++);
</script></body></html>`

// axPage is a small hermetic page whose flattened tree the test knows.
const axPage = `<!doctype html><html><head><title>ax</title></head><body>
<h1>Shop</h1>
<p>Find <b>red</b> shoes</p>
<button>OK</button>
<a href="/x">Go 'there'</a>
<input aria-label="Query" value="boots" required>
<input type="checkbox" checked aria-label="Agree">
<ul><li>One</li></ul>
</body></html>`

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
	mux.HandleFunc("/ax", page(axPage))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// TestGrounding shares one headless browser across its subtests, which
// run in order: the Element subtests use the page ClickTarget left.
func TestGrounding(t *testing.T) {
	ts := groundSite(t)
	ps, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ps.Close() })
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.HostRules = ps.HostRules() })
	ctx := context.Background()
	ground := func(g engine.Grounding) { e.mu.Lock(); e.set.Grounding = g; e.mu.Unlock() }

	t.Run("ClickTarget", func(t *testing.T) {
		ground(engine.GroundingOn)
		defer ground(engine.GroundingOff)
		obs := reset(t, e, ts.URL+"/")
		if obs.Extras == nil || obs.Target != nil {
			t.Fatalf("reset: extras %v target %v", obs.Extras != nil, obs.Target)
		}
		buy := eval[string](t, e, `document.getElementById('buy').getAttribute('bid')`)
		obs = step(t, e, action.ClickAt(130, 60))
		want := action.Target{Bid: buy, Tag: "button", Role: "button", Name: "Buy now", BBox: [4]float64{100, 50, 120, 40}, Selector: "#buy"}
		if obs.Target == nil || *obs.Target != want {
			t.Fatalf("click target\n got %+v\nwant %+v", obs.Target, want)
		}
		x := obs.Extras
		if x == nil || x.LastAction != "mouse_click(130, 60)" || x.LastActionError != "" || x.FocusedBid != buy ||
			len(x.OpenPagesURLs) != 1 || x.OpenPagesURLs[0] != ts.URL+"/" || x.OpenPagesTitles[0] != "ground" || x.ActivePageIndex != 0 {
			t.Fatalf("extras %+v", x)
		}
		if p := x.ElementProps[buy]; p.BBox == nil || *p.BBox != [4]float64{100, 50, 120, 40} || p.Visibility != 1 || !p.Clickable || !p.SetOfMarks {
			t.Errorf("props of the button: %+v", p)
		}
		far := eval[string](t, e, `document.getElementById('far').getAttribute('bid')`)
		if p := x.ElementProps[far]; p.Visibility != 0 || p.BBox == nil {
			t.Errorf("props of the button below the fold: %+v", p)
		}
		if !strings.Contains(x.AXTreeTxt, "["+buy+"] button 'Buy now', focused") {
			t.Errorf("axtree_txt lacks the focused button:\n%s", x.AXTreeTxt)
		}
		inner := eval[string](t, e, `document.getElementById('fr').contentDocument.getElementById('ib').getAttribute('bid')`)
		if !strings.Contains(x.AXTreeTxt, "["+inner+"] button 'Inner'") {
			t.Errorf("axtree_txt lacks the framed button %s:\n%s", inner, x.AXTreeTxt)
		}
		// Nothing of the marking stays in the aria attributes.
		if n := eval[int](t, e, `document.querySelectorAll('[aria-description],[aria-roledescription]').length`); n != 0 {
			t.Errorf("%d elements keep an aria prefix", n)
		}
		// Typing: the target is the focused element.
		step(t, e, action.ClickAt(350, 60))
		obs = step(t, e, action.Action{Op: action.Type, Text: "shoes"})
		if obs.Target == nil || obs.Target.Tag != "input" || obs.Target.Role != "textbox" || obs.Target.Name != "Search" || obs.Target.Selector != "#q" {
			t.Errorf("type target %+v", obs.Target)
		}
		// The OpenEnv observation is the same with extras as without.
		with, _ := json.Marshal(obs)
		obs.Extras, obs.Target = nil, nil
		without, _ := json.Marshal(obs)
		if string(with) != string(without) {
			t.Errorf("extras leak into the observation JSON:\n%s\n%s", with, without)
		}
	})

	t.Run("ElementMissing", func(t *testing.T) {
		_, err := e.Element(ctx, "zz99")
		if !errors.Is(err, ErrNoElement) {
			t.Fatalf("want ErrNoElement, got %v", err)
		}
		want := `no element with bid "zz99" in the page (bids change when the page changes: read the latest observation)`
		if err.Error() != want {
			t.Errorf("message:\n got %s\nwant %s", err, want)
		}
		gone := eval[string](t, e, `document.getElementById('gone').getAttribute('bid')`)
		tg, err := e.Element(ctx, gone)
		if !errors.Is(err, ErrNotDisplayed) || tg.Tag != "span" {
			t.Fatalf("hidden element: want ErrNotDisplayed and its description, got %+v %v", tg, err)
		}
		want = `the element with bid "` + gone + `" (span) is not displayed: it has no box on the page to act on (choose a visible element from the latest observation)`
		if err.Error() != want {
			t.Errorf("message:\n got %s\nwant %s", err, want)
		}
	})

	t.Run("ElementInFrame", func(t *testing.T) {
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
		bid := eval[string](t, e, `document.getElementById('far').getAttribute('bid')`)
		tg, err := e.Element(ctx, bid)
		if err != nil {
			t.Fatal(err)
		}
		if tg.BBox[1] < 0 || tg.BBox[1]+tg.BBox[3] > 600 {
			t.Errorf("not scrolled into view: %+v", tg)
		}
	})

	t.Run("AXTreeTxt", func(t *testing.T) {
		ground(engine.GroundingOn)
		defer ground(engine.GroundingOff)
		obs := reset(t, e, ts.URL+"/ax")
		if obs.Extras == nil {
			t.Fatal("no extras")
		}
		// As flatten_axtree_to_str: the root has no bid (it is the
		// document), StaticText inside a name is dropped, the paragraph's
		// empty name is printed as '', a name holding ' is in double quotes.
		want := "RootWebArea 'ax', focused, url='" + ts.URL + "/ax'\n" +
			"\t[4] heading 'Shop'\n" +
			"\t[5] paragraph ''\n" +
			"\t\tStaticText 'Find'\n" +
			"\t\tStaticText 'red'\n" +
			"\t\tStaticText 'shoes'\n" +
			"\t[7] button 'OK'\n" +
			"\t[8] link \"Go 'there'\", url='" + ts.URL + "/x'\n" +
			"\t[9] textbox 'Query' value='boots', required\n" +
			"\t\tStaticText 'boots'\n" +
			"\t[10] checkbox 'Agree', checked='true'\n" +
			"\t[11] list ''\n" +
			"\t\t[12] listitem ''\n" +
			"\t\t\tListMarker '•'\n" +
			"\t\t\tStaticText 'One'"
		if obs.Extras.AXTreeTxt != want {
			t.Errorf("axtree_txt\n got %q\nwant %q", obs.Extras.AXTreeTxt, want)
		}
	})

	t.Run("DOMClickable", func(t *testing.T) {
		ground(engine.GroundingDOM)
		defer ground(engine.GroundingOff)
		obs := reset(t, e, ts.URL+"/")
		if obs.Extras == nil || len(obs.Extras.DOM) == 0 {
			t.Fatal("no dom_object")
		}
		// Chromium's isClickable: the div with a click listener is (the
		// page script alone cannot see listeners), the shadow host is not.
		lst := eval[string](t, e, `document.getElementById('lst').getAttribute('bid')`)
		host := eval[string](t, e, `document.getElementById('host').getAttribute('bid')`)
		if !obs.Extras.ElementProps[lst].Clickable || obs.Extras.ElementProps[host].Clickable {
			t.Errorf("clickable: listening div %v, host %v", obs.Extras.ElementProps[lst], obs.Extras.ElementProps[host])
		}
		// The snapshot's strings hold no marking prefix.
		if bytes.Contains(obs.Extras.DOM, []byte("browsergym_id_")) {
			t.Error("dom_object holds the aria prefixes")
		}
	})

	// focused_element_bid is BrowserGym's: document.activeElement's bid,
	// through open shadow roots and into a focused same-origin frame; with
	// nothing focused that is the body (of the frame, when the frame has
	// the focus and nothing in it does).
	t.Run("FocusedBid", func(t *testing.T) {
		ground(engine.GroundingOn)
		defer ground(engine.GroundingOff)
		focused := func(obs action.Observation) string {
			t.Helper()
			if obs.Extras == nil {
				t.Fatal("no extras")
			}
			return obs.Extras.FocusedBid
		}
		obs := reset(t, e, ts.URL+"/")
		body := eval[string](t, e, `document.body.getAttribute('bid')`)
		if body == "" || focused(obs) != body {
			t.Errorf("nothing focused: focused_element_bid %q, want the body's bid %q", focused(obs), body)
		}
		// frame content at 105, 205 (300×150); its button at 20, 30 inside
		obs = step(t, e, action.ClickAt(350, 320))
		innerBody := eval[string](t, e, `document.getElementById('fr').contentDocument.body.getAttribute('bid')`)
		if !eval[bool](t, e, `document.activeElement === document.getElementById('fr')`) {
			t.Fatal("a click in the frame did not focus it")
		}
		if innerBody == "" || focused(obs) != innerBody {
			t.Errorf("the frame focused, nothing in it: focused_element_bid %q, want its body's bid %q", focused(obs), innerBody)
		}
		obs = step(t, e, action.ClickAt(175, 250))
		ib := eval[string](t, e, `document.getElementById('fr').contentDocument.getElementById('ib').getAttribute('bid')`)
		if focused(obs) != ib {
			t.Errorf("the framed button focused: focused_element_bid %q, want %q", focused(obs), ib)
		}
		obs = step(t, e, action.ClickAt(545, 215))
		sb := eval[string](t, e, `document.getElementById('host').shadowRoot.getElementById('sb').getAttribute('bid')`)
		if focused(obs) != sb {
			t.Errorf("the shadow root's button focused: focused_element_bid %q, want %q", focused(obs), sb)
		}
		obs = step(t, e, action.ClickAt(700, 500))
		if focused(obs) != body {
			t.Errorf("after a click on the page's background: focused_element_bid %q, want the body's bid %q", focused(obs), body)
		}
		// Typing's target is still the focused element only: none here.
		if obs = step(t, e, action.Action{Op: action.Type, Text: "x"}); obs.Target != nil {
			t.Errorf("type with nothing focused: target %+v, want none", obs.Target)
		}
	})

	t.Run("BidsStableAcrossReload", func(t *testing.T) {
		ground(engine.GroundingOn)
		defer ground(engine.GroundingOff)
		list := `Array.from(document.querySelectorAll('[bid]')).map(e => e.tagName + '=' + e.getAttribute('bid') + '/' + (e.id || '')).join(' ')`
		reset(t, e, "http://shop.waymark.test/")
		a := eval[string](t, e, list)
		reset(t, e, "http://shop.waymark.test/")
		b := eval[string](t, e, list)
		if a == "" || a != b {
			t.Fatalf("bids differ across a reload:\n%s\n%s", a, b)
		}
		if !strings.HasPrefix(a, "HTML=0/ HEAD=1/") {
			t.Errorf("bids do not start as BrowserGym's (html 0, head 1): %.80s", a)
		}
	})

	t.Run("RenderingUnchanged", func(t *testing.T) {
		shots := map[engine.Grounding][]byte{}
		state := map[engine.Grounding]string{}
		probe := `JSON.stringify([document.title, location.href, Object.keys(window).sort().join(','), document.querySelector('input') ? document.querySelector('input').value : ''])`
		for _, g := range []engine.Grounding{engine.GroundingOff, engine.GroundingDOM} {
			ground(g)
			reset(t, e, "http://shop.waymark.test/")
			obs := step(t, e, action.Action{Op: action.Scroll, DY: 200})
			shots[g] = obs.Screenshot
			state[g] = eval[string](t, e, probe)
			if (g == engine.GroundingDOM) != (obs.Extras != nil && len(obs.Extras.DOM) > 0) {
				t.Errorf("grounding %q: dom_object present %v", g, obs.Extras != nil && len(obs.Extras.DOM) > 0)
			}
		}
		ground(engine.GroundingOff)
		if !bytes.Equal(pixels(t, shots[engine.GroundingOff]), pixels(t, shots[engine.GroundingDOM])) {
			t.Errorf("the screenshot with marking differs from the one without")
		}
		if state[engine.GroundingOff] != state[engine.GroundingDOM] {
			t.Errorf("the page's state differs:\n%s\n%s", state[engine.GroundingOff], state[engine.GroundingDOM])
		}
	})

}

// pixels decodes a PNG to RGBA bytes.
func pixels(t *testing.T, b []byte) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba.Pix
}
