// Package record is the Record screen: a person demonstrates a task in a
// live browser and every action becomes a step of a stored episode.
//
// An action's way from the person to the store, by name: the ui kit's
// LiveView (ui/liveview.go, ui/liveinput.go) turns pointer and keys into
// viewport input for the Mapper (ui/mapper.go), which makes actions of
// the episode's action set and hands each to episode.emit (episode.go);
// that queues it on the episode's Runner (runner.go), which performs it
// on the engine — a dataset.Recorder, which stores the step — and reports
// the result to episode.stepDone, whence the lifecycle (lifecycle.go)
// adds the step to the timeline (timeline.go).
package record

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
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

// Tab is the Record screen. Each part of it is an owner with its own state
// and a few methods the others use:
//
//   - life, the episode's lifecycle (lifecycle.go, episode.go, undo.go,
//     continue.go): start, the steps as they come, undo, resume, branch
//     and the end; where the episode is, its runner, engine and id, what
//     is queued. It sees the timeline and the status bar through small
//     interfaces (stepLog, messages).
//   - live, the live view with the episode's input mapper and the frame
//     pump (live.go).
//   - steps, the timeline of the episode's steps (timeline.go).
//   - status, the status bar (statusbar.go).
//   - panel, the task queue and the chosen task, with the left column's
//     split (taskpanel.go).
//   - tools, the toolbar (toolbar.go), and notes, the note per step
//     (note.go).
//
// The Tab wires them: it lays the screen out, brings every part up to date
// with the episode's state (sync) and holds the dialogs that span parts
// (dialogs.go, resumenotice.go). All its methods run on the Fyne
// goroutine.
type Tab struct {
	ctx  *ui.Context
	opts Options

	life   lifecycle
	live   liveArea
	steps  timeline
	status statusBar
	panel  taskPanel
	tools  toolbar
	notes  noteBook
	cuts   cutPanel // tasks cut from an exploration (cut.go)

	content fyne.CanvasObject
	// lifetime is the screen's: its store calls and the goroutines it
	// starts run under it, and it ends when Close has ended the episode.
	lifetime    context.Context
	endLifetime context.CancelFunc

	endDialog     dialog.Dialog // the end of the last episode, while it shows
	resumeDialog  dialog.Dialog // the resume notice, while it shows
	resumeOffered bool
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
	r.lifetime, r.endLifetime = context.WithCancel(context.Background())
	r.life.init(r)
	r.live.init(r)
	r.steps.init(r)
	r.panel.init(r)
	r.tools.t = r
	r.notes.t = r
	r.cuts.init(r)
	r.build()
	r.panel.refresh()
	if r.panel.task == nil && len(r.panel.tasks) > 0 {
		r.panel.queue.Select(0) // the first task not yet demonstrated: Start is one click
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
func (r *Tab) View() *ui.LiveView { return r.live.view }

// Shown refreshes the queue (tasks may have been added elsewhere).
func (r *Tab) Shown() {
	if !r.life.busy() {
		r.panel.refresh()
	}
	if c := r.ctx.Window; c != nil {
		c.Canvas().Focus(r.live.view)
	}
}

// build lays the screen out: the task panel over the timeline on the left,
// the toolbar over the live view in the middle, the status bar below.
func (r *Tab) build() {
	left := r.panel.buildColumn(r.panel.build(), r.steps.build())
	toolbar := r.tools.build()
	status := r.status.build()
	v := r.live.view
	center := container.NewBorder(container.NewVBox(toolbar, widget.NewSeparator()), nil, nil, nil, newPixelCenterWithHeader(v, v.Banner(), v.FocusRing()...))
	// No padding between the line and the status bar: a three-line
	// message fits the default window under the tab bar.
	r.content = container.NewBorder(nil, container.New(ui.TightVBox{}, widget.NewSeparator(), status), left, nil, center)
}

// sync brings every part up to date with the episode's state: the buttons
// that can act now, the queue folded or not, the status bar.
func (r *Tab) sync() {
	l := &r.life
	rec, busy := l.state == stRecording, l.busy()
	r.panel.fold(busy)
	// Input made while the browser starts is queued for the page; while
	// stored steps replay it is refused.
	r.live.view.SetRecording(busy && l.replaying == "")
	if !busy && r.opts.Settings != nil {
		// Between episodes: where the next one will run (Settings applies
		// from the next episode).
		r.status.setEngine(plannedEngine(r.opts.Settings()))
	}
	_, noteable := r.notes.target()
	// goto exists only in the extended set; the default set hides it.
	showGoto := l.set.HasOp(action.Goto) || (l.state == stIdle && r.opts.Settings().ActionSet.HasOp(action.Goto))
	r.tools.sync(l.state, toolbarState{hasTask: r.panel.task != nil, noteable: noteable, showGoto: showGoto, canGoto: rec && l.set.HasOp(action.Goto),
		ended: l.endReason, started: r.steps.len() > 0})
	r.panel.syncStart(!busy)
	r.steps.syncHead()
	r.status.showEpisode(l.state, r.steps.kept(), l.maxSteps, l.lastURL)
	r.syncContinue()
}

// syncContinue enables Undo while recording and "Continue from step K" on
// a kept step of the ended episode selected in the timeline.
func (r *Tab) syncContinue() {
	r.tools.syncUndo(r.life.state == stRecording && r.life.replaying == "")
	r.steps.syncBranch(r.life.state == stEnded)
	r.cuts.sync(r.life.state == stEnded)
}

// showPending shows what is on its way to the page under the live view.
func (r *Tab) showPending() { r.live.showPending(r.life.running, r.life.queued) }

// setTitle shows what is being recorded in the window title.
func (r *Tab) setTitle(what string) {
	if r.ctx.Window == nil {
		return
	}
	if rs := []rune(what); len(rs) > 70 {
		what = string(rs[:70]) + "…"
	}
	if what == "" {
		r.ctx.Window.SetTitle("Waymark")
		return
	}
	r.ctx.Window.SetTitle("Waymark · " + what)
}

// Close ends a running episode cleanly when the window closes: typed text
// is sent, queued input performed, the episode saved as interrupted, and
// the browser closed. It waits at most about 20 s.
func (r *Tab) Close() {
	r.life.close()
	r.endLifetime()
}

// StartTask starts recording t (the Tasks tab and --start-task use it).
func (r *Tab) StartTask(t dataset.Task) {
	if r.life.busy() {
		r.status.setError("An episode is running: finish, discard or restart it first.")
		return
	}
	r.panel.pick(t)
	r.life.start(t)
}

// startChosen starts the task chosen in the queue (the Start button).
func (r *Tab) startChosen() {
	if r.panel.task == nil {
		r.status.setError("Choose a task first.")
		return
	}
	r.life.start(*r.panel.task)
}

// Finish ends the episode with answer; information tasks need one.
func (r *Tab) Finish(answer string) error { return r.life.finish(answer) }

// Resume goes on recording interrupted episode id: a fresh browser replays
// its kept steps, each checked, then recording continues into the same
// episode. If a step does not replay as recorded, the episode stays
// interrupted as it was.
func (r *Tab) Resume(id string) { r.life.resume(id) }

// Branch starts a new episode of episode id's task whose steps 1..k are
// id's, replayed, checked and recorded; then the annotator goes on by
// hand. If a step does not replay as recorded, the new episode is
// discarded. The Review player asks for it through ui.Context.Branch.
func (r *Tab) Branch(id string, k int) { r.life.branch(id, k) }

// QueueRowsShown is how many whole queue rows the list has room for.
func (r *Tab) QueueRowsShown() int { return r.panel.rowsShown() }

// QueueFolded reports whether the queue is folded away for a running
// episode.
func (r *Tab) QueueFolded() bool { return r.panel.recLayout }
