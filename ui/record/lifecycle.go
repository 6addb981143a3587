package record

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// lifecycle is the episode's life on the Record screen: start, the steps
// as they come, undo (undo.go), resume and branch (continue.go), and the
// end. It owns where the episode is, its runner, engine and id, and the
// steps on their way to the page. It shows its work only through narrow
// ways into the other parts — the timeline as a stepLog, the status bar as
// messages, the live area's methods (attach, accept, refuse, showShot…) —
// and the Tab's sync, which brings every part up to date with its state.
type lifecycle struct {
	t      *Tab
	steps  stepLog  // the timeline
	status messages // the status bar

	// The episode being recorded, or the last one; begin resets them.
	state     recState
	cur       *episode // the current (or last) episode
	runner    *Runner
	eng       engine.Engine
	episodeID string
	set       action.Set
	maxSteps  int
	lastURL   string
	// The step running now and those queued behind it (the line under the
	// live view).
	running *action.Action
	queued  []action.Action

	// continued is how the current (or last) episode continued a stored
	// one ("" for a new episode); branchOf and branchAt name the branch's
	// parent and step.
	continued string
	branchOf  string
	branchAt  int
	// replaying says what replays now ("" when nothing does): input is
	// refused meanwhile.
	replaying string
	// endReason is how the last episode ended ("" while one runs, or when
	// it never started).
	endReason action.EndReason
}

// stepLog is what the lifecycle asks of the timeline.
type stepLog interface {
	reset()                                  // a new episode: no rows
	open(ep string)                          // the episode's id is known
	add(row stepRow, obs action.Observation) // a step was recorded
	load(ep string)                          // list a stored episode's steps
	markRemoved(idx int)                     // step idx was undone
	len() int                                // rows, the start page included
	kept() int                               // action steps not undone
}

// messages is what the lifecycle asks of the status bar.
type messages interface {
	setError(msg string)
	setStatus(msg string)
	setEngine(text string)
	setLatency(text string)
}

var (
	_ stepLog  = (*timeline)(nil)
	_ messages = (*statusBar)(nil)
)

func (l *lifecycle) init(t *Tab) { l.t, l.steps, l.status = t, &t.steps, &t.status }

// busy reports whether an episode is starting or recording.
func (l *lifecycle) busy() bool { return l.state == stRecording || l.state == stStarting }

// start records a new episode of t.
func (l *lifecycle) start(t dataset.Task) {
	r := l.t
	if r.opts.Open == nil {
		l.status.setError("Recording is not available in this build.")
		return
	}
	if l.busy() {
		return
	}
	s := r.opts.Settings()
	if strings.TrimSpace(s.Annotator) == "" && r.ctx.Window != nil {
		ui.AskAnnotator(r.ctx.Window, func(name string) {
			s.Annotator = name
			if r.ctx.App != nil {
				s.Save(r.ctx.App.Preferences())
			}
			l.start(t)
		})
		return
	}
	l.begin(t, s, "", nil)
}

// begin starts the runner of an episode of t with settings s: a new one
// (how "", start nil), or one that continues a stored episode (how
// continueResume or continueBranch) with start replaying its steps first.
func (l *lifecycle) begin(t dataset.Task, s ui.Settings, how string, start func(e *episode) StartFunc) {
	r := l.t
	if r.endDialog != nil {
		r.endDialog.Hide()
		r.endDialog = nil
	}
	r.panel.task = &t
	l.state = stStarting
	l.set = s.ActionSet
	l.maxSteps = s.MaxSteps
	l.episodeID = ""
	l.queued, l.running = nil, nil
	l.continued, l.replaying = how, ""
	l.endReason = ""
	e := &episode{l: l, task: t, settings: s, how: how}
	r.live.attach(s.ActionSet, e.mapperEvents())
	l.steps.reset()
	r.live.view.ShowLive()
	r.live.view.SetHint("Starting the browser…", true)
	l.lastURL = "Starting the browser…" // not the last episode's page
	l.status.setError("")
	l.status.setLatency("")
	l.cur = e
	if start == nil {
		e.runner = StartRunner(e.open, engine.ResetOptions{StartURL: t.StartURL, Check: t.Check, ReferenceTime: t.ReferenceTime, Timezone: t.Timezone, Locale: t.Locale}, e.runnerEvents())
		r.live.accept()
		r.setTitle("Recording: " + t.Goal)
	} else {
		// Input waits until the stored steps are replayed: it would change
		// the page they bring back.
		l.replaying = "Replaying the stored steps"
		r.live.refuse()
		e.runner = StartRunnerWith(e.open, start(e), e.runnerEvents())
		r.setTitle(continueTitle(how) + t.Goal)
	}
	l.runner = e.runner
	r.sync()
	r.live.focus()
}

// engineOpened shows where the episode runs and starts the frame pump.
func (l *lifecycle) engineOpened(e *episode, o *Opened) {
	r := l.t
	l.eng = o.Engine // its EpisodeID is known after Reset
	l.status.setEngine(engineText(o.Engine.Info()))
	if l.state == stStarting && e.how == "" {
		l.lastURL = "Opening " + e.task.StartURL + "…"
		r.live.view.SetHint("Opening the page…", true)
		r.sync()
	}
	r.live.startFrames(o.Frames, e.current)
}

// openedEpisode takes the episode's id from the engine, where it is known
// once the engine was reset.
func (l *lifecycle) openedEpisode() {
	if e, ok := l.eng.(interface{ EpisodeID() string }); ok {
		l.episodeID = e.EpisodeID()
	}
}

// startPage makes the start page step 0: the episode records from now.
func (l *lifecycle) startPage(obs action.Observation, err error) {
	r := l.t
	if err != nil {
		l.status.setError("The episode could not start: " + err.Error())
		return
	}
	l.state = stRecording
	l.openedEpisode()
	r.live.view.SetHint("", false)
	if d := r.opts.Debugf; d != nil {
		if app := fyne.CurrentApp(); app != nil {
			v := r.live.view
			pos := app.Driver().AbsolutePositionForObject(v)
			scale := float32(1)
			if c := app.Driver().CanvasForObject(v); c != nil {
				scale = c.Scale()
			}
			d("liveview at %g,%g size %gx%g scale %g episode %s", pos.X, pos.Y, v.Size().Width, v.Size().Height, scale, l.episodeID)
		}
	}
	l.steps.open(l.episodeID)
	l.steps.add(stepRow{idx: 0, text: "start", url: obs.URL, at: time.Now(), err: ui.StartPageError(obs.Error)}, obs)
	r.live.showShot(obs.Screenshot, l.cur.current)
	l.lastURL = obs.URL
	l.status.setError(ui.StartPageError(obs.Error))
	r.sync()
}

// queueChanged shows the step running now and those queued behind it.
func (l *lifecycle) queueChanged(running *action.Action, q []action.Action) {
	l.running, l.queued = running, q
	l.t.showPending()
}

// stepRecorded adds a performed step to the timeline, or says why the
// engine refused it.
func (l *lifecycle) stepRecorded(res StepResult) {
	r := l.t
	a := res.Action
	row := stepRow{idx: l.steps.len(), act: &a, text: a.String(), url: res.Obs.URL, at: time.Now(), latency: res.Latency}
	if res.Err != nil {
		// Not performed: the timeline shows only recorded steps.
		l.status.setError(ui.StepError(res.Err))
		return
	}
	if res.Obs.Step > 0 {
		row.idx = res.Obs.Step
	}
	row.err = ui.ObservationError(res.Obs.Error)
	l.steps.add(row, res.Obs)
	r.live.showShot(res.Obs.Screenshot, l.cur.current)
	if a.Op == action.Click && a.X != nil && a.Y != nil {
		if r.opts.Debugf != nil {
			d := time.Since(res.Queued)
			r.opts.Debugf("click→timeline %d ms (step %d: queued %d ms, engine %d ms, to the screen %d ms)", d.Milliseconds(), row.idx,
				res.Started.Sub(res.Queued).Milliseconds(), res.Latency.Milliseconds(), time.Since(res.Started.Add(res.Latency)).Milliseconds())
		}
	}
	if d := r.opts.Debugf; d != nil {
		// What the step was and where it led (the address without its
		// query), and where Go to… is once a step shows it enabled.
		u, _, _ := strings.Cut(res.Obs.URL, "?")
		d("step %d recorded: %s → %s", row.idx, a.Op, u)
		if b := r.tools.gotoBtn; !r.tools.gotoLogged && b.Visible() && !b.Disabled() {
			r.tools.gotoLogged = true
			r.debugAt("goto button", b, "")
		}
	}
	l.lastURL = res.Obs.URL
	l.status.setLatency(fmt.Sprintf("%d ms", res.Latency.Milliseconds()))
	l.status.setError(row.err)
	r.sync()
}

// ended shows how the episode ended (the end dialog, unless it was
// discarded or the window is closing).
func (l *lifecycle) ended(reason action.EndReason, last action.Observation, dropped []action.Action) {
	r := l.t
	l.state = stEnded
	l.endReason = reason
	r.live.refuse()
	r.setTitle("")
	l.queued, l.running = nil, nil
	r.live.clearPending()
	r.showPending()
	r.sync()
	if r.opts.Debugf != nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		r.opts.Debugf("episode %s ended reason=%s steps=%d heap_inuse_mb=%.1f", l.episodeID, reason, max(0, l.steps.len()-1), float64(ms.HeapInuse)/(1<<20))
	}
	if reason == action.EndInterrupted {
		return // the window is closing
	}
	msg := ui.EndReason(reason)
	if r.cuts.expl {
		msg = ui.ExplorationEnded(reason)
	}
	if len(dropped) > 0 {
		msg += fmt.Sprintf("\n%s made after the end %s not sent.", ui.Plural(len(dropped), "input"), map[bool]string{true: "was", false: "were"}[len(dropped) == 1])
	}
	l.status.setError("")
	if reason == action.EndDiscarded {
		l.status.setStatus("Episode discarded.")
		return
	}
	check := ui.CheckResult(last.Reward)
	r.ctx.Notifyf("Waymark: episode ended", strings.TrimSpace(msg+" "+check))
	r.showEnd(msg, last, check)
}

// runnerClosed stops the frame pump and, when the engine failed, says why.
func (l *lifecycle) runnerClosed(err error) {
	r := l.t
	r.live.stopFrames()
	if l.busy() {
		l.state = stEnded
		r.live.refuse()
		r.setTitle("")
	}
	l.replaying = ""
	r.live.view.SetPending("")
	if err != nil {
		msg := "The browser could not start or stopped: " + err.Error()
		var ce *continueError
		if errors.As(err, &ce) {
			msg = ce.Error() // a resume or branch that did not happen, in words
		}
		l.status.setError(msg)
		if l.steps.len() == 0 {
			r.live.view.SetHint("Could not start: see the status bar", true)
			// The status bar cuts long messages: the whole one, in words.
			if w := r.ctx.Window; w != nil {
				ui.ShowError(errors.New(msg), w)
			}
		}
	} else if l.steps.len() == 0 {
		r.live.view.SetHint("Choose a task and press Start", true) // stopped before the page opened
	}
	r.sync()
}

// act performs a toolbar action (pending text goes first).
func (l *lifecycle) act(a action.Action) {
	if l.state != stRecording || !l.t.live.attached() {
		return
	}
	l.t.live.do(a)
	l.t.live.focus()
}

// finish ends the episode with answer; information tasks need one.
func (l *lifecycle) finish(answer string) error {
	if l.state != stRecording || !l.t.live.attached() {
		return errors.New("no episode is being recorded")
	}
	cat := ""
	if l.t.panel.task != nil {
		cat = l.t.panel.task.Category
	}
	if err := ui.FinishAnswerError(cat, answer); err != nil {
		return err
	}
	l.t.live.do(action.FinishWith(strings.TrimSpace(answer)))
	return nil
}

// discard drops unsent input and stops the episode as discarded.
func (l *lifecycle) discard() {
	l.t.live.drop()
	if l.runner != nil {
		l.runner.Stop(action.EndDiscarded, false)
	}
}

// abort stops a resume or branch that still replays (the runner's start
// is cancelled).
func (l *lifecycle) abort() { l.runner.Abort() }

// restart discards the running episode and, once its runner has closed
// the engine, starts a new one of t.
func (l *lifecycle) restart(t dataset.Task) {
	closed := l.closed()
	l.discard()
	go func() {
		<-closed
		l.t.ctx.UI().Do(func() { l.start(t) })
	}()
}

// closed is closed once the current runner has closed its engine (at once
// when there is none).
func (l *lifecycle) closed() <-chan struct{} {
	if l.runner == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return l.runner.Done()
}

// stepsPending reports whether steps are running or queued.
func (l *lifecycle) stepsPending() bool { return l.runner != nil && l.runner.Busy() }

// inputOnItsWay reports whether an input of the person's has not become a
// stored step yet. It sends typed text first.
func (l *lifecycle) inputOnItsWay() bool {
	if l.state != stRecording || l.runner == nil {
		return false
	}
	l.t.live.flush()
	return l.runner.Busy()
}

// close ends a running episode as interrupted (the window closes): typed
// text is sent, queued input performed and the browser closed; it waits at
// most about 20 s.
func (l *lifecycle) close() {
	l.t.live.flush()
	if l.runner != nil && l.replaying != "" && l.state == stStarting {
		// A resume or branch still replaying: stop it at once (a resumed
		// episode stays interrupted as it was, a branch is discarded).
		l.runner.Abort()
	}
	if l.runner != nil {
		l.runner.Stop(action.EndInterrupted, true)
		l.runner.Wait(15 * time.Second)
	}
	l.t.live.stopFrames()
}
