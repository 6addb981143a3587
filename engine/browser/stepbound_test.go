package browser

import (
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// busyMachine makes page operations as patient as on a machine busy
// enough for the most stretch (chromium.MaxBusyFactor), until the test
// ends.
func busyMachine(t *testing.T) {
	t.Cleanup(chromium.HoldBusyFactor(chromium.MaxBusyFactor))
}

// boundedEngine is an engine whose steps are bounded by 3 s operations and
// a 0.5 s settle (StepBound 8.5 s), on a Chromium of its own.
func boundedEngine(t *testing.T) *Engine {
	pool := chromium.NewPool(chromium.PoolOptions{NoSpare: true})
	t.Cleanup(pool.Close)
	return newEngine(t, engine.DisplayHeadless, func(o *Options) {
		o.Settings.OpTimeout = 3 * time.Second
		o.Settings.ActionWait = 500 * time.Millisecond
		o.Pool = pool
	})
}

// slack is what a step may take past its bound to return, measured
// outside the engine.
const slack = time.Second

// A page that loops for ever on a click holds its step no longer than the
// step's bound (engine.Settings.StepBound), however busy the machine: the
// click's operation, stretched 4 times on a busy machine, ran 12 s of the
// 8.5 s bound (the 33.5 s with the defaults, past a client's 30 s
// message timeout). The step ends the episode with renderer_timeout.
func TestAHungRendererEndsItsStepWithinTheBound(t *testing.T) {
	ts := newSite(t)
	e := boundedEngine(t)
	busyMachine(t)
	reset(t, e, ts.URL+"/hang")
	a := action.ClickAt(400, 300)
	bound := e.set.StepBound(a)
	if bound != 8500*time.Millisecond {
		t.Fatalf("StepBound of a click: %v, want 3 s + 0.5 s + 3 s + 2 s", bound)
	}
	start := time.Now()
	obs := step(t, e, a)
	took := time.Since(start)
	t.Logf("the hung page's step took %v (bound %v)", took, bound)
	if obs.Error != action.ErrRendererTimeout || !obs.Done || obs.EndReason != action.EndTimeout {
		t.Errorf("a hung page's step: %+v, want renderer_timeout ending the episode", obs)
	}
	if took > bound+slack {
		t.Errorf("the hung page's step took %v, past its bound %v", took, bound)
	}
}

// A Chromium stopped whole (SIGSTOP) for 10 s in a step whose bound is
// 8.5 s ends the step with renderer_timeout within the bound, not with an
// observation once the stall is over: the operation's stretched 12 s on a
// busy machine outlasted the stall.
func TestAStoppedBrowserEndsItsStepWithinTheBound(t *testing.T) {
	ts := newSite(t)
	e := boundedEngine(t)
	busyMachine(t)
	reset(t, e, ts.URL+"/page2")
	pid := e.BrowserPID()
	if pid == 0 {
		t.Fatal("no browser pid")
	}
	a := action.ScrollBy(10)
	bound := e.set.StepBound(a)
	stall := 10 * time.Second
	if err := syscall.Kill(-pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := make(chan struct{})
	go func() {
		time.Sleep(stall)
		syscall.Kill(-pid, syscall.SIGCONT)
		close(resumed)
	}()
	t.Cleanup(func() { <-resumed })
	start := time.Now()
	obs := step(t, e, a)
	took := time.Since(start)
	t.Logf("the step on a stopped Chromium took %v (bound %v, stall %v)", took, bound, stall)
	if obs.Error != action.ErrRendererTimeout || !obs.Done || obs.EndReason != action.EndTimeout {
		t.Errorf("a step on a stopped Chromium: error %q done %v end %q, want renderer_timeout ending the episode", obs.Error, obs.Done, obs.EndReason)
	}
	if took > bound+slack {
		t.Errorf("the step on a stopped Chromium took %v, past its bound %v", took, bound)
	}
	<-resumed
	// Once it runs again, the next episode works.
	if obs := reset(t, e, ts.URL+"/page2"); obs.Error != "" || obs.Title != "page 2" {
		t.Errorf("reset after the stall: %+v", obs)
	}
}
