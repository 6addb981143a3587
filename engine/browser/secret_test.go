package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// secretPage has one field of every kind the engine must tell apart, each
// at a fixed place (left column x=20, rows 40 px apart), and frames of the
// same origin, of another origin in the same process, and of another site
// (its own process). Every field reports its value to window.got, frames
// through postMessage, so the test reads what the page received.
const secretPage = `<!doctype html><html><head><title>secrets</title><style>
body { margin: 0; font: 14px sans-serif; }
input, textarea, .host { position: absolute; left: 20px; width: 200px; height: 24px; }
iframe { position: absolute; left: 400px; width: 300px; height: 60px; border: 0; }
</style></head><body>
<input id="plain" style="top:10px" autocomplete="off">
<input id="pw" type="password" style="top:50px">
<input id="cc" style="top:90px" autocomplete="cc-number">
<input id="csc" style="top:130px" autocomplete="section-pay billing cc-csc">
<input id="newpw" style="top:170px" autocomplete="New-Password">
<input id="off" name="password" style="top:210px" autocomplete="off">
<div id="open" class="host" style="top:250px"></div>
<div id="closed" class="host" style="top:290px"></div>
<div id="closedplain" class="host" style="top:330px"></div>
<input id="user" style="top:370px"><input id="pass" type="password" style="top:410px">
<form action="/done" style="position:absolute;top:450px;left:20px"><input id="q" name="q" style="position:static"></form>
<textarea id="ta" style="top:500px" autocomplete="current-password"></textarea>
<iframe id="same" style="top:10px" src="/frame?ac=current-password&id=same"></iframe>
<iframe id="xorigin" style="top:90px" src="http://b.site.test:PORT/frame?ac=cc-number&id=xorigin"></iframe>
<iframe id="xsite" style="top:170px" src="http://other.test:PORT/frame?ac=cc-csc&id=xsite"></iframe>
<iframe id="xsiteplain" style="top:250px" src="http://other.test:PORT/frame?ac=off&id=xsiteplain"></iframe>
<iframe id="nested" style="top:330px;height:100px" src="http://other.test:PORT/outer"></iframe>
<script>
window.got = {};
const report = el => el.addEventListener('input', () => { got[el.id] = el.value; });
document.querySelectorAll('input, textarea').forEach(report);
const field = (type, id) => { const i = document.createElement('input'); i.type = type; i.id = id; i.style.cssText = 'position:static;width:200px;height:24px;margin:0'; report(i); return i; };
document.getElementById('open').attachShadow({mode: 'open'}).append(field('password', 'openpw'));
document.getElementById('closed').attachShadow({mode: 'closed'}).append(field('password', 'closedpw'));
document.getElementById('closedplain').attachShadow({mode: 'closed'}).append(field('text', 'closedtext'));
addEventListener('message', e => { if (e.data && e.data.id) got[e.data.id] = e.data.value; });
</script></body></html>`

// secretFrame is a field filling its frame; it posts its value to the top.
const secretFrame = `<!doctype html><html><body style="margin:0">
<input id="f" style="width:280px;height:40px" autocomplete="%s">
<script>f.addEventListener('input', () => top.postMessage({id: %q, value: f.value}, '*'));</script></body></html>`

// secretOuter is a cross-site frame holding a closed shadow root with a
// password field, and a same-origin frame of its own with a card number.
const secretOuter = `<!doctype html><html><body style="margin:0">
<div id="h" style="position:absolute;left:0;top:0;width:140px;height:30px"></div>
<iframe src="/frame?ac=cc-number&id=inner" style="position:absolute;left:150px;top:0;width:140px;height:60px;border:0"></iframe>
<script>
const i = document.createElement('input'); i.type = 'password'; i.style.cssText = 'width:130px;height:24px';
i.addEventListener('input', () => top.postMessage({id: 'outerpw', value: i.value}, '*'));
document.getElementById('h').attachShadow({mode: 'closed'}).append(i);
</script></body></html>`

func newSecretSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	var port string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, strings.ReplaceAll(secretPage, "PORT", port))
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, secretFrame, r.URL.Query().Get("ac"), r.URL.Query().Get("id"))
	})
	mux.HandleFunc("/outer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, secretOuter)
	})
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<title>done</title><p>searched %s</p>", r.URL.Query().Get("q"))
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	port = hostPort(t, ts.URL)
	return ts
}

// The engine says Redacted for text typed into a password or payment field
// wherever the focus is (the page, open and closed shadow roots, frames of
// the same origin, of another origin, of another site, nested), never for a
// plain field, and the page always gets the real text.
func TestTypeIntoSecretFields(t *testing.T) {
	site := newSecretSite(t)
	port := hostPort(t, site.URL)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) {
		o.Settings.MaxSteps = 100
		o.HostRules = "MAP a.site.test 127.0.0.1:" + port + ",MAP b.site.test 127.0.0.1:" + port + ",MAP other.test 127.0.0.1:" + port
	})
	obs := reset(t, e, "http://a.site.test:"+port+"/")
	if obs.Error != "" {
		t.Fatalf("reset: %q", obs.Error)
	}
	// Wait for every frame to have loaded its field.
	deadline := time.Now().Add(10 * time.Second)
	for eval[int](t, e, `document.querySelectorAll('iframe').length`) != 5 ||
		!eval[bool](t, e, `[...document.querySelectorAll('iframe')].every(f => { try { return f.contentDocument === null || f.contentDocument.readyState === 'complete'; } catch (e) { return true; } })`) {
		if time.Now().After(deadline) {
			t.Fatal("the frames did not load")
		}
		time.Sleep(50 * time.Millisecond)
	}

	cases := []struct {
		name   string
		x, y   int
		id     string // the key in window.got
		text   string
		secret bool
		want   string // what the page holds after; text when ""
	}{
		{"plain field", 100, 22, "plain", "red shoes", false, ""},
		{"password input", 100, 62, "pw", "hunter2-SECRET", true, ""},
		{"autocomplete cc-number", 100, 102, "cc", "4000056655665556", true, ""},
		{"cc-csc among other tokens", 100, 142, "csc", "7319", true, ""},
		{"new-password in capitals on a text input", 100, 182, "newpw", "n3w-Secret", true, ""},
		{"a field named password with autocomplete off", 100, 222, "off", "not a secret", false, ""},
		{"password in an open shadow root", 100, 262, "openpw", "open-Secret", true, ""},
		{"password in a closed shadow root", 100, 302, "closedpw", "closed-Secret", true, ""},
		{"plain field in a closed shadow root", 100, 342, "closedtext", "closed plain", false, ""},
		{"same-origin frame, current-password", 500, 30, "same", "same-Secret", true, ""},
		{"other origin of the same site, cc-number", 500, 110, "xorigin", "4000056655665556", true, ""},
		{"other site (own process), cc-csc", 500, 190, "xsite", "8142", true, ""},
		{"other site, plain field", 500, 270, "xsiteplain", "plain in a frame", false, ""},
		{"closed shadow root in an other-site frame", 460, 345, "outerpw", "deep-Secret", true, ""},
		{"same-origin frame in an other-site frame", 620, 360, "inner", "4000056655665556", true, ""},
		{"textarea with current-password", 100, 512, "ta", "area-Secret", true, ""},
		// The focus ends in a plain field: only the look after the first Tab sees the password.
		{"tabs through a password into a plain field", 100, 382, "pass", "alice\thunter2-TAB\tafter", true, "hunter2-TAB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if o := step(t, e, action.ClickAt(c.x, c.y)); o.Error != "" || o.Redacted {
				t.Fatalf("click: error %q redacted %v", o.Error, o.Redacted)
			}
			o := step(t, e, action.TypeText(c.text))
			if o.Error != "" {
				t.Fatalf("type: %q", o.Error)
			}
			if o.Redacted != c.secret {
				t.Errorf("redacted %v, want %v", o.Redacted, c.secret)
			}
			want := c.want
			if want == "" {
				want = c.text
			}
			if got := eval[string](t, e, `String(got[`+jsQuote(c.id)+`])`); got != want {
				t.Errorf("the page received %q, want %q", got, want)
			}
		})
	}

	t.Run("a key into a password field is not marked", func(t *testing.T) {
		step(t, e, action.ClickAt(100, 62))
		if o := step(t, e, action.PressKey("BACKSPACE")); o.Redacted {
			t.Fatal("a key action was marked redacted")
		}
		if n := eval[int](t, e, `document.getElementById('pw').value.length`); n != len("hunter2-SECRET")-1 {
			t.Fatalf("after BACKSPACE the password has %d characters", n)
		}
	})
	t.Run("a long text: keys, then the rest inserted", func(t *testing.T) {
		step(t, e, action.ClickAt(100, 512))
		step(t, e, action.PressKey("CTRL+A"))
		long := strings.Repeat("0123456789", 45)
		if o := step(t, e, action.TypeText(long)); !o.Redacted || o.Error != "" {
			t.Fatalf("redacted %v, error %q", o.Redacted, o.Error)
		}
		if got := eval[string](t, e, `got.ta`); got != long {
			t.Fatalf("the page received %d characters, want %d", len(got), len(long))
		}
	})
	t.Run("a line break that submits a plain form", func(t *testing.T) {
		step(t, e, action.ClickAt(100, 462))
		o := step(t, e, action.TypeText("boots\n"))
		if o.Redacted || o.Title != "done" {
			t.Fatalf("redacted %v, title %q, error %q", o.Redacted, o.Title, o.Error)
		}
	})
}

func jsQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// BenchmarkFocusLook: the look at the focus that guards every typed
// character costs little, measured against the typing it guards (12
// characters), for a top-level field, a closed shadow root and an
// other-site frame (an out-of-process frame attaches a session each time:
// 20–150 ms here). It was a timed test; its bound is a speed target.
func BenchmarkFocusLook(b *testing.B) {
	site := newSecretSite(b)
	e := newEngine(b, engine.DisplayHeadless, func(o *Options) { o.HostRules = "MAP other.test 127.0.0.1:" + hostPort(b, site.URL) })
	reset(b, e, site.URL+"/")
	e.mu.Lock()
	tb := e.ep.tab
	e.mu.Unlock()
	for _, c := range []struct {
		name string
		x, y int
	}{{"top-level field", 100, 22}, {"closed shadow root", 100, 302}, {"other-site frame", 500, 190}} {
		b.Run(strings.ReplaceAll(c.name, " ", "-"), func(b *testing.B) {
			step(b, e, action.ClickAt(c.x, c.y))
			var look, typing time.Duration
			for range b.N {
				start := time.Now()
				if _, err := focusedSecret(tb.ctx); err != nil {
					b.Fatal(err)
				}
				look += time.Since(start)
				start = time.Now()
				if err := typeText(tb.ctx, "hello world!"); err != nil {
					b.Fatal(err)
				}
				typing += time.Since(start)
			}
			b.ReportMetric(float64(look.Milliseconds())/float64(b.N), "look-ms")
			b.ReportMetric(float64(typing.Milliseconds())/float64(b.N), "type12-ms")
		})
	}
}
