// Package chromium is a Chromium this process starts and drives over CDP:
// finding the binary and reading its version (launch.go), starting it with
// a fresh profile, on an Xvfb of its own or headless, and stopping it
// (process.go), the reaper that cleans up after a program killed outright
// (reaper.go), the host's load as the patience of starts and page
// operations (hostload.go), whether a connection to a browser was lost,
// and the local_process provider (provider.go); and the supply of local
// browsers to engines: the Pool that keeps these Chromiums warm and hands
// them out (pool.go, warm.go), the browser contexts made ahead for the next
// episode (spare.go), and each context's host proxy for its host rules
// (hostproxy.go, hostrules.go). It does not import engine/browser, the
// page engine that uses them.
package chromium

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// StartOptions say which Chromium to start.
type StartOptions struct {
	// Display is engine.DisplayXvfb (on an Xvfb of its own) or
	// engine.DisplayHeadless.
	Display string
	// Path is the Chromium binary (Find gives it).
	Path string
	// Xvfb is the Xvfb binary (Xvfb display only).
	Xvfb string
	// Logf, when set, gets diagnostics (a reaper that could not start).
	Logf func(format string, args ...any)
}

// Process is one running Chromium (and its Xvfb) with a fresh profile in
// a run folder of its own, under the reaper.
type Process struct {
	// Ctx is the chromedp context of the connection to the browser.
	Ctx context.Context

	opts        StartOptions
	x           *xvfb
	run         *runGuard
	profile     string
	allocCancel context.CancelFunc
	cancel      context.CancelFunc
	proc        *os.Process
}

// Start launches Xvfb (when needed) and Chromium with a fresh profile,
// waiting for Chromium as long as the host's load allows. What a failed
// start had started is stopped again.
func Start(o StartOptions) (*Process, error) {
	p := &Process{opts: o}
	if err := p.launch(); err != nil {
		p.Stop() // a profile left behind is swept with its run folder
		return nil, err
	}
	return p, nil
}

func (p *Process) launch() error {
	g, err := newRunGuard(p.opts.Logf)
	if err != nil {
		return err
	}
	p.run = g
	display := engine.DisplayHeadless
	if p.opts.Display == engine.DisplayXvfb {
		x, err := startXvfb(p.opts.Xvfb)
		if err != nil {
			return err
		}
		p.x = x
		g.watch(x.cmd.Process.Pid)
		display = x.display
	}
	profile, err := g.newProfile()
	if err != nil {
		return err
	}
	p.profile = profile
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(),
		allocatorOptions(p.opts.Path, profile, g.tmpDir(), display, NeedsNoSandbox())...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	p.allocCancel, p.Ctx, p.cancel = allocCancel, bctx, bcancel
	start, cancelStart, patience := newPatientStart(context.Background(), chromiumStartBase, readHostLoad)
	defer cancelStart()
	stop := context.AfterFunc(start, bcancel)
	err = chromedp.Do(bctx)
	if !stop() || err != nil {
		if start.Err() != nil {
			return fmt.Errorf("Chromium (%s) did not start %s; close other programs or start fewer browsers at once (serve --max-sessions)",
				p.opts.Path, patience.timedOut())
		}
		return fmt.Errorf("could not start Chromium (%s): %w", p.opts.Path, err)
	}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil {
		p.proc = c.Browser.Process()
	}
	if p.proc != nil {
		g.watch(p.proc.Pid) // its process group (allocatorOptions)
	}
	return nil
}

// Stop ends Chromium, its helpers, the profile and Xvfb. Its error is a
// profile folder that could not be removed.
func (p *Process) Stop() error {
	if p.cancel != nil {
		p.cancel()
	}
	if p.allocCancel != nil {
		p.allocCancel() // waits for the process to exit
	}
	if p.proc != nil {
		p.proc.Kill()
		syscall.Kill(-p.proc.Pid, syscall.SIGKILL) // the helpers, which outlive it for a moment
		p.run.forget(p.proc.Pid)
	}
	killUsingDir(p.profile)
	var err error
	if p.profile != "" {
		if err = removeProfile(p.profile); err != nil {
			err = fmt.Errorf("could not remove profile %s: %v", p.profile, err)
		}
	}
	if p.x != nil && p.x.cmd.Process != nil {
		p.x.stop()
		p.run.forget(p.x.cmd.Process.Pid)
	}
	p.run.close()
	return err
}

// Alive reports whether Chromium still runs and its connection holds.
func (p *Process) Alive() bool {
	if p.Ctx.Err() != nil || p.proc == nil {
		return false
	}
	if c := chromedp.FromContext(p.Ctx); c != nil && c.Browser != nil && Lost(c.Browser) {
		return false
	}
	return processAlive(p.proc.Pid)
}

// PID is the id of Chromium's main process (0 when unknown).
func (p *Process) PID() int {
	if p.proc == nil {
		return 0
	}
	return p.proc.Pid
}

// XvfbPID is the id of Chromium's Xvfb (0 when headless).
func (p *Process) XvfbPID() int {
	if p.x == nil || p.x.cmd.Process == nil {
		return 0
	}
	return p.x.cmd.Process.Pid
}

// Profile is Chromium's temporary profile folder.
func (p *Process) Profile() string { return p.profile }

// MemoryMiB is the proportional set size of Chromium and its helpers, in
// MiB (0 when /proc cannot tell).
func (p *Process) MemoryMiB() int64 {
	if p.proc == nil {
		return 0
	}
	return processTreePSS(p.proc.Pid) >> 20
}

// Lost reports whether the connection br ended.
func Lost(br *chromedp.Browser) bool {
	select {
	case <-br.LostConnection:
		return true
	default:
		return false
	}
}

// processAlive reports whether pid runs and is not a zombie.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	if bs, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		if i := bytes.LastIndexByte(bs, ')'); i > 0 && i+2 < len(bs) && bs[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// processTreePSS sums the proportional set size of pid and its
// descendants, in bytes (0 when /proc cannot tell).
func processTreePSS(pid int) int64 {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		n, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		bs, err := os.ReadFile("/proc/" + en.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(bs, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(bs[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], n)
		}
	}
	var total int64
	stack := []int{pid}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += pssOf(n)
		stack = append(stack, children[n]...)
	}
	return total
}

// pssOf reads one process's proportional set size in bytes.
func pssOf(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
