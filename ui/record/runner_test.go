package record

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// gateEngine is an engine whose steps wait for the test to let them through,
// so inputs made while a step runs can be observed queueing.
type gateEngine struct {
	mu      sync.Mutex
	gate    chan struct{}
	done    []string
	steps   int
	closed  bool
	discard bool
	max     int
	check   *action.Check // the reset's check: a finish gets its reward
}

func (e *gateEngine) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	e.mu.Lock()
	e.check = o.Check
	e.mu.Unlock()
	return action.Observation{URL: o.StartURL}, nil
}

func (e *gateEngine) Step(ctx context.Context, a action.Action) (action.Observation, error) {
	select {
	case <-e.gate:
	case <-ctx.Done():
		return action.Observation{}, ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.steps++
	e.done = append(e.done, a.String())
	obs := action.Observation{Step: e.steps, URL: "http://127.0.0.1/x"}
	if a.Op == action.Finish {
		obs.Done, obs.EndReason, obs.Answer = true, action.EndFinished, a.Text
		if e.check != nil && e.check.Kind == action.CheckKindAnswer {
			var r float64
			if e.check.MatchAnswer(a.Text) {
				r = 1
			}
			obs.Reward = &r
		}
	}
	if e.max > 0 && e.steps >= e.max {
		obs.Done, obs.EndReason = true, action.EndStepLimit
	}
	return obs, nil
}

func (e *gateEngine) State() engine.State { return engine.State{} }
func (e *gateEngine) Info() engine.Info   { return engine.Info{Kind: "test"} }
func (e *gateEngine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	return nil
}
func (e *gateEngine) Discard() error { e.mu.Lock(); e.discard = true; e.mu.Unlock(); return nil }

func (e *gateEngine) performed() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.done...)
}

type runnerLog struct {
	mu      sync.Mutex
	pending [][]string
	steps   []string
	ended   action.EndReason
	dropped []action.Action
	reset   bool
}

func (l *runnerLog) events() RunnerEvents {
	return RunnerEvents{
		Pending: func(run *action.Action, q []action.Action) {
			var s []string
			if run != nil {
				s = append(s, "▶"+run.String())
			}
			for _, a := range q {
				s = append(s, a.String())
			}
			l.mu.Lock()
			l.pending = append(l.pending, s)
			l.mu.Unlock()
		},
		Step:  func(r StepResult) { l.mu.Lock(); l.steps = append(l.steps, r.Action.String()); l.mu.Unlock() },
		Reset: func(action.Observation, error) { l.mu.Lock(); l.reset = true; l.mu.Unlock() },
		Ended: func(reason action.EndReason, _ action.Observation, dropped []action.Action) {
			l.mu.Lock()
			l.ended, l.dropped = reason, dropped
			l.mu.Unlock()
		},
	}
}

func (l *runnerLog) lastPending() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) == 0 {
		return nil
	}
	return l.pending[len(l.pending)-1]
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangLimit)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func startGate(t *testing.T, e *gateEngine, l *runnerLog) *Runner {
	open := func(context.Context) (*Opened, error) { return &Opened{Engine: e}, nil }
	r := StartRunner(open, engine.ResetOptions{StartURL: "http://127.0.0.1/"}, l.events())
	t.Cleanup(func() { r.Stop(action.EndInterrupted, false); close(e.gate); r.Wait(time.Second) })
	return r
}

func TestQueueWhileBusyKeepsOrder(t *testing.T) {
	e := &gateEngine{gate: make(chan struct{})}
	l := &runnerLog{}
	r := startGate(t, e, l)
	r.Push(action.ClickAt(10, 10))
	eventually(t, "the click to start", func() bool { return len(l.lastPending()) == 1 && l.lastPending()[0] == "▶click 10,10" })
	// While the click's step blocks, more input arrives.
	r.Push(action.TypeText("red shoes"))
	r.Push(action.PressKey("ENTER"))
	r.Push(action.ScrollBy(300))
	equal(t, l.lastPending(), []string{"▶click 10,10", `type "red shoes"`, "key ENTER", "scroll 300"})
	if !r.Busy() {
		t.Fatal("runner not busy with four inputs")
	}
	for range 4 {
		e.gate <- struct{}{}
	}
	eventually(t, "four steps", func() bool { return len(e.performed()) == 4 })
	want := []string{"click 10,10", `type "red shoes"`, "key ENTER", "scroll 300"}
	equal(t, e.performed(), want)
	eventually(t, "reports", func() bool { l.mu.Lock(); defer l.mu.Unlock(); return len(l.steps) == 4 })
	equal(t, l.steps, want)
	eventually(t, "an empty queue", func() bool { return len(l.lastPending()) == 0 })
}

func TestRunnerFinishAndDiscard(t *testing.T) {
	e := &gateEngine{gate: make(chan struct{})}
	l := &runnerLog{}
	r := startGate(t, e, l)
	r.Push(action.FinishWith("42"))
	r.Push(action.ClickAt(1, 1)) // after finish: never sent, reported as dropped
	e.gate <- struct{}{}
	select {
	case <-r.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("runner did not end after finish")
	}
	l.mu.Lock()
	if l.ended != action.EndFinished || len(l.dropped) != 1 {
		t.Fatalf("ended %q dropped %v", l.ended, l.dropped)
	}
	l.mu.Unlock()
	if r.Push(action.ClickAt(2, 2)) {
		t.Fatal("push after the end accepted")
	}
	if !e.closed {
		t.Fatal("engine not closed")
	}

	e2 := &gateEngine{gate: make(chan struct{})}
	l2 := &runnerLog{}
	r2 := startGate(t, e2, l2)
	eventually(t, "the reset", func() bool { l2.mu.Lock(); defer l2.mu.Unlock(); return l2.reset })
	r2.Stop(action.EndDiscarded, false)
	if !r2.Wait(3 * time.Second) {
		t.Fatal("discard did not end the runner")
	}
	if !e2.discard || !e2.closed || l2.ended != action.EndDiscarded {
		t.Fatalf("discard=%v closed=%v ended=%q", e2.discard, e2.closed, l2.ended)
	}
}

func TestRunnerOpenFailure(t *testing.T) {
	var got error
	var mu sync.Mutex
	r := StartRunner(func(context.Context) (*Opened, error) { return nil, errors.New("no chromium") },
		engine.ResetOptions{}, RunnerEvents{Closed: func(err error) { mu.Lock(); got = err; mu.Unlock() }})
	if !r.Wait(3 * time.Second) {
		t.Fatal("runner did not end")
	}
	mu.Lock()
	defer mu.Unlock()
	if got == nil || got.Error() != "no chromium" {
		t.Fatalf("closed with %v", got)
	}
}

func TestRunnerStoppedWhileOpeningMakesNoEpisode(t *testing.T) {
	e := &gateEngine{gate: make(chan struct{})}
	release := make(chan struct{})
	var resets int
	open := func(context.Context) (*Opened, error) {
		<-release
		return &Opened{Engine: countingReset{e, &resets}}, nil
	}
	r := StartRunner(open, engine.ResetOptions{}, RunnerEvents{})
	r.Stop(action.EndDiscarded, false)
	close(release)
	if !r.Wait(3 * time.Second) {
		t.Fatal("runner did not end")
	}
	if resets != 0 || !e.closed {
		t.Fatalf("resets %d, closed %v: a discarded start must not reset", resets, e.closed)
	}
}

type countingReset struct {
	*gateEngine
	n *int
}

func (c countingReset) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	*c.n++
	return c.gateEngine.Reset(ctx, o)
}
