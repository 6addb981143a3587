package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disintegration/imaging"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/redact"
)

// piiSite shows personal data in every form a policy covers, in large
// type so an OCR reader sees it: form fields (by type and autocomplete), a
// plain sentence, a card number split across elements, a table cell marked
// data-private, a same-origin frame, a cross-origin frame, a scrolled
// region (one address shown, one scrolled out of its box), and an address
// that appears 50 ms after the button is clicked. /plain shows no personal
// data at all.
func piiSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	var port string
	html := func(w http.ResponseWriter, s string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, s)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>account</title><style>body{margin:0;font:22px sans-serif} input{font:22px sans-serif;width:330px}
p,td{margin:4px 8px} iframe{border:0;width:390px;height:40px}</style>
<input type=email value="ada.lovelace@example.org"> <input autocomplete="tel" value="+1 415 555 0132">
<p>Contact grace.hopper@navy.mil for help</p>
<p>Card on file: <span>4111 1111</span> <b>1111 1111</b></p>
<table><tr><td>Customer</td><td data-private>Katherine Johnson</td></tr></table>
<iframe src="/same"></iframe><iframe src="http://localhost:`+port+`/cross"></iframe>
<div id=box style="height:36px;width:500px;overflow:auto;border:1px solid #999"><p>marie.curie@sorbonne.fr</p><p style="margin-top:40px">hidden.away@nowhere.io</p></div>
<div id=late style="height:40px"></div>
<button id=go style="position:absolute;left:600px;top:500px;width:180px;height:80px;font:22px sans-serif">Show</button>
<script>go.onclick = () => setTimeout(() => { late.innerHTML = '<p>alan.turing@bletchley.uk</p>'; }, 50);</script>`)
	})
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<body style="margin:0;font:22px sans-serif">Phone 020 7946 0958</body>`)
	})
	mux.HandleFunc("/cross", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<body style="margin:0;font:22px sans-serif">IBAN DE89 3704 0044 0532 0130 00</body>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<!doctype html><title>kettles</title><body style="font:22px sans-serif"><h1>Kettles</h1><p>The red kettle costs $49.99 and holds 1.7 litres.</p>
<p>Order #100234 ships on 2026-03-15 at 10:30.</p><input placeholder="Search" style="font:22px sans-serif"></body>`)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	port = ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	return ts
}

// piiValues are the values piiSite shows, as an OCR reader would spell them
// (spaces left out).
var piiValues = []string{"ada.lovelace@example.org", "+14155550132", "grace.hopper@navy.mil", "4111111111111111", "KatherineJohnson",
	"02079460958", "DE89370400440532013000", "marie.curie@sorbonne.fr", "alan.turing@bletchley.uk"}

// ocr reads the text of a PNG with tesseract (sparse text, the picture
// scaled 2× first), spaces left out.
func ocr(t *testing.T, pic []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	big := imaging.Resize(img, img.Bounds().Dx()*2, 0, imaging.Lanczos)
	f := filepath.Join(t.TempDir(), "shot.png")
	if err := imaging.Save(big, f); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tesseract", f, "-", "--psm", "11").Output()
	if err != nil {
		t.Fatalf("tesseract: %v (make deps installs tesseract-ocr)", err)
	}
	return strings.Join(strings.Fields(string(out)), "")
}

// A redaction policy blacks out every personal value the page shows, in
// every form, from the stored screenshot: an OCR reader finds none of them
// there, while it finds them in the same step without the policy (so the
// test can fail). Each box says why; the tree's text, the DOM snapshot, the
// title and the network capture hold none of the values either; a page
// without personal data gets no box.
func TestRedactionAtCapture(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Fatal("tesseract is not installed: make deps installs tesseract-ocr")
	}
	ts := piiSite(t)
	run := func(p *redact.Policy) (action.Observation, *Engine) {
		e := newEngine(t, "headless", func(o *Options) {
			o.Settings.Redact = p
			o.Settings.HAR = true
			o.Settings.Grounding = engine.GroundingDOM
		})
		reset(t, e, ts.URL+"/")
		eval[any](t, e, `box.scrollTop = 0, 0`)
		return step(t, e, action.ClickAt(690, 540)), e
	}
	plainObs, _ := run(nil)
	plainText := ocr(t, plainObs.Screenshot)
	for _, v := range piiValues {
		if !strings.Contains(plainText, v) {
			t.Errorf("the OCR reader does not find %q in the unredacted step (it read %q): the redaction check below would prove nothing", v, plainText)
		}
	}
	obs, e := run(redact.Default())
	text := ocr(t, obs.Screenshot)
	for _, v := range piiValues {
		if strings.Contains(text, v) {
			t.Errorf("%q is readable in the stored screenshot (OCR: %q)", v, text)
		}
	}
	whys := map[string]int{}
	for _, b := range obs.Redaction {
		whys[b.Why]++
		if b.W <= 0 || b.H <= 0 || b.X < 0 || b.Y < 0 || b.X+b.W > 800 || b.Y+b.H > 600 {
			t.Errorf("box %+v is not inside the viewport", b)
		}
	}
	for _, want := range []string{"input type=email", "autocomplete tel", "pattern email", "pattern card", "selector [data-private]", "pattern phone", "pattern iban"} {
		if whys[want] == 0 {
			t.Errorf("no box says %q (boxes: %v)", want, whys)
		}
	}
	// The address scrolled out of its box gets no box below the box.
	for _, b := range obs.Redaction {
		if b.Y > 330 && b.Y < 420 && b.X < 500 && b.H > 40 {
			t.Errorf("a box spills out of the scrolled region: %+v", b)
		}
	}
	x := obs.Extras
	if x == nil || len(x.AXTree) == 0 || len(x.DOM) == 0 {
		t.Fatal("the observation has no tree or snapshot")
	}
	c := e.TakeHAR(true)
	var stored bytes.Buffer
	stored.WriteString(obs.Title)
	stored.WriteString(x.AXTreeTxt)
	stored.Write(x.AXTree)
	stored.Write(x.DOM)
	for _, en := range append(c.Entries, c.Archive...) {
		stored.WriteString(en.Request.URL + en.Response.Content.Text)
	}
	for _, b := range c.Bodies {
		stored.Write(b)
	}
	for _, v := range []string{"ada.lovelace@example.org", "grace.hopper@navy.mil", "Katherine Johnson", "4111", "DE89 3704", "020 7946 0958", "marie.curie@sorbonne.fr"} {
		if bytes.Contains(stored.Bytes(), []byte(v)) {
			t.Errorf("%q is in the stored text, tree, snapshot or network capture", v)
		}
	}
	if !bytes.Contains(stored.Bytes(), []byte(redact.Placeholder)) {
		t.Error("the placeholder is nowhere in the stored text")
	}

	// A page without personal data: no box, the screenshot untouched.
	o := reset(t, e, ts.URL+"/plain")
	if len(o.Redaction) != 0 {
		t.Errorf("a page without personal data got boxes: %+v", o.Redaction)
	}
	if img, err := png.Decode(bytes.NewReader(o.Screenshot)); err != nil || img.Bounds() != image.Rect(0, 0, 800, 600) {
		t.Errorf("the plain page's screenshot: %v", err)
	}
}

// A reset's own policy (a task's) replaces the engine's: off records no
// box and the engine's description says no policy; the next reset without
// one is back to the engine's.
func TestRedactionPolicyPerReset(t *testing.T) {
	ts := piiSite(t)
	e := newEngine(t, "headless", func(o *Options) { o.Settings.Redact = redact.Default() })
	obs, err := e.Reset(t.Context(), engine.ResetOptions{StartURL: ts.URL + "/", RedactSet: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.Redaction) != 0 || e.Info().Redaction != nil {
		t.Errorf("a reset with redaction off: %d boxes, policy %v", len(obs.Redaction), e.Info().Redaction)
	}
	obs = reset(t, e, ts.URL+"/")
	if len(obs.Redaction) == 0 || e.Info().Redaction == nil || e.Info().Redaction.Name != "default" {
		t.Errorf("the next reset: %d boxes, policy %v", len(obs.Redaction), e.Info().Redaction)
	}
}
