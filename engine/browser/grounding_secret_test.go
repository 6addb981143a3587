package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// secretGroundPage has the secret fields grounding must not expose (a
// password, a card number, a password in a same-origin frame and one in an
// open shadow root) and a plain field whose value it must, each at a fixed
// place in the left column.
const secretGroundPage = `<!doctype html><html><head><title>secret ground</title><style>
body { margin: 0; font: 14px sans-serif; }
input, .host, iframe { position: absolute; left: 20px; width: 200px; height: 24px; }
iframe { height: 40px; border: 0; }
</style></head><body>
<input id="pw" type="password" style="top:10px" aria-label="Password">
<input id="cc" style="top:50px" autocomplete="cc-number" aria-label="Card number">
<input id="plain" style="top:90px" aria-label="Town">
<iframe id="fr" style="top:130px" src="/secretframe"></iframe>
<div id="host" class="host" style="top:190px"></div>
<div id="closed" class="host" style="top:250px"></div>
<label style="position:absolute;left:20px;top:290px">Pay <input id="cc2" autocomplete="cc-number" style="position:static;width:200px"></label>
<button aria-labelledby="paywith cc2" style="position:absolute;left:20px;top:330px"><span id="paywith">Pay with</span></button>
<script>
const i = document.createElement('input'); i.type = 'password'; i.id = 'spw'; i.setAttribute('aria-label', 'Shadow password');
i.style.cssText = 'width:200px;height:24px;margin:0';
document.getElementById('host').attachShadow({mode: 'open'}).append(i);
window.closedField = document.createElement('input'); closedField.setAttribute('autocomplete', 'cc-number');
closedField.style.cssText = 'width:200px;height:24px;margin:0';
document.getElementById('closed').attachShadow({mode: 'closed'}).append(closedField);
</script></body></html>`

const secretGroundFrame = `<!doctype html><html><body style="margin:0">
<input id="fpw" type="password" aria-label="Frame password" style="width:190px;height:24px;margin:0"></body></html>`

// Typed into the fields; "SECRET" and the card number are nowhere else in
// the page. A card field in a closed shadow root has no bid (the marking
// cannot see it); the card field inside its label names a button
// (aria-labelledby), whose name then holds its value.
const (
	groundPW     = "pw-SECRET-a1"
	groundCard   = "4000056655665556"
	groundFramPW = "frame-SECRET-b2"
	groundShadow = "shadow-SECRET-c3"
	groundPlain  = "plain-VISIBLE-42"
	groundClosed = "closed-SECRET-d4"
	groundLabel  = "label-SECRET-e5"
)

func secretGroundSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", page(secretGroundPage))
	mux.HandleFunc("/secretframe", page(secretGroundFrame))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// leaks lists the secrets (or pieces of them) in s.
func leaks(s string) []string {
	var out []string
	for _, p := range []string{"SECRET", groundCard, "5665556", "4000 0566"} {
		if strings.Contains(s, p) {
			out = append(out, p)
		}
	}
	return out
}

// Text typed into password and card fields (in the page, a same-origin
// frame and an open shadow root) is in no observation's extras or target,
// with Grounding on and dom, while a plain field's text is, as BrowserGym
// shows it; and the marking writes no secret into the page's DOM. The
// subtests share one browser and run in order.
func TestGroundingHidesSecrets(t *testing.T) {
	ts := secretGroundSite(t)
	e := newEngine(t, engine.DisplayHeadless, nil)
	ground := func(g engine.Grounding) { e.mu.Lock(); e.set.Grounding = g; e.mu.Unlock() }
	defer ground(engine.GroundingOff)

	fields := []struct {
		name string
		x, y int
		text string
	}{
		{"password", 100, 22, groundPW},
		{"cc-number", 100, 62, groundCard},
		{"plain", 100, 102, groundPlain},
		{"password in a frame", 100, 142, groundFramPW},
		{"password in a shadow root", 100, 202, groundShadow},
		{"card in a closed shadow root", 100, 262, groundClosed},
		{"card inside its label", 150, 302, groundLabel},
	}
	for _, g := range []engine.Grounding{engine.GroundingOn, engine.GroundingDOM} {
		t.Run(string(g), func(t *testing.T) {
			ground(g)
			reset(t, e, ts.URL+"/")
			if !eval[bool](t, e, `document.getElementById('fr').contentDocument.readyState === 'complete' && !!document.getElementById('fr').contentDocument.getElementById('fpw')`) {
				t.Fatal("the frame did not load")
			}
			var last action.Observation
			for _, f := range fields {
				step(t, e, action.ClickAt(f.x, f.y))
				last = step(t, e, action.TypeText(f.text))
				if last.Extras == nil {
					t.Fatalf("%s: no extras", f.name)
				}
				if (f.text != groundPlain) != last.Redacted {
					t.Errorf("%s: redacted %v", f.name, last.Redacted)
				}
				x, _ := json.Marshal(last.Extras)
				tg, _ := json.Marshal(last.Target)
				if l := leaks(string(x)); l != nil {
					t.Errorf("after typing into the %s field, the extras hold %q", f.name, l)
					for _, where := range []struct{ n, s string }{{"axtree_object", string(last.Extras.AXTree)},
						{"dom_object", string(last.Extras.DOM)}, {"axtree_txt", last.Extras.AXTreeTxt}, {"last_action", last.Extras.LastAction}} {
						if l := leaks(where.s); l != nil {
							t.Logf("  in %s: %q", where.n, l)
						}
					}
				}
				if l := leaks(string(tg)); l != nil {
					t.Errorf("after typing into the %s field, the target holds %q: %s", f.name, l, tg)
				}
			}
			// A step after the typing, so the last action holds no text.
			obs := step(t, e, action.ClickAt(600, 400))
			x, _ := json.Marshal(obs.Extras)
			if l := leaks(string(x)); l != nil {
				t.Errorf("the next step's extras hold %q", l)
			}
			// The plain field's text is shown as BrowserGym shows it.
			if want := "value='" + groundPlain + "'"; !strings.Contains(obs.Extras.AXTreeTxt, want) {
				t.Errorf("axtree_txt lacks %s:\n%s", want, obs.Extras.AXTreeTxt)
			}
			// The button named after the card field keeps the rest of its name.
			if want := "button 'Pay with [redacted]'"; !strings.Contains(obs.Extras.AXTreeTxt, want) {
				t.Errorf("axtree_txt lacks %s:\n%s", want, obs.Extras.AXTreeTxt)
			}
			if !strings.Contains(string(obs.Extras.AXTree), `"`+groundPlain+`"`) {
				t.Error("axtree_object lacks the plain field's value")
			}
			// The page received every text.
			got := eval[string](t, e, `[document.getElementById('pw').value, document.getElementById('cc').value, document.getElementById('plain').value,
				document.getElementById('fr').contentDocument.getElementById('fpw').value, document.getElementById('host').shadowRoot.getElementById('spw').value,
				closedField.value, document.getElementById('cc2').value].join('|')`)
			if want := strings.Join([]string{groundPW, groundCard, groundPlain, groundFramPW, groundShadow, groundClosed, groundLabel}, "|"); got != want {
				t.Errorf("the page holds %q, want %q", got, want)
			}
			// No secret was written into the page's DOM (value attributes).
			attrs := eval[string](t, e, `[document.getElementById('pw'), document.getElementById('cc'), document.getElementById('plain'),
				document.getElementById('fr').contentDocument.getElementById('fpw'), document.getElementById('host').shadowRoot.getElementById('spw'),
				closedField, document.getElementById('cc2')]
				.map(el => String(el.getAttribute('value'))).join('|')`)
			wantAttrs := "null|null|null|null|null|null|null"
			if g == engine.GroundingDOM {
				wantAttrs = "null|null|" + groundPlain + "|null|null|null|null" // BrowserGym copies live values for DOMSnapshot
				if !strings.Contains(string(obs.Extras.DOM), `"`+groundPlain+`"`) {
					t.Error("dom_object lacks the plain field's value")
				}
			}
			if attrs != wantAttrs {
				t.Errorf("value attributes %q, want %q", attrs, wantAttrs)
			}
		})
	}

	// The rule marks.js and the snapshot masking use is the one typing
	// uses: the live elements' answer (JavaScript) and the snapshot's
	// (Go, from attributes) agree with the expected ones.
	t.Run("rule", func(t *testing.T) {
		cases := []struct {
			tag, typ, ac string
			want         bool
		}{
			{"input", "password", "", true},
			{"input", "PassWord", "off", true},
			{"input", " password", "", false}, // not a known type: a text field
			{"input", "text", "cc-number", true},
			{"input", "", "section-pay billing CC-CSC", true},
			{"input", "", "New-Password", true},
			{"input", "", "one-time-code", false},
			{"input", "", "cc-name", false},
			{"input", "email", "username", false},
			{"textarea", "password", "", false},
			{"textarea", "", "current-password", true},
			{"select", "", "cc-number", false},
			{"div", "password", "current-password", false},
		}
		for _, c := range cases {
			js := fmt.Sprintf(`((isSecret) => { const el = document.createElement(%q); if (%q) el.setAttribute('type', %q); if (%q) el.setAttribute('autocomplete', %q); return isSecret(el); })(%s)`,
				c.tag, c.typ, c.typ, c.ac, c.ac, secretFieldJS)
			if got := eval[bool](t, e, js); got != c.want {
				t.Errorf("%+v: JavaScript says %v", c, got)
			}
			if got := secretField(c.tag, c.typ, c.ac); got != c.want {
				t.Errorf("%+v: Go says %v", c, got)
			}
		}
	})
}
