package app

// End-to-end tests of the real binary: it is built with `go build`, run on a
// private Xvfb display, driven with xdotool like a person, and its database
// is then read back. They need Xvfb, xdotool and Chromium, and are skipped
// (with the reason) when one is missing or with -short.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser/browsertest"
	"waymark/internal/stats"
)

// e2ePage reports where clicks land and what was typed; a red box moves for
// the first animMS milliseconds after load so the live view has frames to
// show (the frame rate is measured then).
const e2ePage = `<!doctype html><html><head><title>Waymark e2e</title><style>
body{margin:0;font:16px sans-serif;background:#f4f6f8}
#q{position:absolute;left:100px;top:60px;width:300px;height:40px;font-size:20px}
#box{position:absolute;left:560px;top:480px;width:60px;height:60px;background:#e33;border-radius:8px}
h1{position:absolute;left:100px;top:130px;margin:0;font-size:22px;color:#234}
#line{position:absolute;left:700px;top:200px;width:1px;height:200px;background:#000}
</style></head><body>
<input id=q autocomplete=off placeholder="type here">
<h1>Click anywhere: the page reports where.</h1>
<div id=box></div><div id=line></div>
<script>
function rep(o){fetch('/report',{method:'POST',body:JSON.stringify(o)})}
document.addEventListener('mousedown',e=>rep({kind:'click',x:e.clientX,y:e.clientY}));
document.getElementById('q').addEventListener('keydown',e=>{if(e.key==='Enter')rep({kind:'enter',value:e.target.value})});
const t0=performance.now();
function anim(t){const b=document.getElementById('box');const dt=t-t0;
 if(dt<ANIM_MS){b.style.transform='translateX('+(Math.sin(dt/150)*120).toFixed(1)+'px)';requestAnimationFrame(anim)}}
requestAnimationFrame(anim);
</script></body></html>`

type pageReport struct {
	Kind  string  `json:"kind"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Value string  `json:"value"`
}

// reportServer serves e2ePage and collects its reports.
type reportServer struct {
	*httptest.Server
	mu      sync.Mutex
	reports []pageReport
}

func newReportServer(t testing.TB, animMS int) *reportServer {
	rs := &reportServer{}
	page := strings.Replace(e2ePage, "ANIM_MS", strconv.Itoa(animMS), 1)
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/report":
			var p pageReport
			if err := json.NewDecoder(r.Body).Decode(&p); err == nil {
				rs.mu.Lock()
				rs.reports = append(rs.reports, p)
				rs.mu.Unlock()
			}
			w.WriteHeader(http.StatusNoContent)
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, page)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *reportServer) all() []pageReport {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.reports)
}

func needTools(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end GUI test skipped with -short")
	}
	for _, tool := range []string{"Xvfb", "xdotool", "chromium", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("end-to-end GUI test needs %s, which is not installed (make deps installs it)", tool)
		}
	}
}

// startXvfb starts a private X display and returns its name (":N").
func startXvfb(t testing.TB) string { return startXvfbSized(t, "1280x900x24") }

func startXvfbSized(t testing.TB, screen string) string {
	t.Helper()
	return browsertest.StartXvfb(t, screen)
}

var buildOnce struct {
	sync.Once
	path string
	err  error
	dir  string
}

// buildBinary builds the real waymark binary once per test binary.
func buildBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "waymark-e2e-bin")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.dir = dir
		buildOnce.path = filepath.Join(dir, "waymark")
		cmd := exec.Command("go", "build", "-o", buildOnce.path, ".")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildOnce.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

// guiRun is one running app.
type guiRun struct {
	t       testing.TB
	cmd     *exec.Cmd
	display string
	dbPath  string
	dir     string // the run's temp dir (HOME, preferences, screenshots)
	mu      sync.Mutex
	lines   []string
	exited  chan struct{}
	viewX   float64 // the live view's top-left on the screen, in screen pixels
	viewY   float64
	scale   float64 // screen pixels per logical unit
}

// startGUI runs the binary on display with a fresh database, annotator
// preferences and the given extra settings, starting the task at startURL.
func startGUI(t testing.TB, display, startURL string, prefs map[string]any, extra ...string) *guiRun {
	t.Helper()
	return startGUIScaled(t, display, startURL, 1, prefs, extra...)
}

// startGUIScaled is startGUI at a Fyne scale (FYNE_SCALE).
func startGUIScaled(t testing.TB, display, startURL string, scale float64, prefs map[string]any, extra ...string) *guiRun {
	t.Helper()
	g := launchGUI(t, display, guiOptions{scale: scale, prefs: prefs, args: append([]string{"--start-task", startURL,
		"--goal", "E2E: type a word and answer 42", "--category", "information"}, extra...)})
	m := g.waitLine(`liveview at ([\d.]+),([\d.]+) size 800x600 scale ([\d.]+) `, 90*time.Second)
	wx, wy := g.windowPos()
	vx, _ := strconv.ParseFloat(m[1], 64)
	vy, _ := strconv.ParseFloat(m[2], 64)
	if got, _ := strconv.ParseFloat(m[3], 64); got != scale {
		t.Fatalf("the canvas scale is %v, want %v", got, scale)
	}
	g.scale = scale
	g.viewX, g.viewY = float64(wx)+vx*scale, float64(wy)+vy*scale
	return g
}

// e2eAnnotator is the annotator (and reviewer) name launchGUI presets in
// the Fyne preferences, so the first-start name dialog does not show.
const e2eAnnotator = "E2E Tester"

// guiOptions say how launchGUI runs the binary.
type guiOptions struct {
	dbPath string         // the database; "" is a fresh one in the test's temp dir
	scale  float64        // FYNE_SCALE; 0 is 1
	prefs  map[string]any // preferences besides the annotator name
	args   []string       // after "--db DB gui --debug"
}

// launchGUI runs the binary on display with its own HOME and XDG dirs (the
// preferences hold e2eAnnotator and o.prefs) and returns at once; the app
// is stopped at the end of the test, and its log shown if the test failed.
func launchGUI(t testing.TB, display string, o guiOptions) *guiRun {
	t.Helper()
	bin := buildBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	prefDir := filepath.Join(cfg, "fyne", AppID)
	if err := os.MkdirAll(prefDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := map[string]any{"annotator": e2eAnnotator}
	for k, v := range o.prefs {
		p[k] = v
	}
	pj, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(prefDir, "preferences.json"), pj, 0o644); err != nil {
		t.Fatal(err)
	}
	if o.dbPath == "" {
		o.dbPath = filepath.Join(dir, "e2e.db")
	}
	if o.scale == 0 {
		o.scale = 1
	}
	g := &guiRun{t: t, display: display, dbPath: o.dbPath, dir: dir, exited: make(chan struct{}), scale: o.scale}
	g.cmd = exec.Command(bin, append([]string{"--db", g.dbPath, "gui", "--debug"}, o.args...)...)
	g.cmd.Env = append(os.Environ(), "DISPLAY="+display, "LANG=en_US.UTF-8", "FYNE_SCALE="+strconv.FormatFloat(o.scale, 'f', -1, 64),
		"XDG_CONFIG_HOME="+cfg, "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	stderr, err := g.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	g.cmd.Stdout = io.Discard
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			g.mu.Lock()
			g.lines = append(g.lines, sc.Text())
			g.mu.Unlock()
		}
		g.cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-g.exited:
		default:
			g.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-g.exited:
			case <-time.After(40 * time.Second):
				// As quit: its goroutines (SIGQUIT) end the app log below,
				// then it is killed.
				t.Errorf("the app did not exit within 40 s of SIGTERM at the end of the test (its goroutines, from SIGQUIT, end the app log below)")
				g.cmd.Process.Signal(syscall.SIGQUIT)
				select {
				case <-g.exited:
				case <-time.After(10 * time.Second):
					g.cmd.Process.Kill()
					<-g.exited
				}
			}
		}
		if t.Failed() {
			g.mu.Lock()
			t.Logf("app log:\n%s", strings.Join(g.lines, "\n"))
			g.mu.Unlock()
		}
	})
	return g
}

// waitLine waits for a log line matching re and returns its submatches.
func (g *guiRun) waitLine(re string, d time.Duration) []string {
	g.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(d)
	for {
		g.mu.Lock()
		for _, l := range g.lines {
			if m := rx.FindStringSubmatch(l); m != nil {
				g.mu.Unlock()
				return m
			}
		}
		g.mu.Unlock()
		select {
		case <-g.exited:
			g.t.Fatalf("the app exited while waiting for %q", re)
		default:
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("no log line %q within %v", re, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// matches returns the submatches of every log line matching re.
func (g *guiRun) matches(re string) [][]string {
	rx := regexp.MustCompile(re)
	g.mu.Lock()
	defer g.mu.Unlock()
	var out [][]string
	for _, l := range g.lines {
		if m := rx.FindStringSubmatch(l); m != nil {
			out = append(out, m)
		}
	}
	return out
}

func (g *guiRun) xdo(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+g.display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("xdotool %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (g *guiRun) windowPos() (int, int) {
	g.t.Helper()
	out := g.xdo("search", "--name", "^Waymark", "getwindowgeometry")
	m := regexp.MustCompile(`Position: (\d+),(\d+)`).FindStringSubmatch(out)
	if m == nil {
		g.t.Fatalf("window position not found in %q", out)
	}
	x, _ := strconv.Atoi(m[1])
	y, _ := strconv.Atoi(m[2])
	return x, y
}

// clickPage clicks viewport pixel x,y of the live view: the screen pixel
// nearest the centre of that viewport pixel.
func (g *guiRun) clickPage(x, y int) {
	sx := int(math.Floor(g.viewX + (float64(x)+0.5)*g.scale))
	sy := int(math.Floor(g.viewY + (float64(y)+0.5)*g.scale))
	g.xdo("mousemove", strconv.Itoa(sx), strconv.Itoa(sy), "click", "1")
}

func (g *guiRun) screenshot(path string) {
	g.t.Helper()
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = append(os.Environ(), "DISPLAY="+g.display)
	if out, err := cmd.CombinedOutput(); err != nil {
		g.t.Errorf("screenshot: %v\n%s", err, out)
	}
}

// keepShot saves a screenshot of the whole display as name in the run's
// temp dir, copies it to $WAYMARK_E2E_SHOTS when that is set (to look at
// after the run), and returns the temp-dir path (kept until the test ends).
func (g *guiRun) keepShot(name string) string {
	g.t.Helper()
	path := filepath.Join(g.dir, name)
	g.screenshot(path)
	if dir := os.Getenv("WAYMARK_E2E_SHOTS"); dir != "" {
		b, err := os.ReadFile(path)
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
		if err != nil {
			g.t.Errorf("copy the screenshot to WAYMARK_E2E_SHOTS: %v", err)
		} else {
			g.t.Logf("screenshot: %s", filepath.Join(dir, name))
		}
	}
	return path
}

// waitWindow waits until the app's window is mapped and returns its
// top-left corner on the screen.
func (g *guiRun) waitWindow(d time.Duration) (int, int) {
	g.t.Helper()
	deadline := time.Now().Add(d)
	for {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Waymark")
		cmd.Env = append(os.Environ(), "DISPLAY="+g.display)
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) != "" {
			return g.windowPos()
		}
		select {
		case <-g.exited:
			g.t.Fatal("the app exited before its window showed")
		default:
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("no Waymark window within %v", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// children lists the processes whose parent is the app.
func (g *guiRun) children() []int {
	pid := g.cmd.Process.Pid
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 2 && f[1] == strconv.Itoa(pid) {
				out = append(out, n)
			}
		}
	}
	return out
}

// rssKB reads the app's resident memory.
func (g *guiRun) rssKB() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", g.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// quit closes the app as a window manager would (SIGTERM goes through the
// same close path) and checks that it leaves no child process behind.
func (g *guiRun) quit() {
	g.t.Helper()
	kids := g.children()
	g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
	case <-time.After(40 * time.Second):
		// SIGQUIT makes the Go runtime print every goroutine's stack to
		// stderr, which the app log below shows: where the close hangs.
		g.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-g.exited:
		case <-time.After(10 * time.Second):
		}
		g.t.Fatal("the app did not exit within 40 s of SIGTERM (its goroutines, from SIGQUIT, end the app log below)")
	}
	time.Sleep(300 * time.Millisecond)
	g.mu.Lock()
	for _, l := range g.lines {
		if strings.HasPrefix(l, "panic:") || strings.Contains(l, "Error in Fyne call thread") {
			g.t.Errorf("the app logged %q while closing", l)
		}
	}
	g.mu.Unlock()
	if code := g.cmd.ProcessState.ExitCode(); code != 0 {
		g.t.Errorf("the app exited with code %d", code)
	}
	for _, k := range kids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", k)); err == nil && !strings.Contains(string(b), ") Z ") {
			g.t.Errorf("process %d (a child of the app) is still running after it exited: %s", k, b)
		}
	}
}

// loadPNG decodes a screenshot.
func loadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	return img
}

// shotUntil takes screenshots of the display (each kept as name) until
// shows accepts one, for up to d, and returns shows' last error: the window
// draws a new picture when it gets to it, later on a starved machine.
func (g *guiRun) shotUntil(name string, d time.Duration, shows func(image.Image) error) error {
	g.t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(250 * time.Millisecond) {
		err := shows(loadPNG(g.t, g.keepShot(name)))
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// checkOnePixelLine checks that screen pixel x,y of the display is dark
// and its left and right neighbours light, within 30 s: the page's
// one-pixel line shown neither shifted nor resampled.
func (g *guiRun) checkOnePixelLine(name string, x, y int) {
	g.t.Helper()
	err := g.shotUntil(name, 30*time.Second, func(img image.Image) error {
		lum := func(x int) int {
			r, g, b, _ := img.At(x, y).RGBA()
			return int((r + g + b) / 3 >> 8)
		}
		if l, c, r := lum(x-1), lum(x), lum(x+1); c > 90 || l < 170 || r < 170 {
			return fmt.Errorf("around screen %d,%d the page's 1-px line reads %d|%d|%d for 30 s (want light|dark|light): shifted or blurred", x, y, l, c, r)
		}
		return nil
	})
	if err != nil {
		g.t.Error(err)
	}
}

func TestE2ERecordClickTypeEnterFinish(t *testing.T) {
	needTools(t)
	display := startXvfb(t)
	rs := newReportServer(t, 0) // a still page: the frame rate is BenchmarkLiveViewFPS's
	g := startGUI(t, display, rs.URL+"/", nil)

	// The first click also gives the live view the keyboard (and its focus
	// ring, which is drawn at every frame too).
	clicks := [][2]int{{500, 300}, {250, 80}}
	g.clickPage(clicks[0][0], clicks[0][1])
	g.waitLine(`click→timeline \d+ ms \(step 1:`, 30*time.Second)
	g.clickPage(clicks[1][0], clicks[1][1])
	g.waitLine(`click→timeline \d+ ms \(step 2:`, 30*time.Second)
	g.xdo("type", "--delay", "60", "hello")
	g.xdo("key", "Return")
	deadline := time.Now().Add(30 * time.Second)
	for !slices.ContainsFunc(rs.all(), func(p pageReport) bool { return p.Kind == "enter" }) {
		if time.Now().After(deadline) {
			t.Fatalf("the page never saw Enter; reports %+v", rs.all())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The page's one-pixel black line at x=700 is one screen pixel wide and
	// in place: the picture is neither shifted nor resampled.
	g.checkOnePixelLine("e2e-record.png", int(g.viewX)+700, int(g.viewY)+300)

	// Finish with the toolbar shortcut; the answer dialog takes 42 and Enter
	// once it is open and has the keyboard. The shortcut is pressed as a
	// loaded machine once delivered it: Ctrl and Shift let go first, F a
	// second later (held past the display's key-repeat delay, it typed "ff"
	// into the answer).
	g.xdo("keydown", "ctrl+shift+f")
	g.xdo("keyup", "ctrl+shift")
	time.Sleep(time.Second) // F held down
	g.xdo("keyup", "f")
	g.waitLine(`finish dialog open`, 30*time.Second)
	g.xdo("type", "--delay", "60", "42")
	g.xdo("key", "Return")
	g.waitLine(`ended reason=finished steps=5`, 30*time.Second)
	g.keepShot("e2e-ended.png")
	var delays []float64
	for _, m := range g.matches(`click→timeline (\d+) ms`) {
		f, _ := strconv.ParseFloat(m[1], 64)
		delays = append(delays, f)
	}
	g.quit()

	// The database holds exactly those actions.
	store, ep := g.onlyEpisode(t)
	if ep.Status != dataset.StatusFinished || ep.FinalAnswer != "42" || ep.Annotator != e2eAnnotator {
		t.Errorf("episode status %q answer %q annotator %q", ep.Status, ep.FinalAnswer, ep.Annotator)
	}
	steps, err := store.Steps(t.Context(), ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps[1:] {
		got = append(got, s.Action.String())
	}
	want := []string{"click 500,300", "click 250,80", `type "hello"`, "key ENTER", `finish "42"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stored actions %q\nwant %q", got, want)
	}
	// Where the page says the clicks landed: within 1 px of the stored x,y.
	var landed []pageReport
	for _, p := range rs.all() {
		if p.Kind == "click" {
			landed = append(landed, p)
		}
	}
	if len(landed) != len(clicks) {
		t.Fatalf("page saw %d clicks, want %d: %+v", len(landed), len(clicks), landed)
	}
	for i, p := range landed {
		a := steps[i+1].Action
		if dx, dy := p.X-float64(*a.X), p.Y-float64(*a.Y); dx < -1 || dx > 1 || dy < -1 || dy > 1 {
			t.Errorf("click %d stored at %d,%d but landed at %v,%v", i, *a.X, *a.Y, p.X, p.Y)
		}
		if *a.X != clicks[i][0] || *a.Y != clicks[i][1] {
			t.Errorf("click %d made at viewport %v was stored as %d,%d", i, clicks[i], *a.X, *a.Y)
		}
	}
	if e := rs.all(); !slices.ContainsFunc(e, func(p pageReport) bool { return p.Kind == "enter" && p.Value == "hello" }) {
		t.Errorf("the page did not get \"hello\" then Enter: %+v", e)
	}
	t.Logf("click→timeline ms: %v (median %.0f)", delays, stats.Median(delays))
}

// BenchmarkLiveViewFPS reports the frames per second the real app's live
// view shows while the page animates (a box moved by requestAnimationFrame
// for 12 s), once the first click has given the live view the keyboard and
// its focus ring: the median of the app's per-second counts over 6 s. One
// run per benchmark: b.N is not used.
func BenchmarkLiveViewFPS(b *testing.B) {
	needTools(b)
	if liveFPS.done {
		b.ReportMetric(liveFPS.median, "frames/s-median")
		return
	}
	display := startXvfb(b)
	rs := newReportServer(b, 12000)
	g := startGUI(b, display, rs.URL+"/", nil)
	g.clickPage(500, 300)
	g.waitLine(`click→timeline \d+ ms \(step 1:`, 30*time.Second)
	before := len(g.matches(`frames/s shown=`))
	b.ResetTimer()
	time.Sleep(6 * time.Second)
	b.StopTimer()
	var fps []float64
	for _, m := range g.matches(`frames/s shown=(\d+)`)[before:] {
		f, _ := strconv.ParseFloat(m[1], 64)
		fps = append(fps, f)
	}
	g.quit()
	if len(fps) == 0 {
		b.Fatal("the app reported no frames/s line in 6 s")
	}
	liveFPS.done, liveFPS.median = true, stats.Median(fps)
	b.Logf("live view frames/s during the animation: %v", fps)
	b.ReportMetric(liveFPS.median, "frames/s-median")
}

var liveFPS struct {
	done   bool
	median float64
}

// BenchmarkGUI200Steps drives the real app through a 200-step episode
// (clicks on a static part of the page, each waiting for its step in the
// timeline) and reports the click→timeline median and the app's memory
// after 200 steps. One run per benchmark: b.N is not used.
func BenchmarkGUI200Steps(b *testing.B) {
	needTools(b)
	// The testing package calls a benchmark more than once (b.N = 1, then
	// the -benchtime count); the 200-step session runs only the first time.
	if gui200.done {
		b.ReportMetric(gui200.median, "click→timeline-median-ms")
		b.ReportMetric(gui200.rss, "rss-MB-after-200-steps")
		b.ReportMetric(gui200.rss0, "rss-MB-at-start")
		b.ReportMetric(gui200.heap, "go-heap-MB-after-200-steps")
		return
	}
	display := startXvfb(b)
	rs := newReportServer(b, 0)
	g := startGUI(b, display, rs.URL+"/", map[string]any{"max_steps": 200, "action_wait_s": 1.5})
	rss0 := g.rssKB()
	b.ResetTimer()
	for i := 1; i <= 200; i++ {
		g.clickPage(300+(i%20)*10, 300+(i/20)*10)
		g.waitLine(fmt.Sprintf(`click→timeline \d+ ms \(step %d:`, i), 60*time.Second)
	}
	heap := g.waitLine(`ended reason=step_limit steps=200 heap_inuse_mb=([\d.]+)`, 60*time.Second)
	b.StopTimer()
	gui200.heap, _ = strconv.ParseFloat(heap[1], 64)
	time.Sleep(time.Second)
	rss := g.rssKB()
	var delays []float64
	for _, m := range g.matches(`click→timeline (\d+) ms`) {
		f, _ := strconv.ParseFloat(m[1], 64)
		delays = append(delays, f)
	}
	g.quit()
	gui200.done, gui200.median, gui200.rss, gui200.rss0 = true, stats.Median(delays), float64(rss)/1024, float64(rss0)/1024
	b.ReportMetric(gui200.median, "click→timeline-median-ms")
	b.ReportMetric(gui200.rss, "rss-MB-after-200-steps")
	b.ReportMetric(gui200.rss0, "rss-MB-at-start")
	b.ReportMetric(gui200.heap, "go-heap-MB-after-200-steps")
}

var gui200 struct {
	done                    bool
	median, rss, rss0, heap float64
}

// Closing the app in the middle of an episode saves it as interrupted,
// with the text still being typed, and leaves no browser or display behind.
func TestE2ECloseMidEpisode(t *testing.T) {
	needTools(t)
	display := startXvfb(t)
	rs := newReportServer(t, 0)
	g := startGUI(t, display, rs.URL+"/", nil)
	g.clickPage(250, 80)
	g.waitLine(`click→timeline \d+ ms \(step 1:`, 30*time.Second)
	if len(g.children()) == 0 {
		t.Fatal("no browser or display process under the app while recording")
	}
	g.xdo("type", "--delay", "40", "bye")
	// The app has all three keys (SIGTERM does not wait for X events still in
	// flight), and quits at once: "bye" is still in the typing buffer.
	g.waitLine(`typing 3 characters not yet sent`, 10*time.Second)
	g.quit()

	store, ep := g.onlyEpisode(t)
	if ep.Status != dataset.StatusInterrupted {
		t.Errorf("status %q after closing mid-episode, want interrupted", ep.Status)
	}
	steps, err := store.Steps(t.Context(), ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps[1:] {
		got = append(got, s.Action.String())
	}
	if want := []string{"click 250,80", `type "bye"`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored %q, want %q", got, want)
	}
}

// At Fyne scale 1.5 the 800×600 view covers 1200×900 screen pixels; a click
// on the screen pixel of a viewport pixel still lands on that page pixel.
func TestE2EClicksLandAtScale15(t *testing.T) {
	needTools(t)
	display := startXvfbSized(t, "1920x1280x24")
	rs := newReportServer(t, 0)
	g := startGUIScaled(t, display, rs.URL+"/", 1.5, nil)
	clicks := [][2]int{{500, 300}, {7, 593}, {799, 1}}
	for i, c := range clicks {
		g.clickPage(c[0], c[1])
		g.waitLine(fmt.Sprintf(`click→timeline \d+ ms \(step %d:`, i+1), 30*time.Second)
	}
	g.keepShot("e2e-scale15.png")
	g.quit()
	var landed []pageReport
	for _, p := range rs.all() {
		if p.Kind == "click" {
			landed = append(landed, p)
		}
	}
	if len(landed) != len(clicks) {
		t.Fatalf("page saw %+v", landed)
	}
	for i, p := range landed {
		if dx, dy := p.X-float64(clicks[i][0]), p.Y-float64(clicks[i][1]); math.Abs(dx) > 1 || math.Abs(dy) > 1 {
			t.Errorf("click on viewport pixel %v landed at %v,%v", clicks[i], p.X, p.Y)
		}
	}
}

// With "OpenEnv server" set in Settings, the app records through an OpenEnv
// client: no live frames, so the view shows each step's screenshot, and
// the episode lands in the app's own store.
func TestE2EOpenEnvServerEngine(t *testing.T) {
	needTools(t)
	display := startXvfb(t)
	rs := newReportServer(t, 0)
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	sv, err := newServing(&Env{DBPath: filepath.Join(t.TempDir(), "server.db")},
		serveConfig{MaxSessions: 1, ActionSet: action.SetDefault, Settings: set, Display: engine.DisplayHeadless, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	t.Cleanup(func() { sv.Close(); hs.Close() })

	g := startGUI(t, display, rs.URL+"/", map[string]any{"openenv_server": hs.URL})
	g.clickPage(500, 300)
	g.waitLine(`click→timeline \d+ ms \(step 1:`, 60*time.Second)
	// The step's screenshot is decoded off the UI goroutine, then shown.
	g.checkOnePixelLine("e2e-openenv.png", int(g.viewX)+700, int(g.viewY)+300)
	g.quit()

	landed := rs.all()
	if len(landed) != 1 || landed[0].X != 500 || landed[0].Y != 300 {
		t.Fatalf("the page saw %+v, want one click at 500,300", landed)
	}
	store, ep := g.onlyEpisode(t)
	if !strings.Contains(ep.EngineJSON, "openenv") {
		t.Errorf("engine details %s do not name the OpenEnv client", ep.EngineJSON)
	}
	steps, _ := store.Steps(t.Context(), ep.ID)
	if len(steps) != 2 || steps[1].Action.String() != "click 500,300" {
		t.Fatalf("stored steps %+v", steps)
	}
}

// onlyEpisode opens the run's database (closed when the test ends) and
// returns its one episode; any other number of episodes fails the test.
func (g *guiRun) onlyEpisode(t *testing.T) (*dataset.Store, dataset.Episode) {
	t.Helper()
	store, err := dataset.Open(g.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	eps, err := store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %+v, %v; want exactly one", eps, err)
	}
	return store, eps[0]
}
