package browser

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// The test site: every page a test needs, served on 127.0.0.1.
const opsPage = `<!doctype html><html><head><title>ops</title><style>
body { margin: 0; height: 3000px; font: 16px sans-serif; }
#inp { position: absolute; left: 10px; top: 10px; width: 300px; height: 30px; }
#box { position: absolute; left: 420px; top: 300px; width: 300px; height: 200px; overflow: auto; background: #eef; }
#box div { height: 2000px; }
#link { position: absolute; left: 10px; top: 60px; }
#blank { position: absolute; left: 10px; top: 100px; }
#fetch { position: absolute; left: 10px; top: 140px; width: 120px; height: 30px; }
#out { position: absolute; left: 200px; top: 140px; }
#hover { position: absolute; left: 10px; top: 200px; width: 100px; height: 40px; background: #ddd; }
#hover:hover { background: #f00; }
</style></head><body>
<input id="inp" autocomplete="off">
<a id="link" href="/page2">to page 2</a>
<a id="blank" href="/page2?tab=new" target="_blank">new tab</a>
<button id="fetch">load</button><span id="out">none</span>
<div id="hover"></div>
<button id="chain" style="position:absolute;left:10px;top:260px;width:120px;height:30px" onclick="document.title='chain 1'; setTimeout(() => { document.title = 'chain 2'; }, 25)">chain</button>
<div id="box"><div>inner</div></div>
<script>
window.rec = {clicks: [], keys: [], dbl: 0, moves: 0, input: 0, press: 0};
addEventListener('keypress', () => rec.press++);
addEventListener('mouseup', e => rec.up = [e.clientX, e.clientY]);
addEventListener('mousemove', e => { if (e.buttons === 1) rec.dragMoves = (rec.dragMoves || 0) + 1; });
addEventListener('mousedown', e => rec.clicks.push([e.clientX, e.clientY, e.isTrusted]));
addEventListener('dblclick', e => rec.dbl++);
addEventListener('keydown', e => rec.keys.push(e.key + (e.ctrlKey ? '+ctrl' : '') + (e.shiftKey ? '+shift' : '')));
document.getElementById('hover').addEventListener('mouseenter', () => rec.moves++);
document.getElementById('inp').addEventListener('input', () => rec.input++);
document.getElementById('fetch').addEventListener('click', () => {
  fetch('/slow?ms=' + (window.fetchDelay || 250)).then(r => r.text()).then(t => { document.getElementById('out').textContent = t; document.title = t; });
});
</script></body></html>`

const page2 = `<!doctype html><html><head><title>page 2</title></head><body><h1>Page two</h1>
<a id="pushed" href="#x">hash</a></body></html>`

func newSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/", html(opsPage))
	mux.HandleFunc("/page2", html(page2))
	var slowN int64
	var slowMu sync.Mutex
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		var ms int
		fmt.Sscan(r.URL.Query().Get("ms"), &ms)
		time.Sleep(time.Duration(ms) * time.Millisecond)
		slowMu.Lock()
		slowN++
		n := slowN
		slowMu.Unlock()
		fmt.Fprintf(w, "loaded %d", n)
	})
	mux.HandleFunc("/cloudflare", html(`<html><head><title>Just a moment...</title></head><body>
<p>Verifying you are   human. This may take a few seconds.</p><p>Performance &amp; security by Cloudflare</p></body></html>`))
	mux.HandleFunc("/vercel", html(`<html><body><h1>Vercel Security Checkpoint</h1><p>We're verifying your browser</p></body></html>`))
	mux.HandleFunc("/cloudflare-hidden", html(`<html><body><p>cloudflare</p><p style="display:none">verify you are human</p></body></html>`))
	mux.HandleFunc("/opener", html(`<html><head><title>opener</title></head><body style="margin:0"><button onclick="window.open('/popup')" style="width:800px;height:600px">open</button></body></html>`))
	mux.HandleFunc("/popup", html(`<html><head><title>popup</title></head><body style="margin:0"><button onclick="window.close()" style="width:800px;height:600px">close</button></body></html>`))
	mux.HandleFunc("/alert", html(`<html><head><title>before</title></head><body style="margin:0">
<input type="file" id="f" style="width:800px;height:300px">
<button style="width:800px;height:300px" onclick="document.title = confirm('sure?') ? 'confirmed' : 'refused'">ask</button>
<script>alert('hello'); document.title = 'after alert';</script></body></html>`))
	mux.HandleFunc("/hang", html(`<html><body style="margin:0"><div id="h" style="width:800px;height:600px" onmousedown="for(;;){}">hang</div></body></html>`))
	mux.HandleFunc("/download", html(`<html><body style="margin:0"><a id="d" href="/file.bin" style="display:block;width:800px;height:600px">download</a></body></html>`))
	mux.HandleFunc("/file.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="waymark-test-download.bin"`)
		w.Write(bytes.Repeat([]byte("x"), 1024))
	})
	mux.HandleFunc("/never", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>host %s</title><body>served for %s</body>", r.Host, r.Host)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// newEngine starts an engine for one test and closes it after.
func newEngine(t testing.TB, display string, mod func(*Options)) *Engine {
	t.Helper()
	set := engine.DefaultSettings()
	set.Display = display
	opts := Options{Settings: set}
	if testing.Verbose() {
		opts.Logf = t.Logf
	}
	if mod != nil {
		mod(&opts)
	}
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func reset(t testing.TB, e *Engine, url string) action.Observation {
	t.Helper()
	obs, err := e.Reset(context.Background(), engine.ResetOptions{StartURL: url})
	if err != nil {
		t.Fatalf("reset %s: %v", url, err)
	}
	return obs
}

func step(t testing.TB, e *Engine, a action.Action) action.Observation {
	t.Helper()
	obs, err := e.Step(context.Background(), a)
	if err != nil {
		t.Fatalf("step %s: %v", a, err)
	}
	return obs
}

// eval reads a value from the active tab's page (test helper only).
func eval[T any](t testing.TB, e *Engine, expr string) T {
	t.Helper()
	e.mu.Lock()
	tb := e.ep.tab
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	return v
}

func pngSize(t testing.TB, b []byte) (int, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// freePort returns a port nothing listens on.
func hostPort(t testing.TB, url string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// procsWith lists pids whose command line contains s.
func procsWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		b, err := os.ReadFile("/proc/" + en.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + en.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		if strings.Contains(string(b), s) {
			out = append(out, en.Name())
		}
	}
	return out
}
