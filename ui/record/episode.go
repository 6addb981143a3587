package record

import (
	"context"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// recState is where the Record tab's episode is.
type recState int

const (
	stIdle      recState = iota // no episode yet
	stStarting                  // the browser starts and opens the start page
	stRecording                 // input becomes steps
	stEnded                     // finished, discarded, interrupted or failed to start
)

// episode is one recording's line from the person's input to the store and
// back to the screen. The Mapper and the Runner report to it on their own
// goroutines through its methods, each named for what happened; the
// runner's reports are handed to the lifecycle on the Fyne goroutine, and
// only while this is still its episode (a late report from the runner of
// an episode restarted since changes nothing).
//
// An action's way: LiveView → Mapper → emit → Runner.Push → the engine (a
// dataset.Recorder, which stores the step) → stepDone →
// lifecycle.stepRecorded → the timeline.
type episode struct {
	l        *lifecycle
	task     dataset.Task
	settings ui.Settings
	runner   *Runner // set by begin before any input can reach emit
	// how is "" for a new episode, else how it continues a stored one
	// (continueResume, continueBranch): its start replays stored steps.
	how string
}

// mapperEvents wires the episode's input mapper to it.
func (e *episode) mapperEvents() ui.MapperEvents {
	return ui.MapperEvents{Emit: e.emit, Pending: e.unsent, Refused: e.refused}
}

// runnerEvents wires the episode's runner to it.
func (e *episode) runnerEvents() RunnerEvents {
	return RunnerEvents{
		Opened:  e.opened,
		Reset:   e.reset,
		Pending: e.pending,
		Step:    e.stepDone,
		Ended:   e.ended,
		Lost:    e.lost,
		Closed:  e.closed,
	}
}

// current reports whether e is still the lifecycle's episode (Fyne
// goroutine).
func (e *episode) current() bool { return e.runner == e.l.runner }

// onUI runs fn on the Fyne goroutine if e is still the current episode
// then.
func (e *episode) onUI(fn func()) {
	e.l.t.ctx.UI().Do(func() {
		if e.current() {
			fn()
		}
	})
}

// open builds the episode's engine (runner goroutine).
func (e *episode) open(ctx context.Context) (*Opened, error) {
	return e.l.t.opts.Open(ctx, e.task, e.settings)
}

// emit queues an action the person made (mapper). One made after the end
// is not sent, and the status bar says so.
func (e *episode) emit(a action.Action) {
	if rr := e.runner; rr != nil && !rr.Push(a) {
		e.l.t.ctx.UI().Do(func() { e.l.status.setError("Not sent: the episode has ended (" + a.String() + ").") })
	}
}

// unsent shows the text typed and the scroll gathered but not sent yet
// (mapper).
func (e *episode) unsent(text string, dy int) {
	r := e.l.t
	if r.opts.Debugf != nil && text != "" {
		// The length only: the text may be a password.
		r.opts.Debugf("typing %d characters not yet sent", len([]rune(text)))
	}
	r.ctx.UI().Do(func() { r.live.setUnsent(text, dy); r.showPending() })
}

// refused explains input the action set cannot express (mapper).
func (e *episode) refused(msg string) {
	e.l.t.ctx.UI().Do(func() { e.l.status.setError(msg) })
}

// opened: the engine is up (runner).
func (e *episode) opened(o *Opened) { e.onUI(func() { e.l.engineOpened(e, o) }) }

// reset: the start page is step 0, or the episode could not start (runner).
func (e *episode) reset(obs action.Observation, err error) {
	if e.how != "" {
		e.onUI(func() { e.l.continuedPage(obs, err) })
		return
	}
	e.onUI(func() { e.l.startPage(obs, err) })
}

// pending: the step running now and those queued behind it (runner).
func (e *episode) pending(running *action.Action, queued []action.Action) {
	e.onUI(func() { e.l.queueChanged(running, queued) })
}

// stepDone: a step was performed and stored, or the engine refused it
// (runner).
func (e *episode) stepDone(res StepResult) { e.onUI(func() { e.l.stepRecorded(res) }) }

// ended: the episode ended or was stopped (runner).
func (e *episode) ended(reason action.EndReason, last action.Observation, dropped []action.Action) {
	e.onUI(func() { e.l.ended(reason, last, dropped) })
}

// lost: the connection to the OpenEnv server ended mid-episode (runner).
func (e *episode) lost(err error) { e.onUI(func() { e.l.t.connectionLost(e.task, err) }) }

// closed: the engine is closed; the runner reports nothing more.
func (e *episode) closed(err error) { e.onUI(func() { e.l.runnerClosed(err) }) }
