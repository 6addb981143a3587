package app

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// volatileSite answers differently every time, as a real site does a week
// later: a new id and time stamp on every page, its items in a random
// order, a "load more" POST whose pages carry a fresh batch id, a picture
// and a font, a service worker, a cross-site iframe with its own random
// number, and a WebSocket that greets with a random word and answers each
// "ping" with a fresh "pong". The page's title sums up what it shows, so a
// step's title and screenshot change when any answer does. Its pages are
// at /, and at /ws2, a page whose WebSocket message carries the time (so
// its replay sends another message than the recording did).
func volatileSite(t *testing.T) (addr string, stop func()) {
	t.Helper()
	rnd := func() string {
		b := make([]byte, 4)
		rand.Read(b)
		return hex.EncodeToString(b)
	}
	var batch atomic.Int64
	font, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")
	if err != nil {
		t.Fatalf("the test font: %v (make deps installs fonts-dejavu-core)", err)
	}
	mux := http.NewServeMux()
	var port string
	page := func(w http.ResponseWriter, wsPayload string) {
		items := []string{"kettle", "teapot", "mug", "spoon"}
		for i := len(items) - 1; i > 0; i-- {
			j, _ := rand.Int(rand.Reader, big.NewInt(int64(i+1)))
			items[i], items[j.Int64()] = items[j.Int64()], items[i]
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>start</title><style>@font-face{font-family:arch;src:url(/font.ttf)} body{margin:0;font:16px arch,monospace}</style>
<h1 id=id>order %s</h1><p id=when>%s</p><p id=items>%s</p><p id=more></p><p id=ws></p><p id=cid></p>
<img src="/logo.png?t=%d" width=40 height=30>
<iframe src="http://localhost:%s/frame" style="width:300px;height:60px"></iframe>
<button id=load style="position:absolute;left:0;top:400px;width:400px;height:100px">Load more</button>
<button id=send style="position:absolute;left:400px;top:400px;width:400px;height:100px">Ping</button>
<a href="/elsewhere" style="position:absolute;left:0;top:520px;width:800px;height:60px;display:block">elsewhere</a>
<script>
const sum = () => { document.title = [id.textContent, more.textContent, ws.textContent, cid.textContent].join('|'); };
cid.textContent = 'client ' + Math.random().toString(36).slice(2, 8);
let n = 0;
load.onclick = () => fetch('/api/more', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'page=' + (++n)})
  .then(r => r.text()).then(t => { more.textContent += ' ' + t; sum(); });
const sock = new WebSocket('ws://' + location.host + '/socket');
sock.onmessage = (e) => { ws.textContent += ' ' + e.data; sum(); };
send.onclick = () => sock.send(%s);
navigator.serviceWorker.register('/sw.js');
sum();
</script>`, rnd(), time.Now().Format(time.RFC3339Nano), strings.Join(items, " "), batch.Load(), port, wsPayload)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) { page(w, `'ping'`) })
	mux.HandleFunc("/ws2", func(w http.ResponseWriter, r *http.Request) { page(w, `'ping at ' + performance.now()`) })
	mux.HandleFunc("/api/more", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "p%s-batch%d-%s", r.Form.Get("page"), batch.Add(1), rnd())
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		b := make([]byte, 1)
		rand.Read(b)
		w.Write(tinyPNG(t, b[0]))
	})
	mux.HandleFunc("/font.ttf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "font/ttf")
		w.Write(font)
	})
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `self.addEventListener('install', (e) => e.waitUntil(fetch('/sw-ping?id=`+rnd()+`')));`)
	})
	mux.HandleFunc("/sw-ping", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<body style="margin:0;font:14px monospace">frame %s</body>`, rnd())
	})
	mux.HandleFunc("/socket", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := r.Context()
		c.Write(ctx, websocket.MessageText, []byte("hello-"+rnd()))
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			c.Write(ctx, websocket.MessageText, []byte("pong-"+rnd()+"-to-"+string(msg)[:min(4, len(msg))]))
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().String()[strings.LastIndexByte(ln.Addr().String(), ':')+1:]
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			srv.Close()
		}
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// runMainStdin is runMain with stdin as standard input.
func runMainStdin(stdin string, args ...string) (int, string, string) {
	var out, errb strings.Builder
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// tinyPNG is a 4×3 picture of one grey.
func tinyPNG(t *testing.T, grey byte) []byte {
	img := image.NewGray(image.Rect(0, 0, 4, 3))
	for i := range img.Pix {
		img.Pix[i] = grey
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recordCaptured records actions from startURL with network capture (so
// with a replay archive) into a new store file, headless.
func recordCaptured(t *testing.T, startURL string, actions ...action.Action) (db, id string) {
	t.Helper()
	set := engine.DefaultSettings()
	set.HAR = true
	return recordWith(t, set, "", startURL, actions...)
}

// A recording replays offline from its own traffic, every step matching,
// though the site answers differently every time and is then stopped; the
// same replay online diverges (the test can fail). A branch restored at
// step K is served the responses recorded from step K on. A page whose
// WebSocket client sends another message than it recorded is reported not
// hermetic at that step.
func TestReplayOfflineFromTheRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	addr, stop := volatileSite(t)
	load, ping := action.ClickAt(200, 450), action.ClickAt(600, 450)
	db, id := recordCaptured(t, "http://"+addr+"/", load, load, ping, action.FinishWith("done"))

	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	size, err := st.EpisodeArchiveSize(t.Context(), id)
	st.Close()
	if err != nil || size.Records < 10 || size.Bodies < 6 {
		t.Fatalf("the episode's archive: %+v %v", size, err)
	}

	// Online: the live site answers otherwise.
	report := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runMain("replay", id, "--db", db, "--display", "headless", "--continue")
	if code != 1 || !strings.Contains(stdout, "diverged") {
		t.Fatalf("an online replay of the changing site: exit %d\n%s%s", code, stdout, stderr)
	}

	// Offline, the site stopped: every step matches, nothing refused.
	stop()
	code, stdout, stderr = runMain("replay", id, "--db", db, "--display", "headless", "--offline", "--report", report)
	t.Logf("offline replay: exit %d\n%s%s", code, stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "OK: all 5 steps matched") || !strings.Contains(stdout, "hermetic: 5/5 steps matched") ||
		!strings.Contains(stdout, " 0 refused") {
		t.Fatalf("the offline replay: exit %d\n%s%s", code, stdout, stderr)
	}
	var rep struct {
		Fidelity struct {
			Served, Refused int
			Hermetic        bool
		}
		Steps []struct {
			Step     int
			Requests *struct{ Served, Refused int }
		}
	}
	b, _ := os.ReadFile(report)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Fidelity.Hermetic || rep.Fidelity.Refused != 0 || rep.Fidelity.Served < 10 || len(rep.Steps) != 5 ||
		rep.Steps[1].Requests == nil || rep.Steps[1].Requests.Served != 1 {
		t.Errorf("the report's fidelity: %s", b)
	}
	st, err = dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.ReplayRuns(t.Context(), id)
	if err != nil || len(runs) != 2 || runs[0].Fidelity == nil || !runs[0].Fidelity.Hermetic || runs[1].Fidelity != nil {
		t.Errorf("the stored runs: %+v %v", runs, err)
	}
	steps := map[int]string{}
	for s, err := range st.EpisodeSteps(t.Context(), id) {
		if err != nil {
			t.Fatal(err)
		}
		steps[s.Index] = s.Title
	}
	st.Close()

	// A branch restored at step 1 offline: the agent's "load more" is
	// served the page the recording got at step 2.
	code, stdout, stderr = runMainStdin(`{"op":"click","x":200,"y":450}`+"\n", "play", "--db", db, "--restore", id+":1", "--offline", "--display", "headless")
	if code != 0 {
		t.Fatalf("play --restore %s:1 --offline: exit %d\n%s%s", id, code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var last struct{ Title string }
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last.Title != steps[2] {
		t.Errorf("the branch's step after step 1 shows %q, the recording's step 2 showed %q\n%s", last.Title, steps[2], stdout)
	}

	// A WebSocket page whose message is not the recorded one.
	addr2, stop2 := volatileSite(t)
	db2, id2 := recordCaptured(t, "http://"+addr2+"/ws2", ping, action.FinishWith("done"))
	stop2()
	code, stdout, stderr = runMain("replay", id2, "--db", db2, "--display", "headless", "--offline", "--continue")
	if code != 1 || !strings.Contains(stdout, "not hermetic") || !strings.Contains(stdout, "step 1: the page sent") {
		t.Errorf("a WebSocket page that sends another message: exit %d\n%s%s", code, stdout, stderr)
	}
}
