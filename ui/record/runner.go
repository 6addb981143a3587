package record

import (
	"context"
	"errors"
	"sync"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// Opened is a recording engine ready for its Reset, as the app builds it for
// one episode: Engine records every step (a dataset.Recorder around the
// browser), Frames streams the live picture (nil when the engine has none,
// e.g. an OpenEnv client).
type Opened struct {
	Engine engine.Engine
	Frames <-chan engine.Frame
	// Lost, for an engine that runs elsewhere (an OpenEnv server), is
	// closed when its connection ends; LostErr then says why (nil when the
	// engine was closed on purpose).
	Lost    <-chan struct{}
	LostErr func() error
}

// OpenFunc builds the engine of one episode. It may take seconds (a browser
// starts) and runs on the runner's goroutine.
type OpenFunc func(ctx context.Context) (*Opened, error)

// StartFunc starts the episode on the opened engine in place of a plain
// Reset and returns the page recording goes on from: a resume or a branch
// replays stored steps first. It runs on the runner's goroutine; ctx ends
// when the runner is aborted.
type StartFunc func(ctx context.Context, eng engine.Engine) (action.Observation, error)

// Job is work done on the episode's engine between two steps, in the
// order of the inputs around it (an undo). It returns the page after it
// (nil: unchanged) and whether the episode must stop (it is then reported
// ended as interrupted). It reports its own result to the screen.
type Job func(ctx context.Context, eng engine.Engine) (obs *action.Observation, stop bool)

// Discarder is implemented by recording engines that can mark their episode
// discarded (its steps stay on disk, flagged so exports skip them).
type Discarder interface {
	Discard() error
}

// StepResult is one finished step, as the runner reports it.
type StepResult struct {
	Action  action.Action
	Obs     action.Observation
	Err     error
	Queued  time.Time     // when the input was made
	Started time.Time     // when the engine began the step
	Latency time.Duration // from the start of the step to its result
}

// RunnerEvents are the runner's reports. They are called on the runner's
// goroutine, in order; they must not block for long (hand UI work to the
// bridge). Each may be nil.
type RunnerEvents struct {
	// Opened: the engine is up (frames may be nil).
	Opened func(o *Opened)
	// Reset: the first observation (step 0), or why the episode could not start.
	Reset func(obs action.Observation, err error)
	// Pending: the step running now (nil when idle) and those queued behind it.
	Pending func(running *action.Action, queued []action.Action)
	// Step: a step finished (err is an engine error, e.g. a refused action).
	Step func(r StepResult)
	// Ended: the episode ended (obs.Done) or was stopped; reason is an
	// action.End* constant. Dropped lists inputs that were never sent
	// because the episode had ended.
	Ended func(reason action.EndReason, last action.Observation, dropped []action.Action)
	// Lost: the connection to a remote engine ended during the episode; the
	// episode then ends as interrupted (Ended follows), every step kept.
	Lost func(err error)
	// Closed: the engine is closed; nothing else will be reported.
	Closed func(err error)
}

type queued struct {
	a   action.Action
	job Job // instead of a, when set
	at  time.Time
}

// Runner owns one episode's engine on a single goroutine: the engine is
// opened, reset, stepped and closed there only, so inputs are performed one
// at a time in the order they were pushed, never dropped while the episode
// runs and never reordered. Push and Stop are safe from any goroutine.
type Runner struct {
	open  OpenFunc
	start StartFunc
	ev    RunnerEvents

	mu      sync.Mutex
	q       []queued
	running *action.Action
	job     bool             // a Job is running
	stop    action.EndReason // "" or the end reason asked for
	drain   bool             // run the queue before stopping
	ended   bool
	wake    chan struct{}
	done    chan struct{}
	cancel  context.CancelFunc
}

// StartRunner opens the engine and resets it to the episode's start on a
// new goroutine, then performs pushed actions until the episode ends or Stop.
func StartRunner(open OpenFunc, reset engine.ResetOptions, ev RunnerEvents) *Runner {
	return StartRunnerWith(open, func(ctx context.Context, eng engine.Engine) (action.Observation, error) {
		return eng.Reset(ctx, reset)
	}, ev)
}

// StartRunnerWith is StartRunner with start in place of the plain Reset.
func StartRunnerWith(open OpenFunc, start StartFunc, ev RunnerEvents) *Runner {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{open: open, start: start, ev: ev, wake: make(chan struct{}, 1), done: make(chan struct{}), cancel: cancel}
	go r.loop(ctx)
	return r
}

// Do queues a job behind the inputs pushed before it. It reports false
// when the episode has ended and the job will not run.
func (r *Runner) Do(job Job) bool {
	r.mu.Lock()
	if r.ended || r.stop != "" {
		r.mu.Unlock()
		return false
	}
	r.q = append(r.q, queued{job: job, at: time.Now()})
	r.mu.Unlock()
	r.poke()
	return true
}

// Push queues an action. It reports false when the episode has ended and
// the action will not be sent.
func (r *Runner) Push(a action.Action) bool {
	r.mu.Lock()
	if r.ended || r.stop != "" {
		r.mu.Unlock()
		return false
	}
	r.q = append(r.q, queued{a: a, at: time.Now()})
	r.reportPendingLocked()
	r.mu.Unlock()
	r.poke()
	return true
}

// Busy reports whether a step is running or queued.
func (r *Runner) Busy() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running != nil || r.job || len(r.q) > 0
}

// Stop ends the episode with reason (action.EndDiscarded to discard it,
// action.EndInterrupted when the window closes). With drain, the queued
// inputs are performed first; otherwise they are dropped (and reported).
// It returns at once; Wait blocks until the engine is closed.
func (r *Runner) Stop(reason action.EndReason, drain bool) {
	r.mu.Lock()
	if r.stop == "" {
		r.stop, r.drain = reason, drain
	}
	r.mu.Unlock()
	r.poke()
}

// Abort cancels a step in progress (its context ends); used when closing
// must not wait for a slow page.
func (r *Runner) Abort() { r.cancel() }

// Wait blocks until the engine is closed, or until d passes (then it aborts
// the running step and waits again briefly). It reports whether the runner
// finished.
func (r *Runner) Wait(d time.Duration) bool {
	select {
	case <-r.done:
		return true
	case <-time.After(d):
	}
	r.cancel()
	select {
	case <-r.done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// Done is closed when the runner has closed its engine.
func (r *Runner) Done() <-chan struct{} { return r.done }

func (r *Runner) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Runner) reportPendingLocked() {
	if r.ev.Pending == nil {
		return
	}
	qs := make([]action.Action, 0, len(r.q))
	for _, q := range r.q {
		if q.job == nil {
			qs = append(qs, q.a)
		}
	}
	var run *action.Action
	if r.running != nil {
		a := *r.running
		run = &a
	}
	r.ev.Pending(run, qs)
}

func (r *Runner) loop(ctx context.Context) {
	defer close(r.done)
	defer r.cancel()
	o, err := r.open(ctx)
	if err != nil {
		r.finish(nil, action.EndCrashed, action.Observation{}, err)
		return
	}
	if r.ev.Opened != nil {
		r.ev.Opened(o)
	}
	r.mu.Lock()
	stopped := r.stop != ""
	r.mu.Unlock()
	if stopped { // discarded or closed while the browser started: no episode
		r.mu.Lock()
		r.ended = true
		r.mu.Unlock()
		err := o.Engine.Close()
		if r.ev.Closed != nil {
			r.ev.Closed(err)
		}
		return
	}
	obs, err := r.start(ctx, o.Engine)
	if r.ev.Reset != nil {
		r.ev.Reset(obs, err)
	}
	if err != nil {
		r.finish(o.Engine, action.EndCrashed, obs, err)
		return
	}
	last := obs
	if obs.Done {
		r.finish(o.Engine, endReason(obs), obs, nil)
		return
	}
	for {
		r.mu.Lock()
		for len(r.q) == 0 && r.stop == "" {
			r.mu.Unlock()
			select {
			case <-r.wake:
			case <-o.Lost:
				if r.lost(o) {
					r.finish(o.Engine, action.EndInterrupted, last, nil)
					return
				}
				o.Lost = nil // closed on purpose: nothing more to hear from it
			case <-ctx.Done():
				r.mu.Lock()
				if r.stop == "" {
					r.stop = action.EndInterrupted
				}
				r.q = nil
				r.mu.Unlock()
				r.finish(o.Engine, r.stopReason(), last, nil)
				return
			}
			r.mu.Lock()
		}
		if r.stop != "" && (!r.drain || len(r.q) == 0) {
			r.mu.Unlock()
			r.finish(o.Engine, r.stopReason(), last, nil)
			return
		}
		item := r.q[0]
		r.q = r.q[1:]
		if item.job != nil {
			r.job = true
			r.mu.Unlock()
			obs, stop := item.job(ctx, o.Engine)
			r.mu.Lock()
			r.job = false
			r.mu.Unlock()
			if obs != nil {
				last = *obs
			}
			if stop || ctx.Err() != nil {
				r.mu.Lock()
				if r.stop == "" {
					r.stop = action.EndInterrupted
				}
				r.mu.Unlock()
				r.finish(o.Engine, r.stopReason(), last, nil)
				return
			}
			continue
		}
		a := item.a
		r.running = &a
		r.reportPendingLocked()
		r.mu.Unlock()

		start := time.Now()
		obs, err := o.Engine.Step(ctx, item.a)
		res := StepResult{Action: item.a, Obs: obs, Err: err, Queued: item.at, Started: start, Latency: time.Since(start)}
		r.mu.Lock()
		r.running = nil
		r.reportPendingLocked()
		r.mu.Unlock()
		if r.ev.Step != nil {
			r.ev.Step(res)
		}
		if err == nil {
			last = obs
		}
		if err == nil && obs.Done {
			r.finish(o.Engine, endReason(obs), obs, nil)
			return
		}
		if err != nil && ctx.Err() != nil {
			r.finish(o.Engine, r.stopReason(), last, nil)
			return
		}
		if err != nil && r.lost(o) {
			r.finish(o.Engine, action.EndInterrupted, last, nil)
			return
		}
	}
}

// lost reports whether the remote engine's connection has ended by itself,
// and if so tells the Lost event and drops the queued inputs' hope: nothing
// more can be sent.
func (r *Runner) lost(o *Opened) bool {
	if o.Lost == nil || o.LostErr == nil {
		return false
	}
	select {
	case <-o.Lost:
	default:
		return false
	}
	err := o.LostErr()
	if err == nil {
		return false
	}
	r.mu.Lock()
	if r.stop == "" {
		r.stop = action.EndInterrupted
	}
	r.mu.Unlock()
	if r.ev.Lost != nil {
		r.ev.Lost(err)
	}
	return true
}

func (r *Runner) stopReason() action.EndReason {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == "" {
		return action.EndInterrupted
	}
	return r.stop
}

// finish reports the end, discards if asked, and closes the engine.
func (r *Runner) finish(eng engine.Engine, reason action.EndReason, last action.Observation, openErr error) {
	r.mu.Lock()
	r.ended = true
	var dropped []action.Action
	for _, q := range r.q {
		dropped = append(dropped, q.a)
	}
	r.q = nil
	r.reportPendingLocked()
	r.mu.Unlock()
	var err error
	if eng != nil && reason == action.EndDiscarded {
		if d, ok := eng.(Discarder); ok {
			err = d.Discard()
		}
	}
	if r.ev.Ended != nil && openErr == nil {
		r.ev.Ended(reason, last, dropped)
	}
	if eng != nil {
		err = errors.Join(err, eng.Close())
	}
	if openErr != nil {
		err = openErr
	}
	if r.ev.Closed != nil {
		r.ev.Closed(err)
	}
}

// endReason is why an observation ended its episode.
func endReason(obs action.Observation) action.EndReason {
	if obs.EndReason != "" {
		return obs.EndReason
	}
	if r, ok := obs.Error.Ends(); ok {
		return r
	}
	return action.EndFinished
}
