package app

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser/browsertest"
	"waymark/engine/openenv"
	"waymark/internal/stats"
)

// BenchmarkServeLoad runs the real `waymark serve` binary with
// --max-sessions 16 --task-pack (and no admission limit) and drives 1, 2,
// 4, 8 and 16 concurrent agents over /ws, each doing a reset on the
// practice shop and 50 clicks on its navigation bar (every click opens
// another page). Reported per client count: total steps/s and per core,
// p50 and p90 step round trip, p50 reset, peak RSS (and PSS, which counts
// shared pages once) per session, serve's own RSS, the 1-minute load
// average when the run started, the tasks runnable per CPU during the run,
// and the errors (a failed call, an action error or a click that did not
// open its page), which must be 0.
//
// The local and local-static figures are written to the capacity file
// (openenv.DefaultCapacityPath: $WAYMARK_CAPACITY, else
// ~/.config/waymark/capacity.json) with the limits derived from them,
// which `serve` reads for its --max-load and --min-free-memory defaults.
//
// local: the sessions are browser contexts in serve's one warm Chromium
// (and its display); memory is the sum over serve's descendant processes.
// local-static: the same, each agent a reset and 20 clicks on a static
// page where a click changes nothing, resets counted in steps/s. remote: the sessions are
// browser contexts on a second Chromium the benchmark starts with a
// DevTools port (as a browser farm runs it) and serve gets
// --browser-provider remote_cdp; memory is that Chromium's growth over its
// idle size. The remote case is skipped while serve has no
// --browser-provider flag.
//
// make bench runs it with -benchtime 1x.
func BenchmarkServeLoad(b *testing.B) {
	bin := buildWaymark(b)
	help, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	static := staticPage(b)
	capacity := openenv.Capacity{MeasuredAt: time.Now().UTC(), CPUs: runtime.NumCPU(), MemoryMiB: procKB("/proc/meminfo", "MemTotal:") >> 20}
	capacity.Host, _ = os.Hostname()
	for _, mode := range []string{"local", "remote", "local-static"} {
		b.Run(mode, func(b *testing.B) {
			if mode == "remote" && !bytes.Contains(help, []byte("-browser-provider")) {
				b.Skip("this serve has no --browser-provider flag: no remote figures")
			}
			page, kind, counts := "", "shop", []int{1, 2, 4, 8, 16}
			switch mode {
			case "local-static":
				mode, page, kind = "local", static, "static"
			case "remote":
				counts = []int{1, 4, 8}
			}
			for _, n := range counts {
				b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						run := runServeLoad(b, bin, mode, n, page)
						if mode == "local" {
							run.Page = kind
							capacity.Runs = append(capacity.Runs, run)
						}
					}
				})
			}
		})
	}
	if len(capacity.Runs) == 0 {
		return
	}
	capacity.DeriveLimits()
	path := openenv.DefaultCapacityPath()
	if err := openenv.WriteCapacity(path, capacity); err != nil {
		b.Errorf("writing the capacity file: %v", err)
		return
	}
	b.Logf("capacity written to %s: holds %v agents (p90 step within %.0f× one agent's), serve's defaults --max-load %.1f --min-free-memory %d",
		path, capacity.Holds, openenv.HoldFactor, capacity.MaxLoad, capacity.MinFreeMemoryMiB)
}

// staticSteps is how many clicks each agent makes on the static page.
const staticSteps = 20

// staticPage serves a page on which a click changes nothing (the
// local-static runs: each agent resets on it and clicks staticSteps times,
// resets counted in the throughput).
func staticPage(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>static</title><body style="margin:0;font:16px sans-serif"><h1>A static page</h1><p>Nothing here changes when clicked.</p></body>`)
	}))
	b.Cleanup(srv.Close)
	return srv.URL + "/"
}

const (
	loadSteps    = 50
	loadSessions = 16
	shopHome     = "http://shop.waymark.test/"
)

// navClicks are the practice shop's header links (800×600, scale 1), each
// with the page it opens; the header is the same on every shop page.
var navClicks = []struct {
	x, y int
	url  string
}{
	{65, 67, shopHome + "category/footwear"},
	{156, 67, shopHome + "category/jackets"},
	{233, 67, shopHome + "category/backpacks"},
	{315, 67, shopHome + "category/camping"},
	{400, 67, shopHome + "category/accessories"},
	{729, 67, shopHome + "search?q=&max=50"},
	{75, 25, shopHome},
}

func buildWaymark(b *testing.B) string {
	b.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("no go command to build waymark: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "waymark")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// loadRun is what the clients of one run measured.
type loadRun struct {
	mu       sync.Mutex
	steps    []float64 // ms
	resets   []float64 // ms
	errs     int
	firstErr []string
}

func (r *loadRun) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs++
	if len(r.firstErr) < 5 {
		r.firstErr = append(r.firstErr, fmt.Sprintf(format, args...))
	}
}

func (r *loadRun) add(list *[]float64, d time.Duration) {
	r.mu.Lock()
	*list = append(*list, float64(d.Microseconds())/1000)
	r.mu.Unlock()
}

// runServeLoad runs clients agents against a serve in mode (local or
// remote): on the practice shop's header links, or with page set, a reset
// on page and staticSteps clicks that change nothing.
func runServeLoad(b *testing.B, bin, mode string, clients int, page string) openenv.CapacityRun {
	b.StopTimer()
	busy := waitQuiet(0.15, 90*time.Second)
	load1 := loadAverage()
	// No admission limit: the figures are what the machine does past it.
	args := []string{"serve", "--addr", "127.0.0.1:0", "--max-sessions", strconv.Itoa(loadSessions), "--task-pack",
		"--max-load", "0", "--min-free-memory", "0"}
	var farm *farmProcess
	if mode == "remote" {
		farm = startFarm(b)
		defer farm.stop()
		// connect_timeout: on a loaded 2-core machine 4 sessions opening at
		// once on one endpoint took longer than the default 10 s.
		args = append(args, "--browser-provider",
			fmt.Sprintf(`{"remote_cdp":{"endpoints":[%q],"max_per_endpoint":%d,"connect_timeout":60}}`, farm.http, loadSessions))
	}
	sv := startServe(b, bin, args)
	defer sv.stop(b)
	// Agents meet a serve that has been up a moment: its browser started
	// ahead of the first session (serve prewarms it).
	waitQuiet(0.15, 30*time.Second)

	// Memory: the local browsers are serve's descendants; the remote ones
	// are the farm Chromium's, measured against its idle size.
	root := sv.cmd.Process.Pid
	var idle memSample
	if farm != nil {
		root = farm.PID()
		idle = treeMemory(root)
	}
	peak := sampleMemory(root, 500*time.Millisecond)
	runnable := sampleRunnable(250 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := &loadRun{}
	ready, start := sync.WaitGroup{}, make(chan struct{})
	var done sync.WaitGroup
	ready.Add(clients)
	done.Add(clients)
	for c := 0; c < clients; c++ {
		go func() {
			defer done.Done()
			if page != "" {
				staticClient(ctx, sv.base, page, c, run, &ready, start)
				return
			}
			loadClient(ctx, sv.base, c, run, &ready, start)
		}()
	}
	ready.Wait()
	b.StartTimer()
	t0 := time.Now()
	close(start)
	done.Wait()
	wall := time.Since(t0)
	b.StopTimer()
	mem := peak()
	loadPerCPU := runnable()
	serveRSS := rssOf(sv.cmd.Process.Pid)

	total := float64(len(run.steps))
	if page != "" {
		total += float64(len(run.resets)) // the static runs count their resets, made on the clock
	}
	b.ReportMetric(total/wall.Seconds(), "steps/s")
	b.ReportMetric(total/wall.Seconds()/float64(runtime.NumCPU()), "steps/s/core")
	b.ReportMetric(loadPerCPU, "runnable/cpu")
	b.ReportMetric(stats.Percentile(run.steps, 0.5), "p50-ms/step")
	b.ReportMetric(stats.Percentile(run.steps, 0.9), "p90-ms/step")
	b.ReportMetric(stats.Percentile(run.resets, 0.5), "p50-ms/reset")
	b.ReportMetric(float64(mem.rss-idle.rss)/float64(clients)/(1<<20), "MB-rss/session")
	b.ReportMetric(float64(mem.pss-idle.pss)/float64(clients)/(1<<20), "MB-pss/session")
	b.ReportMetric(float64(serveRSS)/(1<<20), "MB-serve-rss")
	b.ReportMetric(load1, "load1")
	b.ReportMetric(100*busy, "cpu-busy-%-before")
	b.ReportMetric(float64(run.errs), "errors")
	b.ReportMetric(0, "ns/op") // one run of all clients is not the figure of interest
	b.Logf("%s, %d client(s): %d steps in %v, peak %d processes, CPU %.0f %% busy and load average %.2f at start",
		mode, clients, len(run.steps), wall.Round(time.Millisecond), mem.procs, 100*busy, load1)
	if run.errs > 0 {
		b.Errorf("%d error(s), want 0; first: %s\nserve's log:\n%s", run.errs, strings.Join(run.firstErr, "; "), sv.log())
	}
	want := clients * loadSteps
	if page != "" {
		want = clients * staticSteps
	}
	if len(run.steps) != want && run.errs == 0 {
		b.Errorf("%d steps measured, want %d", len(run.steps), want)
	}
	return openenv.CapacityRun{
		Agents: clients, Steps: int(total),
		StepsPerSecond: total / wall.Seconds(), StepsPerSecondPerCore: total / wall.Seconds() / float64(runtime.NumCPU()),
		P50StepMS: stats.Percentile(run.steps, 0.5), P90StepMS: stats.Percentile(run.steps, 0.9),
		PSSMiBPerSession: float64(mem.pss-idle.pss) / float64(clients) / (1 << 20),
		LoadPerCPU:       loadPerCPU, Errors: run.errs,
	}
}

// sampleRunnable reads the tasks runnable per CPU (/proc/loadavg's fourth
// field, the reader not counted: what serve --max-load limits) every
// interval until the returned function is called, which returns their mean.
func sampleRunnable(every time.Duration) func() float64 {
	stop, out := make(chan struct{}), make(chan float64, 1)
	go func() {
		sum, n := 0.0, 0
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
				if f := strings.Fields(string(raw)); len(f) >= 4 {
					run, _, _ := strings.Cut(f[3], "/")
					if v, err := strconv.Atoi(run); err == nil && v > 0 {
						sum += float64(v-1) / float64(runtime.NumCPU())
						n++
					}
				}
			}
			select {
			case <-stop:
				out <- sum / float64(max(n, 1))
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 { close(stop); return <-out }
}

// loadClient is one agent: it connects, resets on the shop, waits for the
// others, then clicks through the header links.
func loadClient(ctx context.Context, base string, id int, run *loadRun, ready *sync.WaitGroup, start <-chan struct{}) {
	readied := false
	defer func() {
		if !readied {
			ready.Done()
		}
	}()
	c, err := openenv.Dial(ctx, base, openenv.ClientOptions{MaxSteps: loadSteps + 10})
	if err != nil {
		run.fail("client %d: dial: %v", id, err)
		return
	}
	defer c.Close()
	t := time.Now()
	o, err := c.Reset(ctx, engine.ResetOptions{StartURL: shopHome})
	if err != nil {
		run.fail("client %d: reset: %v", id, err)
		return
	}
	run.add(&run.resets, time.Since(t))
	if o.URL != shopHome {
		run.fail("client %d: reset landed on %q", id, o.URL)
		return
	}
	readied = true
	ready.Done()
	<-start
	for i := 0; i < loadSteps; i++ {
		// Start each client at another link so the pages differ.
		n := navClicks[(i+id)%len(navClicks)]
		t := time.Now()
		o, err := c.Step(ctx, action.ClickAt(n.x, n.y))
		if err != nil {
			run.fail("client %d step %d: %v", id, i+1, err)
			return
		}
		run.add(&run.steps, time.Since(t))
		switch {
		case o.Error != "":
			run.fail("client %d step %d: action error %s", id, i+1, o.Error)
		case o.URL != n.url:
			run.fail("client %d step %d: click at (%d,%d) is on %q, want %q", id, i+1, n.x, n.y, o.URL, n.url)
		case o.Done:
			run.fail("client %d step %d: the episode ended", id, i+1)
			return
		}
	}
}

// staticClient is one agent on the static page: it connects, waits for
// the others, then resets and clicks staticSteps times (resets timed too).
func staticClient(ctx context.Context, base, page string, id int, run *loadRun, ready *sync.WaitGroup, start <-chan struct{}) {
	c, err := openenv.Dial(ctx, base, openenv.ClientOptions{MaxSteps: staticSteps + 10})
	ready.Done()
	if err != nil {
		run.fail("client %d: dial: %v", id, err)
		return
	}
	defer c.Close()
	<-start
	t := time.Now()
	o, err := c.Reset(ctx, engine.ResetOptions{StartURL: page})
	if err != nil || o.URL != page {
		run.fail("client %d: reset: %v (on %q)", id, err, o.URL)
		return
	}
	run.add(&run.resets, time.Since(t))
	for i := 0; i < staticSteps; i++ {
		t := time.Now()
		o, err := c.Step(ctx, action.ClickAt(600, 500))
		if err != nil {
			run.fail("client %d step %d: %v", id, i+1, err)
			return
		}
		run.add(&run.steps, time.Since(t))
		if o.Error != "" || o.URL != page || o.Done {
			run.fail("client %d step %d: error %q, url %q, done %v", id, i+1, o.Error, o.URL, o.Done)
			return
		}
	}
}

// serveProcess is a running `waymark serve`.
type serveProcess struct {
	cmd    *exec.Cmd
	base   string
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
}

func (s *serveProcess) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stderr.Len() < 1<<20 {
		s.stderr.Write(p)
	}
	return len(p), nil
}

func (s *serveProcess) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

func startServe(b *testing.B, bin string, args []string) *serveProcess {
	b.Helper()
	s := &serveProcess{done: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(os.Environ(), engine.EnvMaxSteps+"="+strconv.Itoa(loadSteps+10))
	s.cmd.Stderr = s
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	based := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "Serving the OpenEnv browser environment at "); ok {
				based <- strings.Fields(rest)[0]
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case s.base = <-based:
	case <-s.done:
		b.Fatalf("waymark %s exited at start:\n%s", strings.Join(args, " "), s.log())
	case <-time.After(30 * time.Second):
		s.kill()
		b.Fatalf("waymark serve did not say where it serves within 30 s:\n%s", s.log())
	}
	return s
}

// stop asks serve to stop (it closes its sessions' browsers) and kills
// what is left after 15 s.
func (s *serveProcess) stop(b *testing.B) {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		b.Logf("waymark serve did not stop within 15 s of SIGTERM; killing it")
		s.kill()
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // helpers left in its group
}

func (s *serveProcess) kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// farmProcess is a Chromium with a DevTools port on 127.0.0.1, in its own
// process group, standing for a browser farm's endpoint.
type farmProcess struct {
	*browsertest.Remote
	http string
}

func startFarm(b *testing.B) *farmProcess {
	b.Helper()
	path := browsertest.LookChromium()
	if path == "" {
		b.Skip("no Chromium to serve as a remote endpoint (make deps installs it)")
	}
	r := browsertest.StartRemote(b, browsertest.RemoteOptions{Path: path, NoSandbox: os.Geteuid() == 0, StartWait: 20 * time.Second})
	return &farmProcess{Remote: r, http: r.HTTP}
}

func (f *farmProcess) stop() { f.Kill() }

// memSample is the memory of a process and its descendants.
type memSample struct {
	rss, pss int64 // bytes
	procs    int
}

// sampleMemory samples the memory of root's descendants (root excluded
// when it is serve, included when it is the farm Chromium: see treeMemory)
// every interval until the returned function is called, which returns the
// peak of each figure.
func sampleMemory(root int, every time.Duration) func() memSample {
	stop, out := make(chan struct{}), make(chan memSample, 1)
	go func() {
		var peak memSample
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			m := treeMemory(root)
			peak.rss, peak.pss, peak.procs = max(peak.rss, m.rss), max(peak.pss, m.pss), max(peak.procs, m.procs)
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() memSample { close(stop); return <-out }
}

// treeMemory sums RSS and PSS over root's descendants, and root itself
// unless it is this test's child serve (whose own memory is not a
// browser's): a farm Chromium's root is its browser process.
func treeMemory(root int) memSample {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(pid); pp > 0 {
			kids[pp] = append(kids[pp], pid)
		}
	}
	var m memSample
	queue := slices.Clone(kids[root])
	if isChromium(root) {
		queue = append(queue, root)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = append(queue[1:], kids[pid]...)
		m.rss += rssOf(pid)
		m.pss += pssOf(pid)
		m.procs++
	}
	return m
}

func parentOf(pid int) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

func isChromium(pid int) bool {
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.Contains(string(comm), "chrom") || strings.Contains(string(comm), "headless")
}

// rssOf reads VmRSS from /proc/PID/status (0 for a process gone).
func rssOf(pid int) int64 { return procKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") }

// pssOf reads Pss from /proc/PID/smaps_rollup.
func pssOf(pid int) int64 { return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") }

func procKB(path, key string) int64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// waitQuiet waits until the machine's CPUs were less than share busy over
// a second (the processes of the previous run have ended, but the load
// average trails them by minutes), or until patience runs out; it returns
// the share busy in the last second.
func waitQuiet(share float64, patience time.Duration) float64 {
	deadline := time.Now().Add(patience)
	for {
		busy := cpuBusy(time.Second)
		if busy < share || time.Now().After(deadline) {
			return busy
		}
	}
}

// cpuBusy is the share of the machine's CPU time that was not idle over
// the interval, from /proc/stat's cpu line (user nice system idle iowait …).
func cpuBusy(over time.Duration) float64 {
	read := func() (idle, total uint64) {
		raw, err := os.ReadFile("/proc/stat")
		if err != nil {
			return 0, 0
		}
		line, _, _ := strings.Cut(string(raw), "\n")
		fs := strings.Fields(line)
		if len(fs) < 5 {
			return 0, 0
		}
		fs = fs[1:min(len(fs), 9)] // guest time is counted in user time already
		for i, f := range fs {
			v, _ := strconv.ParseUint(f, 10, 64)
			total += v
			if i == 3 || i == 4 { // idle, iowait
				idle += v
			}
		}
		return idle, total
	}
	i0, t0 := read()
	time.Sleep(over)
	i1, t1 := read()
	if t1 <= t0 {
		return 0
	}
	return 1 - float64(i1-i0)/float64(t1-t0)
}

func loadAverage() float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
