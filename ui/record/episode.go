package record

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"waymark/dataset"
	"waymark/engine"
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
// runner's reports are handed to the Tab on the Fyne goroutine, and only
// while this is still the Tab's episode (a late report from the runner of
// an episode restarted since changes nothing).
//
// An action's way: LiveView → Mapper → emit → Runner.Push → the engine (a
// dataset.Recorder, which stores the step) → stepDone → Tab.stepRecorded →
// the timeline.
type episode struct {
	r        *Tab
	task     dataset.Task
	settings ui.Settings
	runner   *Runner // set by start before any input can reach emit
	// how is "" for a new episode, else how it continues a stored one
	// (continueResume, continueBranch): its start replays stored steps.
	how string
}

// mapperEvents wires the episode's input mapper to it.
func (e *episode) mapperEvents() MapperEvents {
	return MapperEvents{Emit: e.emit, Pending: e.unsent, Refused: e.refused}
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

// current reports whether e is still the Tab's episode (Fyne goroutine).
func (e *episode) current() bool { return e.runner == e.r.runner }

// onUI runs fn on the Fyne goroutine if e is still the Tab's episode then.
func (e *episode) onUI(fn func()) {
	e.r.ctx.UI().Do(func() {
		if e.current() {
			fn()
		}
	})
}

// open builds the episode's engine (runner goroutine).
func (e *episode) open(ctx context.Context) (*Opened, error) {
	return e.r.opts.Open(ctx, e.task, e.settings)
}

// emit queues an action the person made (mapper). One made after the end
// is not sent, and the status bar says so.
func (e *episode) emit(a action.Action) {
	if rr := e.runner; rr != nil && !rr.Push(a) {
		e.r.ctx.UI().Do(func() { e.r.status.setError("Not sent: the episode has ended (" + a.String() + ").") })
	}
}

// unsent shows the text typed and the scroll gathered but not sent yet
// (mapper).
func (e *episode) unsent(text string, dy int) {
	r := e.r
	if r.opts.Debugf != nil && text != "" {
		// The length only: the text may be a password.
		r.opts.Debugf("typing %d characters not yet sent", len([]rune(text)))
	}
	r.ctx.UI().Do(func() { r.typing, r.scrollDY = text, dy; r.showPending() })
}

// refused explains input the action set cannot express (mapper).
func (e *episode) refused(msg string) {
	e.r.ctx.UI().Do(func() { e.r.status.setError(msg) })
}

// opened: the engine is up (runner).
func (e *episode) opened(o *Opened) { e.onUI(func() { e.r.engineOpened(e, o) }) }

// reset: the start page is step 0, or the episode could not start (runner).
func (e *episode) reset(obs action.Observation, err error) {
	if e.how != "" {
		e.onUI(func() { e.r.continuedPage(obs, err) })
		return
	}
	e.onUI(func() { e.r.startPage(obs, err) })
}

// pending: the step running now and those queued behind it (runner).
func (e *episode) pending(running *action.Action, queued []action.Action) {
	e.onUI(func() { e.r.queueChanged(running, queued) })
}

// stepDone: a step was performed and stored, or the engine refused it
// (runner).
func (e *episode) stepDone(res StepResult) { e.onUI(func() { e.r.stepRecorded(res) }) }

// ended: the episode ended or was stopped (runner).
func (e *episode) ended(reason action.EndReason, last action.Observation, dropped []action.Action) {
	e.onUI(func() { e.r.episodeEnded(reason, last, dropped) })
}

// lost: the connection to the OpenEnv server ended mid-episode (runner).
func (e *episode) lost(err error) { e.onUI(func() { e.r.connectionLost(e.task, err) }) }

// closed: the engine is closed; the runner reports nothing more.
func (e *episode) closed(err error) { e.onUI(func() { e.r.runnerClosed(err) }) }

// startChosen starts the task chosen in the queue (the Start button).
func (r *Tab) startChosen() {
	if r.task == nil {
		r.status.setError("Choose a task first.")
		return
	}
	r.start(*r.task)
}

// StartTask starts recording t (the Tasks tab and --start-task use it).
func (r *Tab) StartTask(t dataset.Task) {
	if r.state == stRecording || r.state == stStarting {
		r.status.setError("An episode is running: finish, discard or restart it first.")
		return
	}
	r.task = &t
	r.catSel.SetSelectedIndex(0)
	r.refreshQueue()
	r.showTask(t)
	r.start(t)
}

// start records a new episode of t.
func (r *Tab) start(t dataset.Task) {
	if r.opts.Open == nil {
		r.status.setError("Recording is not available in this build.")
		return
	}
	if r.state == stRecording || r.state == stStarting {
		return
	}
	s := r.opts.Settings()
	if strings.TrimSpace(s.Annotator) == "" && r.ctx.Window != nil {
		ui.AskAnnotator(r.ctx.Window, func(name string) {
			s.Annotator = name
			if r.ctx.App != nil {
				s.Save(r.ctx.App.Preferences())
			}
			r.start(t)
		})
		return
	}
	r.begin(t, s, "", nil)
}

// begin starts the runner of an episode of t with settings s: a new one
// (how "", start nil), or one that continues a stored episode (how
// continueResume or continueBranch) with start replaying its steps first.
func (r *Tab) begin(t dataset.Task, s ui.Settings, how string, start func(e *episode) StartFunc) {
	if r.endDialog != nil {
		r.endDialog.Hide()
		r.endDialog = nil
	}
	r.task = &t
	r.state = stStarting
	r.set = s.ActionSet
	r.maxSteps = s.MaxSteps
	r.episodeID = ""
	r.frameless = false
	r.rows = nil
	r.queued, r.running, r.typing, r.scrollDY = nil, nil, "", 0
	r.continued, r.replaying = how, ""
	r.timeline.UnselectAll()
	r.timeline.Refresh()
	r.view.ShowLive()
	r.view.SetHint("Starting the browser…", true)
	r.lastURL = "Starting the browser…" // not the last episode's page
	r.status.setError("")
	r.status.setLatency("")
	e := &episode{r: r, task: t, settings: s, how: how}
	r.cur = e
	r.mapper = NewMapper(s.ActionSet, e.mapperEvents())
	if start == nil {
		e.runner = StartRunner(e.open, engine.ResetOptions{StartURL: t.StartURL, Check: t.Check, ReferenceTime: t.ReferenceTime, Timezone: t.Timezone, Locale: t.Locale}, e.runnerEvents())
		r.view.Sink = r.mapper
		r.setTitle("Recording: " + t.Goal)
	} else {
		// Input waits until the stored steps are replayed: it would change
		// the page they bring back.
		r.replaying = "Replaying the stored steps"
		r.view.Sink = idleSink{r}
		e.runner = StartRunnerWith(e.open, start(e), e.runnerEvents())
		r.setTitle(continueTitle(how) + t.Goal)
	}
	r.runner = e.runner
	r.sync()
	if r.ctx.Window != nil {
		r.ctx.Window.Canvas().Focus(r.view)
	}
}

// engineOpened shows where the episode runs and starts the frame pump.
func (r *Tab) engineOpened(e *episode, o *Opened) {
	r.eng = o.Engine // its EpisodeID is known after Reset
	r.status.setEngine(engineText(o.Engine.Info()))
	if r.state == stStarting && e.how == "" {
		r.lastURL = "Opening " + e.task.StartURL + "…"
		r.view.SetHint("Opening the page…", true)
		r.sync()
	}
	if o.Frames == nil {
		r.frameless = true
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.pumpStop = cancel
	r.pump = NewFramePump(r.ctx.UI(), func(img *image.RGBA) {
		if e.current() {
			r.view.SetFrame(img)
		}
	})
	go r.pump.Run(ctx, o.Frames)
	if r.opts.Debugf != nil {
		go r.logFPS(ctx, r.pump)
	}
}

// logFPS writes the frames shown and decoded each second to the debug log
// until ctx ends.
func (r *Tab) logFPS(ctx context.Context, p *FramePump) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var lastD, lastS uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d, s := p.Counts()
			if s != lastS {
				r.opts.Debugf("frames/s shown=%d decoded=%d", s-lastS, d-lastD)
			}
			lastD, lastS = d, s
		}
	}
}

// startPage makes the start page step 0: the episode records from now.
func (r *Tab) startPage(obs action.Observation, err error) {
	if err != nil {
		r.status.setError("The episode could not start: " + err.Error())
		return
	}
	r.state = stRecording
	if e, ok := r.eng.(interface{ EpisodeID() string }); ok {
		r.episodeID = e.EpisodeID()
	}
	r.view.SetHint("", false)
	if r.opts.Debugf != nil {
		if app := fyne.CurrentApp(); app != nil {
			pos := app.Driver().AbsolutePositionForObject(r.view)
			scale := float32(1)
			if c := app.Driver().CanvasForObject(r.view); c != nil {
				scale = c.Scale()
			}
			r.opts.Debugf("liveview at %g,%g size %gx%g scale %g episode %s", pos.X, pos.Y, r.view.Size().Width, r.view.Size().Height, scale, r.episodeID)
		}
	}
	r.addRow(stepRow{idx: 0, text: "start", url: obs.URL, at: time.Now(), err: ui.ObservationError(obs.Error)}, obs)
	r.lastURL = obs.URL
	r.status.setError(ui.ObservationError(obs.Error))
	r.sync()
}

// stepRecorded adds a performed step to the timeline, or says why the
// engine refused it.
func (r *Tab) stepRecorded(res StepResult) {
	a := res.Action
	row := stepRow{idx: len(r.rows), act: &a, text: a.String(), url: res.Obs.URL, at: time.Now(), latency: res.Latency}
	if res.Err != nil {
		// Not performed: the timeline shows only recorded steps.
		r.status.setError(ui.StepError(res.Err))
		return
	}
	if res.Obs.Step > 0 {
		row.idx = res.Obs.Step
	}
	row.err = ui.ObservationError(res.Obs.Error)
	r.addRow(row, res.Obs)
	if a.Op == action.Click && a.X != nil && a.Y != nil {
		if r.opts.Debugf != nil {
			d := time.Since(res.Queued)
			r.opts.Debugf("click→timeline %d ms (step %d: queued %d ms, engine %d ms, to the screen %d ms)", d.Milliseconds(), row.idx,
				res.Started.Sub(res.Queued).Milliseconds(), res.Latency.Milliseconds(), time.Since(res.Started.Add(res.Latency)).Milliseconds())
		}
	}
	r.lastURL = res.Obs.URL
	r.status.setLatency(fmt.Sprintf("%d ms", res.Latency.Milliseconds()))
	r.status.setError(row.err)
	r.sync()
}

// episodeEnded shows how the episode ended (the end dialog, unless it
// was discarded or the window is closing).
func (r *Tab) episodeEnded(reason action.EndReason, last action.Observation, dropped []action.Action) {
	r.state = stEnded
	r.view.Sink = idleSink{r}
	r.setTitle("")
	r.queued, r.running, r.typing, r.scrollDY = nil, nil, "", 0
	r.showPending()
	r.sync()
	if r.opts.Debugf != nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		r.opts.Debugf("episode %s ended reason=%s steps=%d heap_inuse_mb=%.1f", r.episodeID, reason, max(0, len(r.rows)-1), float64(ms.HeapInuse)/(1<<20))
	}
	if reason == action.EndInterrupted {
		return // the window is closing
	}
	msg := ui.EndReason(reason)
	if len(dropped) > 0 {
		msg += fmt.Sprintf("\n%s made after the end %s not sent.", ui.Plural(len(dropped), "input"), map[bool]string{true: "was", false: "were"}[len(dropped) == 1])
	}
	r.status.setError("")
	if reason == action.EndDiscarded {
		r.status.setStatus("Episode discarded.")
		return
	}
	check := ui.CheckResult(last.Reward)
	r.ctx.Notifyf("Waymark: episode ended", strings.TrimSpace(msg+" "+check))
	r.showEnd(msg, last, check)
}

// runnerClosed stops the frame pump and, when the engine failed, says why.
func (r *Tab) runnerClosed(err error) {
	if r.pumpStop != nil {
		r.pumpStop()
		r.pumpStop = nil
	}
	if r.state == stStarting || r.state == stRecording {
		r.state = stEnded
		r.view.Sink = idleSink{r}
		r.setTitle("")
	}
	r.replaying = ""
	r.view.SetPending("")
	if err != nil {
		msg := "The browser could not start or stopped: " + err.Error()
		var ce *continueError
		if errors.As(err, &ce) {
			msg = ce.Error() // a resume or branch that did not happen, in words
		}
		r.status.setError(msg)
		if len(r.rows) == 0 {
			r.view.SetHint("Could not start: see the status bar", true)
			// The status bar cuts long messages: the whole one, in words.
			if w := r.ctx.Window; w != nil {
				ui.ShowError(errors.New(msg), w)
			}
		}
	} else if len(r.rows) == 0 {
		r.view.SetHint("Choose a task and press Start", true) // stopped before the page opened
	}
	r.sync()
}

// act performs a toolbar action (pending text goes first).
func (r *Tab) act(a action.Action) {
	if r.state != stRecording || r.mapper == nil {
		return
	}
	r.mapper.Do(a)
	r.focusView()
}

// Finish ends the episode with answer; information tasks need one.
func (r *Tab) Finish(answer string) error {
	if r.state != stRecording || r.mapper == nil {
		return errors.New("no episode is being recorded")
	}
	cat := ""
	if r.task != nil {
		cat = r.task.Category
	}
	if err := ui.FinishAnswerError(cat, answer); err != nil {
		return err
	}
	r.mapper.Do(action.FinishWith(strings.TrimSpace(answer)))
	return nil
}

// discard drops unsent input and stops the episode as discarded.
func (r *Tab) discard() {
	if r.mapper != nil {
		r.mapper.Drop()
	}
	if r.runner != nil {
		r.runner.Stop(action.EndDiscarded, false)
	}
}
