package browser

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/har"
)

// archiveSite is a page whose every kind of request a replay archive must
// hold: an image and a font (binary bodies), a stylesheet, a redirect, a
// POST, a dedicated worker that fetches, a service worker that fetches as
// it installs, and a cross-site iframe (its own renderer) with a script
// and an image of its own. The page writes what it got into its title
// once everything arrived, so the page shows whether each answer came.
func archiveSite(t testing.TB) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	var pic bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	_ = png.Encode(&pic, img)
	// A real font (make deps installs DejaVu), so that the page can load it.
	font, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
	if err != nil {
		t.Fatalf("the test font: %v (make deps installs fonts-dejavu-core)", err)
	}
	mux := http.NewServeMux()
	var port string
	serve := func(path, ctype, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		})
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>loading</title><link rel=stylesheet href="/style.css">
<body style="margin:0"><img id=pic src="/pic.png"><div id=out>…</div>
<iframe src="http://localhost:%s/frame" style="width:300px;height:100px"></iframe>
<script>
const got = {};
const done = () => { const k = Object.keys(got).sort(); document.getElementById('out').textContent = k.map(x => x + '=' + got[x]).join(' '); if (k.length === 6) document.title = 'all:' + k.map(x => got[x]).join(','); };
new FontFace('arch', 'url(/font.ttf)').load().then(() => { got.font = 'ok'; done(); }, () => { got.font = 'no'; done(); });
fetch('/moved').then(r => r.text()).then(t => { got.redirect = t; done(); }, () => { got.redirect = 'no'; done(); });
fetch('/api/post', {method: 'POST', body: 'q=kettle'}).then(r => r.text()).then(t => { got.post = t; done(); }, () => { got.post = 'no'; done(); });
const w = new Worker('/worker.js'); w.onmessage = (e) => { got.worker = e.data; done(); };
navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => { got.sw = 'ready'; done(); }, (e) => { got.sw = 'no'; done(); });
window.addEventListener('message', (e) => { got.frame = e.data; done(); });
</script></body>`, port)
	})
	serve("/style.css", "text/css", `#out{font:16px monospace}`)
	mux.HandleFunc("/pic.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pic.Bytes())
	})
	mux.HandleFunc("/font.ttf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "font/ttf")
		w.Write(font)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/landed", http.StatusFound) })
	serve("/landed", "text/plain", "landed")
	mux.HandleFunc("/api/post", func(w http.ResponseWriter, r *http.Request) {
		b := new(bytes.Buffer)
		b.ReadFrom(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "posted:"+b.String())
	})
	serve("/worker.js", "text/javascript", `fetch('/from-worker').then(r => r.text()).then(t => postMessage(t), () => postMessage('no'));`)
	serve("/from-worker", "text/plain", "w-ok")
	serve("/sw.js", "text/javascript", `self.addEventListener('install', (e) => e.waitUntil(fetch('/from-sw').then(r => r.text())));`)
	serve("/from-sw", "text/plain", "sw-ok")
	serve("/frame", "text/html", `<body>frame<img src="/frame.png"><script src="/frame.js"></script></body>`)
	serve("/frame.js", "text/javascript", `parent.postMessage('frame-ok', '*');`)
	mux.HandleFunc("/frame.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pic.Bytes())
	})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	port = ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	return ts, &hits
}

// mapArchive answers by method and URL with the last recorded answer.
type mapArchive struct {
	mu      sync.Mutex
	by      map[string]har.Entry
	bodies  map[string][]byte
	refused []string
	notes   []string
}

func (a *mapArchive) Answer(r engine.ArchiveRequest) (engine.ArchiveResponse, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.by[r.Method+" "+r.URL]
	if !ok {
		a.refused = append(a.refused, r.URL)
		return engine.ArchiveResponse{Why: "not recorded"}, false
	}
	return engine.ArchiveResponse{Status: e.Response.Status, StatusText: e.Response.StatusText, Headers: e.Response.Headers,
		Body: a.bodies[e.Response.Content.Hash], Fail: e.Response.Error}, true
}
func (a *mapArchive) Sockets() []har.Entry { return nil }
func (a *mapArchive) NotHermetic(step int, why string) {
	a.mu.Lock()
	a.notes = append(a.notes, why)
	a.mu.Unlock()
}

// waitTitlePrefix waits until the page's title has prefix (at most 15 s).
func waitTitlePrefix(t *testing.T, e *Engine, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		title := eval[string](t, e, `document.title`)
		if strings.HasPrefix(title, prefix) || time.Now().After(deadline) {
			return title
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A recording keeps every request of every target with its body — the
// page's image and font (binary), a redirect, a POST, a dedicated worker's
// and a service worker's requests, a cross-site iframe's own — and the
// same page replayed from those records with its server stopped gets every
// answer, nothing refused; a request the archive lacks is refused, never
// fetched.
func TestArchiveRecordsEveryTargetAndReplaysOffline(t *testing.T) {
	ts, hits := archiveSite(t)
	rec := newEngine(t, "headless", func(o *Options) { o.Settings.HAR = true })
	reset(t, rec, ts.URL+"/")
	want := "all:ok,frame-ok,posted:q=kettle,landed,ready,w-ok"
	if got := waitTitlePrefix(t, rec, "all:"); got != want {
		t.Fatalf("the live page says %q, want %q", got, want)
	}
	step(t, rec, action.Action{Op: action.Wait})
	c := rec.TakeHAR(true)
	urls := map[string]har.Entry{}
	for _, e := range c.Archive {
		if e.Response.Error != "" {
			continue // a request the page gave up on (a font loaded twice, a frame moved to its own process)
		}
		urls[e.Request.Method+" "+strings.TrimPrefix(strings.TrimPrefix(e.Request.URL, ts.URL), "http://localhost:"+ts.URL[strings.LastIndexByte(ts.URL, ':')+1:])] = e
	}
	for _, k := range []string{"GET /", "GET /style.css", "GET /pic.png", "GET /font.ttf", "GET /moved", "GET /landed", "POST /api/post",
		"GET /worker.js", "GET /from-worker", "GET /sw.js", "GET /from-sw", "GET /frame", "GET /frame.js", "GET /frame.png"} {
		e, ok := urls[k]
		if !ok {
			t.Errorf("the archive has no %s (it has %d records)", k, len(c.Archive))
			continue
		}
		if k == "GET /moved" {
			if e.Response.Status != 302 || !strings.HasSuffix(e.Response.RedirectURL, "/landed") {
				t.Errorf("the redirect: %d %q", e.Response.Status, e.Response.RedirectURL)
			}
			continue
		}
		if e.Response.Content.Hash == "" || c.Bodies[e.Response.Content.Hash] == nil {
			t.Errorf("%s: no body kept (%q)", k, e.Response.Content.Comment)
		}
	}
	if e := urls["GET /pic.png"]; !bytes.HasPrefix(c.Bodies[e.Response.Content.Hash], []byte("\x89PNG")) {
		t.Errorf("the image's body is not its PNG")
	}
	if urls["GET /pic.png"].Response.Content.Hash != urls["GET /frame.png"].Response.Content.Hash {
		t.Errorf("the same picture twice has two hashes")
	}
	if e := urls["POST /api/post"]; e.Request.PostData == nil || e.Request.PostData.Text != "q=kettle" {
		t.Errorf("the POST's body: %+v", e.Request.PostData)
	}

	// Replayed offline, the server stopped.
	arch := &mapArchive{by: map[string]har.Entry{}, bodies: c.Bodies}
	for _, e := range c.Archive {
		if e.Response.Error == "" {
			arch.by[e.Request.Method+" "+e.Request.URL] = e
		}
	}
	ts.Close()
	before := hits.Load()
	rp := newEngine(t, "headless", nil)
	obs, err := rp.Reset(context.Background(), engine.ResetOptions{StartURL: ts.URL + "/", Archive: arch})
	if err != nil {
		t.Fatal(err)
	}
	if got := waitTitlePrefix(t, rp, "all:"); got != want {
		t.Fatalf("the page replayed offline says %q (%s), want %q (refused: %v)", got, eval[string](t, rp, `document.getElementById('out').textContent`), want, arch.refused)
	}
	if obs.OffArchive != 0 {
		t.Errorf("the reset's OffArchive is %d (refused %v)", obs.OffArchive, arch.refused)
	}
	// A request the recording did not make is refused: the page sees a
	// network error, and the step counts it.
	eval[any](t, rp, `fetch('/never-recorded').then(() => document.title = 'x:fetched', () => document.title = 'x:refused'), 0`)
	if res := waitTitlePrefix(t, rp, "x:"); res != "x:refused" {
		t.Errorf("a request not in the archive: %s", res)
	}
	if hits.Load() != before {
		t.Errorf("the replay reached the stopped server %d times", hits.Load()-before)
	}
}
