package browser

import (
	"context"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// A compositor starved of CPU draws the page's frames late, and what the
// page does on its next frame (apply a scroll, run an IntersectionObserver
// callback: the corpus's lazy-load page fetches its items when the scroll
// brings its sentinel into view) happens only then. The step waits for a
// frame drawn after the action however late it comes (up to frameWait): a
// loaded make test observed the lazy-load page 343 ms after its scroll,
// before the callback ran, as the wait for that frame gave up after
// 100 ms. Here Chromium's GPU process, which draws the frames, is stopped
// (SIGSTOP) for 400 ms as the step's settling begins.
func TestSettleWaitsForALateFrame(t *testing.T) {
	ts := corpusServer(t)
	e := corpusEngine(t, engine.DisplayHeadless)
	ctx := context.Background()
	var armed atomic.Bool
	var gpu []int
	resumed := make(chan struct{}, 1)
	settleTrace = func(format string, args ...any) {
		if !strings.HasPrefix(format, "settle begins") || !armed.CompareAndSwap(true, false) {
			return
		}
		for _, pid := range gpu {
			syscall.Kill(pid, syscall.SIGSTOP)
		}
		go func() {
			time.Sleep(400 * time.Millisecond)
			for _, pid := range gpu {
				syscall.Kill(pid, syscall.SIGCONT)
			}
			resumed <- struct{}{}
		}()
	}
	defer func() { settleTrace = nil }()
	for i := range 5 {
		obs, err := e.Reset(ctx, engine.ResetOptions{StartURL: ts.URL + "/stale/lazy-load.html"})
		if err != nil || obs.Error != "" {
			t.Fatalf("reset: %v %q", err, obs.Error)
		}
		gpu = gpu[:0]
		for pid, cmdline := range chromium.ProcessesUsingDir(e.Profile()) {
			if strings.Contains(cmdline, "--type=gpu-process") {
				gpu = append(gpu, pid)
			}
		}
		if len(gpu) == 0 {
			t.Fatalf("no GPU process among the processes of Chromium's profile %s", e.Profile())
		}
		armed.Store(true)
		obs, err = e.Step(ctx, action.ScrollBy(600))
		if armed.Load() {
			t.Fatal("the step's settling did not begin")
		}
		<-resumed
		if err != nil || obs.Error != "" {
			t.Fatalf("scroll: %v %q", err, obs.Error)
		}
		if !strings.HasPrefix(e.lastState, "lazy") {
			t.Errorf("run %d: settled %d ms after the scroll (by %s), state %q: the items the scroll loads were not in yet",
				i+1, obs.Timings.SettleMS, obs.Timings.SettledBy, e.lastState)
		}
	}
}
