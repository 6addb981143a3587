package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// The select test site: a grouped select with a disabled option and a
// change listener, a long select near the bottom (its list opens above and
// scrolls), a select in an iframe, and a page taller than the viewport.
const selectPage = `<!doctype html><html><head><title>select</title><style>
body { margin: 0; height: 2000px; font: 16px sans-serif; }
#s { position: absolute; left: 40px; top: 40px; width: 200px; height: 28px; font-size: 14px; }
#out { position: absolute; left: 40px; top: 100px; }
#long { position: absolute; left: 300px; top: 540px; width: 160px; }
#fr { position: absolute; left: 420px; top: 60px; width: 320px; height: 300px; border: 0; }
#dis { position: absolute; left: 40px; top: 160px; width: 120px; }
/* Page CSS that would hide or move anything added after the body. */
body ~ *, html > :last-child:not(body) { display: none !important; opacity: 0 !important; transform: translate(300px, 300px) !important; }
div { background: red; padding: 9px; }
</style></head><body>
<select id="s">
  <option value="">Choose…</option>
  <optgroup label="Fruit"><option value="apple">Apple</option><option value="banana" disabled>Banana</option><option value="cherry">Cherry</option></optgroup>
  <optgroup label="Veg"><option value="leek">Leek</option><option value="pea">Pea</option></optgroup>
</select>
<div id="out">none</div>
<select id="dis" disabled><option>off</option><option>on</option></select>
<select id="lb" size="3" style="position:absolute;left:40px;top:200px;width:120px"><option>one</option><option>two</option><option>three</option></select>
<select id="custom" style="position:absolute;left:40px;top:280px;width:120px" onmousedown="event.preventDefault(); window.customOpened = true"><option>a</option><option>b</option></select>
<select id="long">%s</select>
<iframe id="fr" src="/select-frame"></iframe>
<dialog id="dlg" style="width:300px;height:200px"><select id="ds"><option value="p">Pee</option><option value="q">Queue</option></select></dialog>
<script>
window.log = [];
window.downs = 0;
window.keys = [];
const s = document.getElementById('s');
s.addEventListener('input', e => log.push('input ' + s.value + ' ' + e.bubbles));
s.addEventListener('change', e => { document.getElementById('out').textContent = 'chose ' + s.value; document.title = 'chose ' + s.value; });
document.addEventListener('change', e => log.push('change ' + e.target.id + ' ' + e.target.value + ' ' + e.bubbles));
document.addEventListener('mousedown', () => downs++);
document.addEventListener('keydown', e => keys.push(e.key));
document.getElementById('long').addEventListener('change', e => { document.title = 'long ' + e.target.value; });
</script></body></html>`

const selectFrame = `<!doctype html><html><body style="margin:0;background:#eef">
<select id="fs" style="position:absolute;left:20px;top:20px;width:150px"><option value="x">Ex</option><option value="y">Why</option><option value="z">Zed</option></select>
<script>document.getElementById('fs').addEventListener('change', e => { parent.document.title = 'frame ' + e.target.value; });</script>
</body></html>`

func newSelectSite(t testing.TB) *httptest.Server {
	var opts strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&opts, `<option value="%d">Item %d</option>`, i, i)
	}
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", html(fmt.Sprintf(selectPage, opts.String())))
	mux.HandleFunc("/select-frame", html(selectFrame))
	mux.HandleFunc("/plain", html(page2))
	// A cross-site iframe: other.test is mapped to this server, and runs in
	// its own renderer process.
	mux.HandleFunc("/cross", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := strings.Cut(r.Host, ":")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>cross</title><body style="margin:0"><iframe id="fr" src="http://other.test:%s/select-frame" style="position:absolute;left:100px;top:50px;width:400px;height:300px;border:0"></iframe>`, port)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

type shimRect struct{ X, Y, W, H float64 }

type shimRow struct {
	shimRect
	Kind        string
	Index       int
	Text        string
	Disabled    bool
	Highlighted bool
}

type shimState struct {
	Open        bool
	Box         shimRect
	ScrollTop   float64
	Highlighted int
	Rows        []shimRow
}

func (r shimRect) center() (int, int) { return int(r.X + r.W/2), int(r.Y + r.H/2) }

// popup reads the open list of the window win (a JS expression) from the
// page, in that window's viewport.
func popup(t *testing.T, e *Engine, win string) shimState {
	t.Helper()
	js := eval[string](t, e, `JSON.stringify((`+win+`)[Symbol.for('waymark.select')].state())`)
	var st shimState
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatalf("popup state %s: %v", js, err)
	}
	return st
}

func (st shimState) row(t *testing.T, text string) shimRow {
	t.Helper()
	for _, r := range st.Rows {
		if r.Text == text {
			return r
		}
	}
	t.Fatalf("no row %q in the open list: %+v", text, st.Rows)
	return shimRow{}
}

// inViewport checks that the list lies in the 800×600 viewport (offset by
// the frame's position).
func (st shimState) inViewport(t *testing.T, dx, dy float64) {
	t.Helper()
	b := st.Box
	if !st.Open || b.W < 20 || b.H < 10 || b.X+dx < 0 || b.Y+dy < 0 || b.X+dx+b.W > 800 || b.Y+dy+b.H > 600 {
		t.Fatalf("list not within the viewport: %+v", st)
	}
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img
}

// near reports whether the pixel at x,y is within tol of c on each channel.
func near(img image.Image, x, y int, c [3]int, tol int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	got := [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	for i := range got {
		if math.Abs(float64(got[i]-c[i])) > float64(tol) {
			return false
		}
	}
	return true
}

var (
	highlightRGB = [3]int{0x19, 0x67, 0xd2}
	listRGB      = [3]int{0xef, 0xef, 0xef} // Chromium's popup background
	whiteRGB     = [3]int{255, 255, 255}
)

// checkPicture checks that the screenshot shows the list.
func checkPicture(t *testing.T, shot []byte, st shimState) {
	t.Helper()
	if err := pictureShows(decodePNG(t, shot), st); err != nil {
		t.Error(err)
	}
}

// pictureShows tells whether img shows the list: the highlighted row's
// blue, another row's light grey, the grey border.
func pictureShows(img image.Image, st shimState) error {
	var hi, plain *shimRow
	for i := range st.Rows {
		r := &st.Rows[i]
		if r.Y < st.Box.Y || r.Y+r.H > st.Box.Y+st.Box.H {
			continue
		}
		if r.Highlighted && hi == nil {
			hi = r
		} else if !r.Highlighted && plain == nil {
			plain = r
		}
	}
	if hi == nil || plain == nil {
		return fmt.Errorf("no highlighted and plain row in view: %+v", st)
	}
	// Right end of a row: no text there.
	if x, y := int(hi.X+hi.W-4), int(hi.Y+hi.H/2); !near(img, x, y, highlightRGB, 12) {
		return fmt.Errorf("picture at %d,%d is %v, want the highlight blue", x, y, img.At(x, y))
	}
	if x, y := int(plain.X+plain.W-4), int(plain.Y+plain.H/2); !near(img, x, y, listRGB, 12) {
		return fmt.Errorf("picture at %d,%d is %v, want the list's grey", x, y, img.At(x, y))
	}
	if x, y := int(st.Box.X), int(st.Box.Y+st.Box.H/2); near(img, x, y, listRGB, 40) || near(img, x, y, whiteRGB, 40) {
		return fmt.Errorf("no border at %d,%d: %v", x, y, img.At(x, y))
	}
	return nil
}

func TestSelectPopupXvfb(t *testing.T)     { testSelectPopup(t, engine.DisplayXvfb) }
func TestSelectPopupHeadless(t *testing.T) { testSelectPopup(t, engine.DisplayHeadless) }

func testSelectPopup(t *testing.T, display string) {
	ts := newSelectSite(t)
	e := newEngine(t, display, func(o *Options) {
		o.Settings.ActionSet = action.SetExtended
		o.Settings.MaxSteps = 200
		o.HostRules = "MAP other.test 127.0.0.1:" + hostPort(t, ts.URL)
	})
	if e.Info().Display != display {
		t.Fatalf("display %q, want %q", e.Info().Display, display)
	}
	const win = "window"
	value := func() string { return eval[string](t, e, `document.getElementById('s').value`) }
	hosts := func() int {
		return int(eval[float64](t, e, `document.querySelectorAll('waymark-select-popup-4b1e').length`))
	}
	frames := e.Frames()

	t.Run("no trace on a page without a select", func(t *testing.T) {
		reset(t, e, ts.URL+"/plain")
		if html := eval[string](t, e, `document.documentElement.outerHTML`); strings.Contains(html, "waymark") {
			t.Fatalf("page changed: %s", html)
		}
		if st := popup(t, e, win); st.Open {
			t.Fatal("a list is open")
		}
	})

	t.Run("click opens the list in the picture, a click on an option chooses it", func(t *testing.T) {
		before := reset(t, e, ts.URL+"/")
		obs := step(t, e, action.ClickAt(140, 54))
		st := popup(t, e, win)
		st.inViewport(t, 0, 0)
		if st.Box.Y < 40+28-1 || st.Box.X < 39 || st.Box.W < 199 {
			t.Errorf("list not below the select: %+v", st.Box)
		}
		if want := []string{"Choose…", "Fruit", "Apple", "Banana", "Cherry", "Veg", "Leek", "Pea"}; len(st.Rows) != len(want) {
			t.Fatalf("rows %+v", st.Rows)
		} else {
			for i, w := range want {
				if st.Rows[i].Text != w {
					t.Fatalf("row %d is %q, want %q", i, st.Rows[i].Text, w)
				}
			}
		}
		if st.row(t, "Fruit").Kind != "grp" || !st.row(t, "Banana").Disabled || st.Highlighted != 0 {
			t.Errorf("kinds: %+v", st)
		}
		checkPicture(t, obs.Screenshot, st)
		if pictureShows(decodePNG(t, before.Screenshot), st) == nil {
			t.Fatal("the check finds the list in the screenshot taken before it opened")
		}
		if active := eval[string](t, e, `document.activeElement.id`); active != "s" {
			t.Errorf("focus on %q, want the select", active)
		}
		downs := eval[float64](t, e, `downs`)
		x, y := st.row(t, "Cherry").center()
		obs = step(t, e, action.ClickAt(x, y))
		if v := value(); v != "cherry" {
			t.Fatalf("value %q after a click on Cherry at %d,%d", v, x, y)
		}
		if obs.Title != "chose cherry" {
			t.Errorf("observation title %q: the change listener's update was not observed", obs.Title)
		}
		if got := eval[string](t, e, `log.join('|')`); got != "input cherry true|change s cherry true" {
			t.Errorf("events %q", got)
		}
		if n := eval[float64](t, e, `downs`); n != downs {
			t.Errorf("the page saw %v presses on the list", n-downs)
		}
		if popup(t, e, win).Open || hosts() != 0 {
			t.Error("list still open after a choice")
		}
		// The same option again: no event, as a native choice.
		step(t, e, action.ClickAt(140, 54))
		st = popup(t, e, win)
		if st.Highlighted != 3 {
			t.Errorf("highlighted option %d, want Cherry (3)", st.Highlighted)
		}
		x, y = st.row(t, "Cherry").center()
		step(t, e, action.ClickAt(x, y))
		if n := eval[float64](t, e, `log.length`); n != 2 {
			t.Errorf("choosing the selected option again fired events: %s", eval[string](t, e, `log.join('|')`))
		}
	})

	t.Run("disabled rows and group labels do nothing; Escape closes", func(t *testing.T) {
		step(t, e, action.ClickAt(140, 54))
		st := popup(t, e, win)
		for _, text := range []string{"Banana", "Veg"} {
			x, y := st.row(t, text).center()
			step(t, e, action.ClickAt(x, y))
			if !popup(t, e, win).Open || value() != "cherry" {
				t.Fatalf("a click on %q closed the list or changed the value (%q)", text, value())
			}
		}
		keys := eval[float64](t, e, `keys.length`)
		step(t, e, action.PressKey("ESCAPE"))
		if popup(t, e, win).Open || hosts() != 0 || value() != "cherry" {
			t.Fatalf("after Escape: open %v, value %q", popup(t, e, win).Open, value())
		}
		if n := eval[float64](t, e, `keys.length`); n != keys {
			t.Errorf("the page saw the Escape meant for the list")
		}
		// A disabled select does not open.
		step(t, e, action.ClickAt(80, 170))
		if popup(t, e, win).Open {
			t.Error("a disabled select opened")
		}
		// A list box (size 3) is left to Chromium: a click picks the row.
		r := eval[[]float64](t, e, `(r => [r.left, r.top, r.height])(document.getElementById('lb').getBoundingClientRect())`)
		step(t, e, action.ClickAt(int(r[0])+30, int(r[1]+r[2]/2)))
		if popup(t, e, win).Open || eval[string](t, e, `document.getElementById('lb').value`) != "two" {
			t.Errorf("list box: open %v, value %q", popup(t, e, win).Open, eval[string](t, e, `document.getElementById('lb').value`))
		}
		// A page that handles the press itself (a custom drop-down) gets no list.
		step(t, e, action.ClickAt(80, 290))
		if popup(t, e, win).Open || !eval[bool](t, e, `window.customOpened === true`) {
			t.Error("the list opened over a select whose page prevented the press")
		}
	})

	t.Run("keyboard", func(t *testing.T) {
		step(t, e, action.ClickAt(140, 54))
		step(t, e, action.PressKey("DOWN"))
		st := popup(t, e, win)
		if !st.Open || st.Highlighted != 4 || value() != "cherry" {
			t.Fatalf("after DOWN in the list: highlighted %d value %q", st.Highlighted, value())
		}
		step(t, e, action.PressKey("UP"))
		step(t, e, action.PressKey("UP")) // skips the disabled Banana
		if st := popup(t, e, win); st.Highlighted != 1 {
			t.Fatalf("after UP, UP: highlighted %d, want Apple (1)", st.Highlighted)
		}
		step(t, e, action.PressKey("DOWN"))
		step(t, e, action.PressKey("DOWN"))
		obs := step(t, e, action.PressKey("ENTER"))
		if value() != "leek" || obs.Title != "chose leek" || popup(t, e, win).Open {
			t.Fatalf("ENTER: value %q, title %q", value(), obs.Title)
		}
		// A closed, focused select keeps Chromium's keys: DOWN changes the
		// value without opening.
		obs = step(t, e, action.PressKey("DOWN"))
		if value() != "pea" || popup(t, e, win).Open || obs.Title != "chose pea" {
			t.Fatalf("DOWN on the closed select: value %q, open %v, title %q", value(), popup(t, e, win).Open, obs.Title)
		}
		// SPACE would open the native popup: it opens the list.
		obs = step(t, e, action.PressKey("SPACE"))
		st = popup(t, e, win)
		if !st.Open || st.Highlighted != 5 {
			t.Fatalf("SPACE on the closed select: %+v", st)
		}
		checkPicture(t, obs.Screenshot, st)
		step(t, e, action.PressKey("ESCAPE"))
		if popup(t, e, win).Open || value() != "pea" {
			t.Fatal("Escape after SPACE")
		}
		// So does ENTER (it opens the native popup on Linux).
		step(t, e, action.PressKey("ENTER"))
		if st := popup(t, e, win); !st.Open || st.Highlighted != 5 {
			t.Fatalf("ENTER on the closed select: %+v", st)
		}
		step(t, e, action.PressKey("UP"))
		obs = step(t, e, action.PressKey("ENTER"))
		if value() != "leek" || obs.Title != "chose leek" || popup(t, e, win).Open {
			t.Fatalf("ENTER, UP, ENTER: value %q, title %q", value(), obs.Title)
		}
	})

	t.Run("type-ahead, and press on the select, drag, release on an option", func(t *testing.T) {
		step(t, e, action.ClickAt(140, 54))
		step(t, e, action.TypeText("che"))
		if st := popup(t, e, win); st.Highlighted != 3 || value() != "leek" {
			t.Fatalf("typing \"che\": highlighted %d, value %q", st.Highlighted, value())
		}
		step(t, e, action.PressKey("ENTER"))
		if value() != "cherry" {
			t.Fatalf("value %q after type-ahead and ENTER", value())
		}
		step(t, e, action.ClickAt(140, 54))
		x, y := popup(t, e, win).row(t, "Pea").center()
		step(t, e, action.PressKey("ESCAPE"))
		obs := step(t, e, action.Action{Op: action.Drag, X: action.Int(140), Y: action.Int(54), X2: action.Int(x), Y2: action.Int(y)})
		if value() != "pea" || obs.Title != "chose pea" || popup(t, e, win).Open {
			t.Fatalf("drag to Pea: value %q, title %q", value(), obs.Title)
		}
	})

	t.Run("click outside and scrolling the page close", func(t *testing.T) {
		step(t, e, action.ClickAt(140, 54))
		step(t, e, action.ClickAt(300, 300))
		if popup(t, e, win).Open || hosts() != 0 {
			t.Fatal("still open after a click outside")
		}
		step(t, e, action.ClickAt(140, 54))
		step(t, e, action.ClickAt(140, 54))
		if popup(t, e, win).Open {
			t.Fatal("a second click on the select did not close its list")
		}
		step(t, e, action.ClickAt(140, 54))
		eval[any](t, e, `document.getElementById('s').blur()`)
		if popup(t, e, win).Open {
			t.Fatal("still open after the select lost the focus")
		}
		// The wheel over a list that cannot scroll moves nothing.
		step(t, e, action.ClickAt(140, 54))
		x, y := popup(t, e, win).Box.center()
		step(t, e, action.Action{Op: action.Move, X: action.Int(x), Y: action.Int(y)})
		step(t, e, action.ScrollBy(100))
		if !popup(t, e, win).Open || eval[float64](t, e, `scrollY`) != 0 {
			t.Fatalf("wheel over a short list: open %v, page scrollY %v", popup(t, e, win).Open, eval[float64](t, e, `scrollY`))
		}
		step(t, e, action.Action{Op: action.Move, X: action.Int(300), Y: action.Int(300)})
		step(t, e, action.ScrollBy(100))
		if popup(t, e, win).Open || eval[float64](t, e, `scrollY`) != 100 {
			t.Fatal("still open after the page scrolled")
		}
		step(t, e, action.ScrollBy(-100))
	})

	t.Run("a long list opens above and scrolls", func(t *testing.T) {
		obs := step(t, e, action.ClickAt(380, 550))
		st := popup(t, e, win)
		st.inViewport(t, 0, 0)
		sel := eval[[]float64](t, e, `(r => [r.top, r.bottom])(document.getElementById('long').getBoundingClientRect())`)
		if st.Box.Y+st.Box.H > sel[0]+1 || len(st.Rows) != 40 {
			t.Fatalf("list %+v not above the select at %v (%d rows)", st.Box, sel, len(st.Rows))
		}
		if st.Box.H > 21*st.Rows[0].H+4 {
			t.Errorf("list taller than 20 rows: %v", st.Box.H)
		}
		checkPicture(t, obs.Screenshot, st)
		last := st.row(t, "Item 40")
		if last.Y+last.H <= st.Box.Y+st.Box.H {
			t.Fatalf("Item 40 visible without scrolling: %+v in %+v", last, st.Box)
		}
		x, y := st.Box.center()
		step(t, e, action.Action{Op: action.Move, X: action.Int(x), Y: action.Int(y)})
		step(t, e, action.ScrollBy(1200))
		st = popup(t, e, win)
		if !st.Open || st.ScrollTop == 0 || eval[float64](t, e, `scrollY`) != 0 {
			t.Fatalf("wheel over the list: open %v, list scrollTop %v, page scrollY %v", st.Open, st.ScrollTop, eval[float64](t, e, `scrollY`))
		}
		last = st.row(t, "Item 40")
		if last.Y < st.Box.Y || last.Y+last.H > st.Box.Y+st.Box.H+1 {
			t.Fatalf("Item 40 not in view after scrolling: %+v in %+v", last, st.Box)
		}
		x, y = last.center()
		obs = step(t, e, action.ClickAt(x, y))
		if v := eval[string](t, e, `document.getElementById('long').value`); v != "40" || obs.Title != "long 40" {
			t.Fatalf("value %q title %q after a click on Item 40", v, obs.Title)
		}
	})

	t.Run("a select in an iframe", func(t *testing.T) {
		fr := eval[[]float64](t, e, `(r => [r.left, r.top])(document.getElementById('fr').getBoundingClientRect())`)
		step(t, e, action.ClickAt(int(fr[0])+90, int(fr[1])+30))
		fwin := `document.getElementById('fr').contentWindow`
		st := popup(t, e, fwin)
		st.inViewport(t, fr[0], fr[1])
		x, y := st.row(t, "Zed").center()
		obs := step(t, e, action.ClickAt(x+int(fr[0]), y+int(fr[1])))
		if v := eval[string](t, e, fwin+`.document.getElementById('fs').value`); v != "z" || obs.Title != "frame z" {
			t.Fatalf("iframe select value %q, title %q", v, obs.Title)
		}
	})

	t.Run("a select in a modal dialog (the rest of the page is inert)", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		eval[any](t, e, `document.getElementById('dlg').showModal()`)
		r := eval[[]float64](t, e, `(r => [r.left, r.top, r.width, r.height])(document.getElementById('ds').getBoundingClientRect())`)
		step(t, e, action.ClickAt(int(r[0]+r[2]/2), int(r[1]+r[3]/2)))
		st := popup(t, e, win)
		st.inViewport(t, 0, 0)
		x, y := st.row(t, "Queue").center()
		step(t, e, action.ClickAt(x, y))
		if v := eval[string](t, e, `document.getElementById('ds').value`); v != "q" {
			t.Fatalf("dialog select value %q after a click on Queue", v)
		}
	})

	t.Run("a select in a cross-site iframe (its own process)", func(t *testing.T) {
		reset(t, e, ts.URL+"/cross")
		e.mu.Lock()
		tb := e.ep.tab
		e.mu.Unlock()
		infos, err := chromedp.Targets(tb.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id target.ID
		for _, in := range infos {
			if in.Type == "iframe" && strings.HasPrefix(in.URL, "http://other.test:") {
				id = in.TargetID
			}
		}
		if id == "" {
			t.Fatalf("the cross-site iframe is not a target of its own: %+v", infos)
		}
		fctx, cancel := chromedp.NewContext(tb.ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
		defer cancel()
		// Attach with the frame's own context: a context derived from it
		// would end the attachment when it ends.
		if err := chromedp.Do(fctx); err != nil {
			t.Fatal(err)
		}
		feval := func(expr string) string {
			ctx, cancel := context.WithTimeout(fctx, 5*time.Second)
			defer cancel()
			v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
			if err != nil {
				t.Fatalf("eval in the iframe %s: %v", expr, err)
			}
			return v
		}
		step(t, e, action.ClickAt(100+90, 50+30))
		var st shimState
		if err := json.Unmarshal([]byte(feval(`JSON.stringify(window[Symbol.for('waymark.select')].state())`)), &st); err != nil {
			t.Fatal(err)
		}
		st.inViewport(t, 100, 50)
		x, y := st.row(t, "Why").center()
		step(t, e, action.ClickAt(x+100, y+50))
		if v := feval(`document.getElementById('fs').value`); v != "y" {
			t.Fatalf("cross-site iframe select value %q after a click on Why", v)
		}
	})

	t.Run("the list is in the live frames", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		step(t, e, action.ClickAt(140, 54))
		st := popup(t, e, win)
		var hi shimRow
		for _, r := range st.Rows {
			if r.Highlighted {
				hi = r
			}
		}
		x, y := int(hi.X+hi.W-4), int(hi.Y+hi.H/2)
		deadline := time.After(5 * time.Second)
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					t.Fatal("frames closed")
				}
				img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
				if err != nil {
					t.Fatal(err)
				}
				if near(img, x, y, highlightRGB, 40) {
					return
				}
			case <-deadline:
				t.Fatalf("no live frame shows the list's highlight at %d,%d", x, y)
			}
		}
	})

	t.Run("injecting twice changes nothing", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		eval[any](t, e, selectShimScript+"; 0")
		step(t, e, action.ClickAt(140, 54))
		if n := hosts(); n != 1 {
			t.Fatalf("%d lists open", n)
		}
	})
}
