// Package record is the Record screen: a person demonstrates a task in a
// live browser and every action becomes a step of a stored episode.
//
// An action's way from the person to the store, by name: the LiveView
// (liveview.go, liveinput.go) turns pointer and keys into viewport input
// for the Mapper (input.go), which makes actions of the episode's action
// set and hands each to episode.emit (episode.go); that queues it on the
// episode's Runner (runner.go), which performs it on the engine — a
// dataset.Recorder, which stores the step — and reports the result to
// episode.stepDone, which adds the step to the timeline (timeline.go).
package record

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// Options are what the Record tab needs from the app.
type Options struct {
	// Open builds the recording engine for one episode of task t (a
	// dataset.Recorder around a browser). It runs off the Fyne goroutine.
	Open func(ctx context.Context, t dataset.Task, s ui.Settings) (*Opened, error)
	// Settings returns the current settings.
	Settings func() ui.Settings
	// ShowSettings opens the Settings dialog (the toolbar's button).
	ShowSettings func()
	// UseLocalBrowser clears the OpenEnv server from the settings, so the
	// next episode runs in the local browser (offered when the server's
	// connection is lost). Nil: not offered.
	UseLocalBrowser func()
	// Debugf, when set, gets timing lines (click→timeline, frames/s).
	Debugf func(format string, args ...any)
}

// Tab is the Record screen: task queue, live view, toolbar, step timeline
// and status bar. Its widgets are grouped by the part of the screen they
// make (taskWidgets, leftColumn, stepList, toolbarWidgets, statusBar), each
// defined beside the code that builds and updates it. All its methods run
// on the Fyne goroutine.
type Tab struct {
	ctx  *ui.Context
	opts Options

	view    *LiveView
	content fyne.CanvasObject

	// The episode being recorded, or the last one; start resets them.
	state     recState
	task      *dataset.Task // the chosen task, or the one recording
	runner    *Runner
	mapper    *Mapper
	eng       engine.Engine
	pumpStop  context.CancelFunc
	pump      *FramePump
	frameless bool // no live frames: each step's screenshot is shown instead
	episodeID string
	set       action.Set
	maxSteps  int
	lastURL   string
	// What is on its way to the page (the line under the live view).
	typing   string
	scrollDY int
	queued   []action.Action
	running  *action.Action

	endDialog dialog.Dialog

	taskWidgets
	leftColumn
	stepList
	toolbarWidgets
	status        statusBar
	continueState // resume, undo and branch (continue.go)
}

var (
	_ ui.Tab             = (*Tab)(nil)
	_ ui.ShortcutHandler = (*Tab)(nil)
	_ ui.Shower          = (*Tab)(nil)
	_ ui.Closer          = (*Tab)(nil)
	_ ui.ShortcutLister  = (*Tab)(nil)
)

// New builds the Record tab. Work from other goroutines reaches it
// through ctx.UI().
func New(ctx *ui.Context, opts Options) *Tab {
	if opts.Settings == nil {
		opts.Settings = ui.DefaultSettings
	}
	r := &Tab{ctx: ctx, opts: opts}
	r.chosen, r.selected = -1, -1
	r.view = NewLiveView(idleSink{r})
	r.view.Schedule = ctx.UI().After
	r.view.OnShortcut = r.TypedShortcut
	r.view.OnTouched = func() {
		if r.view.ShowingStill() {
			r.timeline.UnselectAll()
		}
	}
	r.build()
	r.refreshQueue()
	if r.task == nil && len(r.tasks) > 0 {
		r.queue.Select(0) // the first task not yet demonstrated: Start is one click
	}
	r.sync()
	if ctx.App != nil {
		// Settings saved (a server URL, the action set) show at once in the
		// status bar's "Next episode: …".
		ctx.App.Preferences().AddChangeListener(func() { ctx.UI().Do(r.sync) })
	}
	return r
}

// Title implements Tab.
func (r *Tab) Title() string { return "Record" }

// Content implements Tab.
func (r *Tab) Content() fyne.CanvasObject { return r.content }

// View is the live view (for the window's focus handling and tests).
func (r *Tab) View() *LiveView { return r.view }

// Shown refreshes the queue (tasks may have been added elsewhere).
func (r *Tab) Shown() {
	if r.state != stRecording && r.state != stStarting {
		r.refreshQueue()
	}
	if c := r.ctx.Window; c != nil {
		c.Canvas().Focus(r.view)
	}
}

// build lays the screen out: the task panel over the timeline on the left,
// the toolbar over the live view in the middle, the status bar below.
func (r *Tab) build() {
	left := r.buildLeftColumn(r.buildTaskPanel(), r.buildTimeline())
	toolbar := r.buildToolbar()
	status := r.status.build()
	center := container.NewBorder(container.NewVBox(toolbar, widget.NewSeparator()), nil, nil, nil, newPixelCenterWithHeader(r.view, r.view.Banner(), r.view.FocusRing()...))
	r.content = container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), status), left, nil, center)
}

// Close ends a running episode cleanly when the window closes: typed text
// is sent, queued input performed, the episode saved as interrupted, and
// the browser closed. It waits at most about 20 s.
func (r *Tab) Close() {
	if r.mapper != nil {
		r.mapper.Flush()
	}
	if r.runner != nil && r.replaying != "" && r.state == stStarting {
		// A resume or branch still replaying: stop it at once (a resumed
		// episode stays interrupted as it was, a branch is discarded).
		r.runner.Abort()
	}
	if r.runner != nil {
		r.runner.Stop(action.EndInterrupted, true)
		r.runner.Wait(15 * time.Second)
	}
	if r.pumpStop != nil {
		r.pumpStop()
	}
}

// idleSink refuses input while no episode records.
type idleSink struct{ r *Tab }

func (s idleSink) msg() {
	m := "Not recording: choose a task and press Start. Input is sent to the page only during an episode."
	switch {
	case s.r.replaying != "":
		m = s.r.replaying + ": wait until it ends — input now would change the page it brings back."
	case s.r.state == stStarting:
		m = "The browser is starting; input is accepted once the page shows."
	}
	s.r.status.setError(m)
}
func (s idleSink) Click(int, int)              { s.msg() }
func (s idleSink) Drag(int, int, int, int)     { s.msg() }
func (s idleSink) Rune(rune)                   { s.msg() }
func (s idleSink) Key(fyne.KeyName, bool)      { s.msg() }
func (s idleSink) Wheel(float32)               { s.msg() }
func (s idleSink) Hover(int, int)              {}
func (s idleSink) Shortcut(fyne.Shortcut) bool { s.msg(); return true }
func (s idleSink) Refuse(m string)             { s.r.status.setError(m) }
