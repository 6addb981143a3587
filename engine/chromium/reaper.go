package chromium

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// When the program dies by SIGKILL, nothing of it runs: the kernel kills
// Chromium's main process (chromedp starts it with PR_SET_PDEATHSIG) and
// Xvfb (started with PR_SET_PDEATHSIG too), but Chromium's helpers (zygote,
// renderers, GPU and network processes) only notice seconds later, and the
// profile folder, with the episode's cookies, stays in the temporary folder.
//
// So every engine gets a run folder, $TMPDIR/waymark/run-PID-N, holding its
// profiles and Chromium's own temporary files, and a reaper: a copy of this
// program (see init) that waits on a pipe whose only writer is this process.
// The kernel closes the pipe when this process dies, however it dies; the
// reaper then kills the process groups it was told about (Xvfb's, and
// Chromium's, which its helpers join) in one call each, then every process
// still started with a profile in the run folder, and removes the folder.
// A run folder whose owner died anyway (no reaper could start) is removed by
// the next engine that starts: its lock file is then free.

const reaperEnv = "WAYMARK_BROWSER_REAPER"

func init() {
	if dir := os.Getenv(reaperEnv); dir != "" {
		runReaper(dir, os.Stdin)
		os.Exit(0)
	}
}

// runReaper reads "+PGID" and "-PGID" lines until end of file, then cleans
// up after the run folder's owner.
func runReaper(dir string, in *os.File) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	groups := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		n, err := strconv.Atoi(line[1:])
		if err != nil || n <= 1 {
			continue
		}
		groups[n] = line[0] == '+'
	}
	for g, live := range groups {
		if live {
			syscall.Kill(-g, syscall.SIGKILL)
		}
	}
	killUsingDir(dir)
	removeProfile(dir)
}

// runGuard is an engine's run folder, its lock and its reaper.
type runGuard struct {
	dir  string
	lock *os.File // flock held while the run folder is in use
	mu   sync.Mutex
	w    *os.File      // the reaper's pipe; nil when no reaper runs
	done chan struct{} // closed when the reaper has exited
	pid  int           // the reaper's process
	n    int           // profiles made
}

// runRoot is the folder holding every engine's run folder.
func runRoot() string { return filepath.Join(os.TempDir(), "waymark") }

var runSeq struct {
	sync.Mutex
	n int
}

// newRunGuard removes run folders left by dead programs, creates this
// engine's folder and starts its reaper. A reaper that cannot start is
// logged, not fatal: the engine still cleans up when it is closed.
func newRunGuard(logf func(string, ...any)) (*runGuard, error) {
	root := runRoot()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("could not create the browser's temporary folder %s: %w; set TMPDIR to a writable folder", root, err)
	}
	sweepStaleRuns(root, logf)
	runSeq.Lock()
	runSeq.n++
	name := fmt.Sprintf("run-%d-%d", os.Getpid(), runSeq.n)
	runSeq.Unlock()
	dir := filepath.Join(root, name)
	os.RemoveAll(dir) // a folder of an earlier process with the same pid
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("could not create the browser's temporary folder %s: %w; set TMPDIR to a writable folder", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "owner.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("could not lock the browser's temporary folder %s: %w", dir, err)
	}
	os.Mkdir(filepath.Join(dir, "tmp"), 0o700)
	g := &runGuard{dir: dir, lock: lock}
	if err := g.startReaper(); err != nil && logf != nil {
		logf("browser: no reaper (%v): if Waymark is killed, Chromium's helpers may outlive it for a few seconds", err)
	}
	return g, nil
}

func (g *runGuard) startReaper() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), reaperEnv+"="+g.dir)
	cmd.Stdin = r
	// Its own process group: a Ctrl+C in the terminal must not end the
	// reaper before the program it watches.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return err
	}
	g.done, g.pid = make(chan struct{}), cmd.Process.Pid
	go func() { cmd.Wait(); close(g.done) }()
	g.w = w
	return nil
}

// watch tells the reaper to kill process group pgid if this program dies.
func (g *runGuard) watch(pgid int) { g.send('+', pgid) }

// forget undoes watch once the group has ended normally.
func (g *runGuard) forget(pgid int) { g.send('-', pgid) }

func (g *runGuard) send(op byte, pgid int) {
	if g == nil || pgid <= 1 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		fmt.Fprintf(g.w, "%c%d\n", op, pgid)
	}
}

// tmpDir is the TMPDIR Chromium gets, so its own temporary folders go
// with the run folder.
func (g *runGuard) tmpDir() string { return filepath.Join(g.dir, "tmp") }

// newProfile creates a fresh profile folder in the run folder.
func (g *runGuard) newProfile() (string, error) {
	g.mu.Lock()
	g.n++
	dir := filepath.Join(g.dir, fmt.Sprintf("profile-%d", g.n))
	g.mu.Unlock()
	if err := writeProfile(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("could not create a browser profile folder: %w", err)
	}
	return dir, nil
}

// close removes the run folder and ends the reaper.
func (g *runGuard) close() {
	if g == nil {
		return
	}
	killUsingDir(g.dir)
	removeProfile(g.dir)
	g.mu.Lock()
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
	g.mu.Unlock()
	g.lock.Close()
	// The reaper finds nothing left to do and ends: wait for it, so a
	// closed engine leaves no process behind. One that has not ended in
	// 3 s (starved on a busy machine) is killed: everything it watched is
	// gone already.
	if g.done != nil {
		select {
		case <-g.done:
		case <-time.After(3 * time.Second):
			syscall.Kill(g.pid, syscall.SIGKILL)
			<-g.done
		}
	}
}

// sweepStaleRuns removes the run folders of programs that died without
// cleaning up (their lock is free), after killing what still runs with
// them, and the profile folders of older versions (waymark-profile-* in the
// temporary folder) that no running process uses.
func sweepStaleRuns(root string, logf func(string, ...any)) {
	ents, _ := os.ReadDir(root)
	for _, en := range ents {
		if !en.IsDir() || !strings.HasPrefix(en.Name(), "run-") {
			continue
		}
		dir := filepath.Join(root, en.Name())
		f, err := os.OpenFile(filepath.Join(dir, "owner.lock"), os.O_RDWR, 0)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				if fi, err := en.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
					os.RemoveAll(dir) // never locked: its owner died while creating it
				}
			}
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			killUsingDir(dir)
			if err := os.RemoveAll(dir); err == nil && logf != nil {
				logf("browser: removed %s, left by a Waymark that did not close", dir)
			}
		}
		f.Close()
	}
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), "waymark-profile-*"))
	for _, dir := range old {
		if countUsingDir(dir, false) == 0 {
			os.RemoveAll(dir)
		}
	}
}

// killUsingDir kills the processes whose --user-data-dir lies in dir, until
// a few passes in a row find none: a helper can fork as its parent dies.
func killUsingDir(dir string) {
	if dir == "" {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if countUsingDir(dir, true) == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// countUsingDir counts (and with kill, kills) the processes started with
// --user-data-dir=dir or a folder inside dir.
func countUsingDir(dir string, kill bool) int {
	ps := ProcessesUsingDir(dir)
	if kill {
		for pid := range ps {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return len(ps)
}

// ProcessesUsingDir returns the command line of each process (by pid, this
// one aside) started with --user-data-dir=dir or a folder inside dir, its
// arguments separated by spaces.
func ProcessesUsingDir(dir string) map[int]string {
	flag := []byte("--user-data-dir=" + filepath.Clean(dir))
	ents, _ := os.ReadDir("/proc")
	out := map[int]string{}
	for _, en := range ents {
		pid, err := strconv.Atoi(en.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + en.Name() + "/cmdline")
		if err != nil {
			continue
		}
		// Chromium's helpers rewrite their command line into one string
		// with spaces between the arguments, so look for the flag anywhere.
		for rest := b; ; {
			i := bytes.Index(rest, flag)
			if i < 0 {
				break
			}
			rest = rest[i+len(flag):]
			if len(rest) == 0 || rest[0] == 0 || rest[0] == ' ' || rest[0] == '/' {
				out[pid] = string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
				break
			}
		}
	}
	return out
}
