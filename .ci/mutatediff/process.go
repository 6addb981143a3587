package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Running a test binary: in a process group of its own, killed at its
// time limit and when it ends; whether a Chromium or an Xvfb ran below it;
// the end of its output; the shared lock (locked) that such runs are held
// under; and the interrupt that stops every group (running).

// runResult is one run of a test binary.
type runResult struct {
	ok, timedOut bool
	browser      bool   // it started a Chromium or an Xvfb
	failed       string // the first test that failed
	took         time.Duration
	tail         string // the end of its output
}

var failLine = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)

// locked runs f holding the lock, when there is one: around a package's
// runs with no mutant on (as a go test of the package would hold it), and
// around a mutant's run of tests that started a Chromium or an Xvfb in
// those runs.
func (c *config) locked(f func()) {
	if c.lock != "" {
		asked := time.Now()
		unlock, err := flock(c.lock)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutatediff:", err)
			os.Exit(1)
		}
		defer unlock()
		c.lockWait.Add(int64(time.Since(asked)))
	}
	f()
}

// runTests runs the named top-level tests of a test binary in dir within
// limit (then its process group is killed; go test's own -timeout comes
// 5 s before, with its goroutines).
func (c *config) runTests(bin, dir string, tests []string, env []string, limit time.Duration, failfast bool) runResult {
	args := []string{"-test.run", "^(" + strings.Join(tests, "|") + ")$", "-test.count=1", "-test.timeout", (limit - 5*time.Second).String()}
	if failfast {
		args = append(args, "-test.failfast")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if !running.add(0) {
		select {} // interrupted: main ends the program
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "mutatediff: cannot run %s: %v\n", bin, err)
		os.Exit(1)
	}
	pgid := cmd.Process.Pid
	if !running.add(pgid) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {}
	}
	defer running.remove(pgid)
	timer := time.AfterFunc(limit, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	stop := make(chan struct{})
	sawBrowser := make(chan bool, 1)
	go func() { sawBrowser <- watchBrowsers(pgid, stop) }()
	err := cmd.Wait()
	close(stop)
	timedOut := !timer.Stop()
	// What the tests started and left behind goes with them.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	res := runResult{ok: err == nil, took: time.Since(start), tail: out.String(), browser: <-sawBrowser}
	if strings.Contains(res.tail, "panic: test timed out after") {
		timedOut = true
	}
	res.timedOut = timedOut && !res.ok
	if m := failLine.FindStringSubmatch(res.tail); m != nil {
		res.failed = m[1]
	}
	return res
}

// watchBrowsers reports whether a Chromium or an Xvfb ran among the
// descendants of process pid before stop is closed (it looks every 50 ms).
func watchBrowsers(pid int, stop <-chan struct{}) bool {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if browserBelow(pid) {
			return true
		}
		select {
		case <-stop:
			return false
		case <-tick.C:
		}
	}
}

// browserBelow reports whether a descendant of pid is a Chromium or an
// Xvfb now (from /proc: each process's name and parent).
func browserBelow(pid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	parent := map[int]int{}
	name := map[int]string{}
	for _, e := range ents {
		id, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(string(b[j+1:]))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[id], name[id] = pp, string(b[i+1:j])
	}
	for id, n := range name {
		if !(strings.HasPrefix(n, "chrom") || strings.HasPrefix(n, "headless") || n == "Xvfb") {
			continue
		}
		for p, hops := parent[id], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == pid {
				return true
			}
		}
	}
	return false
}

// running is the process groups of the test processes running now, to
// be stopped when mutatediff is interrupted.
var running = &groups{m: map[int]bool{}}

type groups struct {
	mu      sync.Mutex
	m       map[int]bool
	stopped bool
}

// add notes a running process group (0: none, only asks); it reports
// false once mutatediff is interrupted, and no test may start.
func (g *groups) add(id int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if id != 0 && !g.stopped {
		g.m[id] = true
	}
	return !g.stopped
}

func (g *groups) remove(id int) { g.mu.Lock(); delete(g.m, id); g.mu.Unlock() }

// stop kills every running test process group and lets no other start;
// the workers then wait for the program's end, printing nothing more.
func (g *groups) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	for id := range g.m {
		_ = syscall.Kill(-id, syscall.SIGKILL)
	}
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 64<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-64<<10:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// flock takes an exclusive lock on path (made if missing) and returns
// its release.
func flock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("the lock %s: %v", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("the lock %s: %v", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
