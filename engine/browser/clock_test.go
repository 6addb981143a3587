package browser

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// clockPage records, in its first script, what the page sees of the clock,
// the time zone and the locale; a timer records it again 50 ms later. It
// has a same-origin iframe (?frame) and a button that opens itself in a new
// tab (?popup).
func clockPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	frame := ""
	if r.URL.RawQuery == "" {
		frame = `<iframe src="/clock?frame" style="position:absolute;left:0;top:400px;width:300px;height:100px"></iframe>`
	}
	fmt.Fprintf(w, `<!doctype html><html><head><title>clock</title><script>
window.at = {now: Date.now(), str: new Date().toString(), called: Date(), fmt: new Intl.DateTimeFormat('en-CA', {timeZone: 'UTC'}).format(),
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone, lang: navigator.language, accept: %q, inst: new Date() instanceof Date, timer: 0};
setTimeout(() => { at.timer = Date.now(); }, 50);
</script></head><body style="margin:0">
<button onclick="window.open('/clock?popup')" style="width:800px;height:300px">open</button>%s</body></html>`,
		html.EscapeString(r.Header.Get("Accept-Language")), frame)
}

type clockSeen struct {
	Now    float64 `json:"now"`
	Str    string  `json:"str"`
	Called string  `json:"called"`
	Fmt    string  `json:"fmt"`
	TZ     string  `json:"tz"`
	Lang   string  `json:"lang"`
	Accept string  `json:"accept"`
	Inst   bool    `json:"inst"`
	Timer  float64 `json:"timer"`
}

// seen waits for the timer of the page's record (expr names it) and reads it.
func seen(t *testing.T, e *Engine, expr string) clockSeen {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := eval[clockSeen](t, e, expr)
		if s.Timer != 0 || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReferenceClock: with a reference time, time zone and locale the page's
// clock starts at the reference instant and advances in real time, timers
// fire, and the same holds in an iframe and in a tab the page opens; a reset
// without them shows the real clock again.
func TestReferenceClock(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/clock", clockPage)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	e := newEngine(t, engine.DisplayHeadless, nil)

	ref := time.Date(2024, 3, 15, 10, 30, 0, 0, time.FixedZone("", 3600))
	refMS := float64(ref.UnixMilli())
	begin := time.Now()
	if _, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: ts.URL + "/clock",
		ReferenceTime: &ref, Timezone: "Asia/Tokyo", Locale: "de-DE"}); err != nil {
		t.Fatal(err)
	}
	// The page's Date is the wall clock shifted (the shift taken from the
	// wall clock at reset), so its readings are compared with wall time
	// passed, not the monotonic time.Since: a busy VM's wall clock was
	// seen ahead of its monotonic one by seconds within one test.
	wallSince := func(t0 time.Time) float64 { return float64(time.Now().Round(0).Sub(t0.Round(0)).Milliseconds()) }
	check := func(where string, s clockSeen) {
		t.Helper()
		if late := s.Now - refMS; late < 0 || late > wallSince(begin)+3000 {
			t.Errorf("%s: Date.now() is %.0f ms after the reference instant", where, late)
		}
		if !strings.HasPrefix(s.Str, "Fri Mar 15 2024 18:") || !strings.Contains(s.Str, "GMT+0900") || !strings.HasPrefix(s.Called, "Fri Mar 15 2024") {
			t.Errorf("%s: new Date() %q, Date() %q; want Fri Mar 15 2024 18:… GMT+0900", where, s.Str, s.Called)
		}
		if s.Fmt != "2024-03-15" || !s.Inst {
			t.Errorf("%s: Intl format of now %q, instanceof %v", where, s.Fmt, s.Inst)
		}
		if s.TZ != "Asia/Tokyo" || s.Lang != "de-DE" || !strings.HasPrefix(s.Accept, "de-DE") {
			t.Errorf("%s: time zone %q, navigator.language %q, Accept-Language %q", where, s.TZ, s.Lang, s.Accept)
		}
		// The page's clock runs in real time: the timer fires at least
		// its 50 ms (less a clamp's rounding) after the read, and never
		// later in page time than real time has passed since the reset
		// began (a starved renderer runs it late, within that).
		if s.Timer < s.Now+40 || s.Timer-s.Now > wallSince(begin) {
			t.Errorf("%s: the 50 ms timer fired at %.0f, %.0f ms after the first read, %.0f ms (wall clock) after the reset began", where, s.Timer, s.Timer-s.Now, wallSince(begin))
		}
	}
	check("page", seen(t, e, `at`))
	check("iframe", seen(t, e, `document.querySelector('iframe').contentWindow.at`))

	// It advances in real time: between two reads it moves on at least the
	// wall time that surely passed between them (after the first read
	// returned, before the second was sent) and at most the wall time from
	// sending the first to the second's answer (10 ms for rounding).
	t0 := time.Now()
	a := eval[float64](t, e, `Date.now()`)
	t1 := time.Now()
	time.Sleep(time.Second)
	t2 := time.Now()
	d := eval[float64](t, e, `Date.now()`) - a
	least, most := float64(t2.Round(0).Sub(t1.Round(0)).Milliseconds()), wallSince(t0)+10
	if d < least-10 || d > most {
		t.Errorf("the page clock advanced %.0f ms between two reads %.0f to %.0f ms apart in wall time", d, least, most)
	}
	if p := eval[float64](t, e, `performance.now()`); p > float64(time.Since(begin).Milliseconds())+1000 {
		t.Errorf("performance.now() %.0f was shifted", p)
	}

	obs := step(t, e, action.ClickAt(400, 150))
	if !strings.HasSuffix(obs.URL, "/clock?popup") {
		infos, _ := chromedp.Targets(e.browserCtx)
		for _, in := range infos {
			t.Logf("target %s %s %s opener=%s", in.Type, in.URL, in.TargetID, in.OpenerID)
		}
		t.Fatalf("the click did not open the tab: %q %q %v", obs.URL, obs.Error, eval[any](t, e, `[document.activeElement.tagName, at]`))
	}
	check("new tab", seen(t, e, `at`))

	// Without them: the real clock, the browser's time zone and language.
	// The page read its clock while the reset ran, however long that took
	// on a busy machine (a second of leeway for the clocks' rounding).
	before := time.Now()
	if _, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: ts.URL + "/clock"}); err != nil {
		t.Fatal(err)
	}
	s := seen(t, e, `at`)
	lo, hi := float64(before.UnixMilli()-1000), float64(time.Now().UnixMilli()+1000)
	if s.Now < lo || s.Now > hi || s.TZ == "Asia/Tokyo" || s.Lang == "de-DE" {
		t.Errorf("a reset without a clock: the page read %.0f, %.0f ms after the reset began (it ended %.0f ms after), time zone %q, language %q",
			s.Now, s.Now-lo-1000, hi-lo-2000, s.TZ, s.Lang)
	}
}
