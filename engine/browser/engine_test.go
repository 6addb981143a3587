package browser

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// TestOps drives every operation on one Xvfb browser and checks what the
// page saw.
func TestOps(t *testing.T) {
	ts := newSite(t)
	e := newEngine(t, engine.DisplayXvfb, func(o *Options) { o.Settings.ActionSet = action.SetExtended; o.Settings.MaxSteps = 200 })
	if e.Info().Display != engine.DisplayXvfb {
		t.Fatalf("display %q", e.Info().Display)
	}
	obs := reset(t, e, ts.URL+"/")
	if obs.Step != 0 || obs.Done || obs.Error != "" || obs.Title != "ops" || obs.URL != ts.URL+"/" {
		t.Fatalf("reset observation %+v", obs)
	}
	if w, h := pngSize(t, obs.Screenshot); w != 800 || h != 600 {
		t.Fatalf("screenshot %dx%d", w, h)
	}
	if got := eval[[]float64](t, e, `[innerWidth, innerHeight, devicePixelRatio]`); got[0] != 800 || got[1] != 600 || got[2] != 1 {
		t.Fatalf("viewport %v", got)
	}

	if ua := eval[string](t, e, `navigator.userAgent`); strings.Contains(ua, "Headless") {
		t.Errorf("the Xvfb browser says it is headless: %s", ua)
	}
	// As the reference (Chromium without the enable-automation switch), the
	// page is not told it is automated.
	if wd := eval[any](t, e, `navigator.webdriver`); wd != false {
		t.Errorf("xvfb: navigator.webdriver = %v, want false", wd)
	}
	t.Run("click lands on the exact pixel", func(t *testing.T) {
		for _, p := range [][2]int{{0, 0}, {799, 599}, {412, 287}} {
			step(t, e, action.ClickAt(p[0], p[1]))
			got := eval[[]any](t, e, `rec.clicks[rec.clicks.length-1]`)
			if int(got[0].(float64)) != p[0] || int(got[1].(float64)) != p[1] || got[2] != true {
				t.Fatalf("click at %v: page saw %v", p, got)
			}
		}
	})
	t.Run("type into the focused input", func(t *testing.T) {
		reset(t, e, ts.URL+"/") // the click at 799,599 above hit the scroll bar
		step(t, e, action.ClickAt(100, 25))
		before := eval[float64](t, e, `rec.input`)
		obs := step(t, e, action.TypeText("héllo wörld 42!"))
		if obs.Error != "" {
			t.Fatal(obs.Error)
		}
		if v := eval[string](t, e, `document.getElementById('inp').value`); v != "héllo wörld 42!" {
			t.Fatalf("value %q", v)
		}
		if n := eval[float64](t, e, `rec.input`) - before; n != 15 {
			t.Errorf("input events: %v, want one per character", n)
		}
		if n := eval[float64](t, e, `rec.press`); n != 15 {
			t.Errorf("keypress events: %v, want one per character", n)
		}
		// A long text: the first 200 runes as keys, the rest inserted.
		long := strings.Repeat("0123456789", 50)
		step(t, e, action.PressKey("CTRL+A"))
		step(t, e, action.TypeText(long))
		if v := eval[string](t, e, `document.getElementById('inp').value`); v != long {
			t.Fatalf("long text: value has %d chars", len(v))
		}
	})
	t.Run("keys", func(t *testing.T) {
		step(t, e, action.PressKey("CTRL+A"))
		step(t, e, action.TypeText("héllo wörld 42!"))
		step(t, e, action.PressKey("CTRL+A"))
		sel := eval[[]float64](t, e, `[document.getElementById('inp').selectionStart, document.getElementById('inp').selectionEnd]`)
		if sel[0] != 0 || sel[1] != 15 {
			t.Fatalf("CTRL+A selection %v", sel)
		}
		step(t, e, action.PressKey("BACKSPACE"))
		if v := eval[string](t, e, `document.getElementById('inp').value`); v != "" {
			t.Fatalf("after CTRL+A, BACKSPACE value %q", v)
		}
		step(t, e, action.TypeText("abc"))
		step(t, e, action.PressKey("LEFT"))
		step(t, e, action.PressKey("BACKSPACE"))
		if v := eval[string](t, e, `document.getElementById('inp').value`); v != "ac" {
			t.Fatalf("LEFT, BACKSPACE gave %q", v)
		}
		for _, k := range action.SetExtended.Keys() {
			step(t, e, action.PressKey(k))
			got := eval[string](t, e, `rec.keys[rec.keys.length-1]`)
			want := map[string]string{"ENTER": "Enter", "TAB": "Tab", "ESCAPE": "Escape", "BACKSPACE": "Backspace",
				"CTRL+A": "a+ctrl", "UP": "ArrowUp", "DOWN": "ArrowDown", "LEFT": "ArrowLeft", "RIGHT": "ArrowRight",
				"PAGE_UP": "PageUp", "PAGE_DOWN": "PageDown", "HOME": "Home", "END": "End", "DELETE": "Delete",
				"SPACE": " ", "SHIFT+TAB": "Tab+shift"}[k]
			if got != want {
				t.Errorf("key %s: page saw %q, want %q", k, got, want)
			}
		}
	})
	t.Run("scroll at the pointer", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		// The pointer starts at the centre (400,300): the page scrolls.
		step(t, e, action.ScrollBy(500))
		if y := eval[float64](t, e, `scrollY`); y != 500 {
			t.Fatalf("scrollY %v after scroll 500", y)
		}
		step(t, e, action.ScrollBy(-200))
		if y := eval[float64](t, e, `scrollY`); y != 300 {
			t.Fatalf("scrollY %v after scroll -200", y)
		}
		step(t, e, action.ScrollBy(-1200))
		// Over the inner box (fixed in the viewport at 420..720 x 300..500): only the box scrolls.
		step(t, e, action.Action{Op: action.Move, X: action.Int(500), Y: action.Int(400)})
		step(t, e, action.ScrollBy(250))
		box := eval[float64](t, e, `document.getElementById('box').scrollTop`)
		if box != 250 || eval[float64](t, e, `scrollY`) != 0 {
			t.Fatalf("inner box scrollTop %v, page scrollY %v", box, eval[float64](t, e, `scrollY`))
		}
	})
	t.Run("move hovers, double click", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		step(t, e, action.Action{Op: action.Move, X: action.Int(50), Y: action.Int(220)})
		if n := eval[float64](t, e, `rec.moves`); n != 1 {
			t.Fatalf("mouseenter count %v", n)
		}
		step(t, e, action.Action{Op: action.DoubleClick, X: action.Int(600), Y: action.Int(100)})
		if n := eval[float64](t, e, `rec.dbl`); n != 1 {
			t.Fatalf("dblclick count %v", n)
		}
	})
	t.Run("drag", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		step(t, e, action.Action{Op: action.Drag, X: action.Int(600), Y: action.Int(100), X2: action.Int(650), Y2: action.Int(160)})
		down := eval[[]any](t, e, `rec.clicks[rec.clicks.length-1]`)
		up := eval[[]float64](t, e, `rec.up`)
		moves := eval[float64](t, e, `rec.dragMoves || 0`)
		if down[0] != 600.0 || down[1] != 100.0 || up[0] != 650 || up[1] != 160 || moves < 2 {
			t.Fatalf("drag: down %v up %v moves with the button held %v", down, up, moves)
		}
	})
	t.Run("link, back, goto", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		obs := step(t, e, action.ClickAt(20, 65))
		if obs.URL != ts.URL+"/page2" || obs.Title != "page 2" {
			t.Fatalf("after link click: %q %q %q", obs.URL, obs.Title, obs.Error)
		}
		obs = step(t, e, action.Action{Op: action.Back})
		if obs.URL != ts.URL+"/" || obs.Title != "ops" || obs.Error != "" {
			t.Fatalf("after back: %q %q %q", obs.URL, obs.Title, obs.Error)
		}
		obs = step(t, e, action.Action{Op: action.Back}) // first entry: nothing happens
		if obs.URL != ts.URL+"/" || obs.Error != "" {
			t.Fatalf("back at the first entry: %q %q", obs.URL, obs.Error)
		}
		obs = step(t, e, action.Action{Op: action.Goto, URL: ts.URL + "/page2"})
		if obs.Title != "page 2" {
			t.Fatalf("goto: %q %q", obs.Title, obs.Error)
		}
	})
	t.Run("a click that opens a tab follows it", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		obs := step(t, e, action.ClickAt(20, 105))
		if obs.URL != ts.URL+"/page2?tab=new" || obs.Title != "page 2" {
			t.Fatalf("after target=_blank click: %q %q %q", obs.URL, obs.Title, obs.Error)
		}
		if w, h := pngSize(t, obs.Screenshot); w != 800 || h != 600 {
			t.Fatalf("new tab screenshot %dx%d", w, h)
		}
		if got := eval[[]float64](t, e, `[innerWidth, innerHeight, devicePixelRatio]`); got[0] != 800 || got[1] != 600 || got[2] != 1 {
			t.Fatalf("new tab viewport %v", got)
		}
	})
	t.Run("a tab closed by its page falls back to the opener", func(t *testing.T) {
		reset(t, e, ts.URL+"/opener")
		obs := step(t, e, action.ClickAt(400, 300))
		if obs.Title != "popup" {
			t.Fatalf("after window.open: %q %q", obs.Title, obs.Error)
		}
		obs = step(t, e, action.ClickAt(400, 300))
		if obs.Title != "opener" || obs.Done || obs.Error != "" || len(obs.Screenshot) == 0 {
			t.Fatalf("after window.close: title %q error %q done %v", obs.Title, obs.Error, obs.Done)
		}
		obs = step(t, e, action.ClickAt(400, 300)) // the opener still works
		if obs.Title != "popup" {
			t.Fatalf("second window.open: %q %q", obs.Title, obs.Error)
		}
	})
	t.Run("a fetch 250 ms after a click is observed", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		for i := 0; i < 3; i++ {
			obs := step(t, e, action.ClickAt(50, 150))
			if got := eval[string](t, e, `document.getElementById('out').textContent`); !strings.HasPrefix(got, "loaded") || obs.Title != got {
				t.Fatalf("fetch result not observed (page %q, observed title %q, settle %d ms)", got, obs.Title, obs.Timings.SettleMS)
			}
			// The fetch starts in the click's handler, while the action is
			// dispatched: the dispatch and the settle together cover it (a
			// dispatch of 105 ms on a loaded machine left a settle of 145).
			if d := obs.Timings.ActionMS + obs.Timings.SettleMS; d < 200 || obs.Timings.SettleMS > 1400 {
				t.Errorf("dispatch and settle took %d ms (settle %d ms) for a 250 ms fetch", d, obs.Timings.SettleMS)
			}
		}
	})
	t.Run("a DOM change 25 ms after a click's first change is observed", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		for i := 0; i < 3; i++ {
			eval[any](t, e, `document.title = 'ops'`)
			if obs := step(t, e, action.ClickAt(50, 275)); obs.Title != "chain 2" {
				t.Fatalf("observed title %q", obs.Title)
			}
		}
	})
	t.Run("wait and finish", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		start := time.Now()
		obs := step(t, e, action.Action{Op: action.Wait})
		if d := time.Since(start); d < 3*time.Second || obs.Done {
			t.Fatalf("wait took %v, done %v", d, obs.Done)
		}
		obs = step(t, e, action.FinishWith("forty two"))
		if !obs.Done || obs.EndReason != action.EndFinished || obs.Answer != "forty two" || len(obs.Screenshot) == 0 {
			t.Fatalf("finish: %+v", obs)
		}
		if _, err := e.Step(context.Background(), action.ClickAt(1, 1)); !errors.Is(err, engine.ErrResetBeforeStepping) || err.Error() != "reset before stepping" {
			t.Fatalf("step after finish: %v", err)
		}
		if st := e.State(); st.StepCount != 2 || !st.Done {
			t.Fatalf("state %+v", st)
		}
	})
}

// TestEpisodeRules covers validation, URL rules, the step limit, the
// checks, bot verification and downloads on a headless browser.
func TestEpisodeRules(t *testing.T) {
	ts := newSite(t)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Settings.MaxSteps = 3 })
	ctx := context.Background()
	if e.Info().Display != engine.DisplayHeadless {
		t.Fatalf("display %q", e.Info().Display)
	}

	t.Run("step before reset", func(t *testing.T) {
		if _, err := e.Step(ctx, action.Action{Op: action.Wait}); !errors.Is(err, engine.ErrResetBeforeStepping) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("URL rules", func(t *testing.T) {
		for _, u := range []string{"", "ftp://x.org/", "file:///etc/passwd", "http://", "http://user:pw@127.0.0.1/", "http://user@127.0.0.1/", "javascript:alert(1)", "127.0.0.1:80"} {
			_, err := e.Reset(ctx, engine.ResetOptions{StartURL: u})
			if err == nil || err.Error() != "expected an HTTP(S) URL without credentials" {
				t.Errorf("reset %q: %v", u, err)
			}
		}
	})
	t.Run("800x600 headless", func(t *testing.T) {
		obs := reset(t, e, ts.URL+"/")
		if w, h := pngSize(t, obs.Screenshot); w != 800 || h != 600 {
			t.Fatalf("screenshot %dx%d", w, h)
		}
		if got := eval[[]float64](t, e, `[innerWidth, innerHeight, devicePixelRatio]`); got[0] != 800 || got[1] != 600 || got[2] != 1 {
			t.Fatalf("viewport %v", got)
		}
		if ua := eval[string](t, e, `navigator.userAgent`); !strings.Contains(ua, "HeadlessChrome") {
			t.Errorf("headless mode is not headless: %s", ua)
		}
		t.Logf("headless: navigator.webdriver = %v", eval[any](t, e, `navigator.webdriver`))
	})
	t.Run("invalid actions change nothing", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		bad := []action.Action{
			{Op: action.Click}, {Op: action.Click, X: action.Int(800), Y: action.Int(1)},
			{Op: action.Type}, {Op: action.Key, Text: "F5"}, {Op: action.Key, Text: "PAGE_DOWN"},
			{Op: action.Scroll, DY: 1201}, {Op: action.Goto, URL: ts.URL}, {Op: "jump"},
		}
		for _, a := range bad {
			_, err := e.Step(ctx, a)
			var ve *action.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("%s: got %v, want a validation error", a, err)
			}
		}
		if n := e.State().StepCount; n != 0 {
			t.Fatalf("step count %d after invalid actions", n)
		}
	})
	t.Run("step limit", func(t *testing.T) {
		reset(t, e, ts.URL+"/")
		for i := 1; i <= 3; i++ {
			obs := step(t, e, action.ScrollBy(10))
			if obs.Step != i || obs.Done != (i == 3) {
				t.Fatalf("step %d: %+v", i, obs)
			}
			if i == 3 && obs.EndReason != action.EndStepLimit {
				t.Fatalf("end reason %q", obs.EndReason)
			}
		}
		if _, err := e.Step(ctx, action.ScrollBy(10)); !errors.Is(err, engine.ErrResetBeforeStepping) {
			t.Fatalf("4th step: %v", err)
		}
	})
	t.Run("bot verification", func(t *testing.T) {
		for _, p := range []string{"/cloudflare", "/vercel"} {
			obs := reset(t, e, ts.URL+p)
			if obs.Error != action.ErrBotVerification || !obs.Done || obs.EndReason != action.EndBotVerification {
				t.Fatalf("%s: %q done=%v", p, obs.Error, obs.Done)
			}
			if _, err := e.Step(ctx, action.ScrollBy(1)); !errors.Is(err, engine.ErrResetBeforeStepping) {
				t.Fatalf("step after bot page: %v", err)
			}
		}
		obs := reset(t, e, ts.URL+"/cloudflare-hidden")
		if obs.Error != "" || obs.Done {
			t.Fatalf("hidden text counted: %q", obs.Error)
		}
	})
	t.Run("checks give the reward", func(t *testing.T) {
		cases := []struct {
			check *action.Check
			last  action.Action
			want  float64
		}{
			{&action.Check{Kind: "answer", Answer: "42|forty two"}, action.FinishWith(" Forty-Two "), 1},
			{&action.Check{Kind: "answer", Answer: "42"}, action.FinishWith("41"), 0},
			{&action.Check{Kind: "url", URL: `/page2$`}, action.ClickAt(20, 65), 1},
			{&action.Check{Kind: "js", JS: `document.getElementById('inp').value === 'ok'`}, action.TypeText("ok"), 1},
			{&action.Check{Kind: "js", JS: `document.title === 'nope'`}, action.FinishWith(""), 0},
		}
		for _, c := range cases {
			obs, err := e.Reset(ctx, engine.ResetOptions{StartURL: ts.URL + "/", Check: c.check})
			if err != nil || obs.Reward != nil {
				t.Fatalf("reset: %v, reward %v", err, obs.Reward)
			}
			step(t, e, action.ClickAt(100, 25))
			obs = step(t, e, c.last)
			if !obs.Done {
				if obs.Reward != nil {
					t.Fatalf("reward before the end: %v", *obs.Reward)
				}
				obs = step(t, e, action.Action{Op: action.Finish})
			}
			if obs.Reward == nil || *obs.Reward != c.want {
				t.Errorf("check %+v after %s: reward %v, want %v", *c.check, c.last, obs.Reward, c.want)
			}
		}
	})
	t.Run("a network error is reported with the address that failed", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		u := "http://" + l.Addr().String() + "/x"
		l.Close()
		obs := reset(t, e, u)
		if obs.URL != u || obs.Error != "net::ERR_CONNECTION_REFUSED" || obs.Done || len(obs.Screenshot) == 0 {
			t.Fatalf("refused: url %q error %q done %v", obs.URL, obs.Error, obs.Done)
		}
		if obs = step(t, e, action.ScrollBy(5)); obs.URL != u || obs.Error != "" {
			t.Fatalf("next step: url %q error %q", obs.URL, obs.Error)
		}
	})
	t.Run("dialogs are accepted, file choosers do not open", func(t *testing.T) {
		obs := reset(t, e, ts.URL+"/alert")
		if obs.Title != "after alert" || obs.Error != "" {
			t.Fatalf("alert at load: %q %q", obs.Title, obs.Error)
		}
		obs = step(t, e, action.ClickAt(400, 450))
		if obs.Title != "confirmed" {
			t.Fatalf("confirm: %q %q", obs.Title, obs.Error)
		}
		obs = step(t, e, action.ClickAt(400, 150))
		if obs.Error != "" || obs.Done {
			t.Fatalf("file input click: %q", obs.Error)
		}
	})
	t.Run("downloads are denied", func(t *testing.T) {
		home, _ := os.UserHomeDir()
		dirs := []string{filepath.Join(home, "Downloads"), e.Profile(), "."}
		reset(t, e, ts.URL+"/download")
		obs := step(t, e, action.ClickAt(400, 300))
		time.Sleep(500 * time.Millisecond)
		for _, d := range dirs {
			filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
				if err == nil && strings.Contains(info.Name(), "waymark-test-download") {
					t.Errorf("download written: %s", p)
				}
				return nil
			})
		}
		if obs.URL != ts.URL+"/download" {
			t.Errorf("url after the download click %q", obs.URL)
		}
	})
}

var _ = cdp.Empty{}
var _ = page.Crash
var _ = chromedp.Run[int]
