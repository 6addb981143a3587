package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// Three ways to continue a stored episode, on one mechanism (undo.go holds
// the undo, resumenotice.go the notice that offers a resume): a fresh
// browser replays the stored actions (replay.Prefix), each step is checked
// against the stored one, and recording goes on by hand only from a page
// where the stored steps left it.
//
//   - Resume: an interrupted episode of this annotator goes on (the same
//     episode, after its last stored step). The notice at start offers it.
//   - Undo (Ctrl+Shift+Z): the last step is marked removed and the page is
//     brought back by replaying the steps kept.
//   - Branch ("Continue from step K"): a new episode of the same task whose
//     first K steps are the stored episode's, replayed and recorded again.
//
// A divergence stops it and says which step and why: a resume leaves the
// episode interrupted as it was, an undo stops the episode (interrupted,
// every step kept), a branch is discarded.

// How an episode continues a stored one (episode.how).
const (
	continueResume = "resume"
	continueBranch = "branch"
)

func continueTitle(how string) string {
	if how == continueResume {
		return "Resuming: "
	}
	return "Continuing: "
}

// continueError is a failed resume or branch, in words.
type continueError struct {
	msg string
	err error
}

func (e *continueError) Error() string { return e.msg }
func (e *continueError) Unwrap() error { return e.err }

// resumeFailed explains a resume that did not happen: nothing was written.
func resumeFailed(err error) error {
	var d *replay.DivergedError
	var msg string
	switch {
	case errors.Is(err, context.Canceled):
		msg = "The resume was stopped before it ended. The episode was left interrupted, as it was."
	case errors.As(err, &d) && d.Refused:
		msg = fmt.Sprintf("The episode cannot be resumed: %v. It was left interrupted, as it was.", err)
	case errors.As(err, &d):
		msg = fmt.Sprintf("The episode could not be resumed: %v.\n\nThe page is not where the stored steps left it, so recording cannot go on from it. "+
			"The episode was left interrupted, as it was, with every stored step.", err)
	default:
		msg = fmt.Sprintf("The episode could not be resumed: %v.\n\nIt was left interrupted, as it was, with every stored step.", err)
	}
	return &continueError{msg: msg, err: err}
}

// branchFailed explains a branch that was not recorded.
func branchFailed(err error, k int) error {
	var d *replay.DivergedError
	var msg string
	switch {
	case errors.Is(err, context.Canceled):
		msg = "Continuing was stopped before the replay ended; the new episode was discarded."
	case errors.As(err, &d) && d.Refused:
		msg = fmt.Sprintf("Cannot continue from step %d: %v.", k, err)
	case errors.As(err, &d):
		msg = fmt.Sprintf("Could not continue from step %d: %v.\n\nA branch is never recorded on steps that did not replay as recorded: the new episode was discarded. "+
			"Try an earlier step, or record the task anew.", k, err)
	default:
		msg = fmt.Sprintf("Could not continue from step %d: %v.\n\nThe new episode, if it was started, was discarded.", k, err)
	}
	return &continueError{msg: msg, err: err}
}

// progress reports a replay's steps to the screen (runner goroutine).
func (e *episode) progress() func(replay.PrefixProgress) {
	return func(p replay.PrefixProgress) {
		if p.Result != nil {
			return
		}
		e.onUI(func() { e.l.replayProgress(p) })
	}
}

// replayProgress shows which stored step replays now.
func (l *lifecycle) replayProgress(p replay.PrefixProgress) {
	l.replaying = fmt.Sprintf("Replaying step %d of %d", p.N, p.Of)
	l.t.live.view.SetPending("⟲ " + l.replaying + "… (" + p.Action + ")")
	l.status.setStatus(l.replaying + "… each is checked against the stored one.")
}

// recorderOf is the recording engine under an opened engine.
func recorderOf(eng engine.Engine) (*dataset.Recorder, error) {
	if rec, ok := dataset.RecorderOf(eng); ok {
		return rec, nil
	}
	return nil, errors.New("this engine does not record into the store, so a stored episode cannot be continued with it")
}

// resumeStart is the start of a resumed episode (runner goroutine).
func (e *episode) resumeStart(id string) StartFunc {
	store, progress := e.l.t.ctx.Store, e.progress()
	return func(ctx context.Context, eng engine.Engine) (action.Observation, error) {
		rec, err := recorderOf(eng)
		if err != nil {
			return action.Observation{}, resumeFailed(err)
		}
		obs, err := rec.Resume(ctx, id, replay.BringBack(store, progress))
		if err != nil {
			return obs, resumeFailed(err)
		}
		return obs, nil
	}
}

// branchStart is the start of a branch of parentID at step k (runner
// goroutine): a new episode whose steps 1..k are the parent's, replayed,
// checked and recorded; discarded if they do not replay as recorded.
func (e *episode) branchStart(parentID string, k int) StartFunc {
	store, progress := e.l.t.ctx.Store, e.progress()
	return func(ctx context.Context, eng engine.Engine) (action.Observation, error) {
		rec, err := recorderOf(eng)
		if err != nil {
			return action.Observation{}, branchFailed(err, k)
		}
		parent, err := replay.Load(ctx, store, parentID)
		if err != nil {
			return action.Observation{}, branchFailed(err, k)
		}
		obs0, err := rec.ResetBranch(ctx, engine.ResetOptions{StartURL: parent.StartURL}, parentID, k)
		if err != nil {
			return obs0, branchFailed(err, k)
		}
		last, _, err := replay.Prefix(ctx, rec, parent, k, replay.PrefixOptions{Start: &obs0}, progress)
		if err != nil {
			return last, branchFailed(errors.Join(err, rec.Discard()), k)
		}
		return last, nil
	}
}

// settingsFor is s with the stored episode's action set and step limit, so
// its actions replay as they were recorded.
func settingsFor(ep dataset.Episode, s ui.Settings) ui.Settings {
	if ep.ActionSet != "" {
		s.ActionSet = ep.ActionSet
	}
	var info engine.Info
	if json.Unmarshal([]byte(ep.EngineJSON), &info) == nil && info.MaxSteps >= 1 && info.MaxSteps <= engine.MaxMaxSteps {
		s.MaxSteps = info.MaxSteps
	}
	return s
}

// refuseContinue says why a resume or branch cannot start, in the status
// bar and, with a window, in a dialog (the status bar cuts long messages).
func (r *Tab) refuseContinue(title, msg string) {
	r.status.setError(msg)
	if w := r.ctx.Window; w != nil {
		l := widget.NewLabel(msg)
		l.Wrapping = fyne.TextWrapWord
		var d *dialog.CustomDialog
		closeBtn := ui.NewDialogButton("Close", nil, func() { d.Hide() })
		d = dialog.NewCustomWithoutButtons(title, l, w)
		d.SetButtons([]fyne.CanvasObject{closeBtn})
		d.Resize(fyne.NewSize(520, 0))
		d.Show()
		ui.WithKeys(w, d, nil, closeBtn)
	}
}

// prepareContinue checks what a resume or branch needs before the browser
// starts: no episode running, a store, an annotator.
func (l *lifecycle) prepareContinue(title string) (ui.Settings, bool) {
	r := l.t
	s := r.opts.Settings()
	switch {
	case l.busy():
		r.refuseContinue(title, "An episode is being recorded: finish or discard it first, then continue the other one.")
		return s, false
	case r.opts.Open == nil || r.ctx.Store == nil:
		r.refuseContinue(title, "Recording is not available here, so no episode can be continued.")
		return s, false
	case strings.TrimSpace(s.Annotator) == "":
		r.refuseContinue(title, "Set your name in Settings first: the episode is recorded under it.")
		return s, false
	}
	return s, true
}

// resume goes on recording interrupted episode id (Tab.Resume).
func (l *lifecycle) resume(id string) {
	r := l.t
	const title = "Cannot resume the episode"
	s, ok := l.prepareContinue(title)
	if !ok {
		return
	}
	st := r.ctx.Store
	ep, err := st.GetEpisode(r.lifetime, id)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	if ep.Annotator != s.Annotator {
		r.refuseContinue(title, fmt.Sprintf("The episode was recorded by %s, and you are %s: only its annotator can go on with it.", ep.Annotator, s.Annotator))
		return
	}
	t, err := st.GetTask(r.lifetime, ep.TaskID)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	k, err := st.LastKeptStep(r.lifetime, id)
	if err == nil {
		err = st.CheckContinue(r.lifetime, id, k)
	}
	if err != nil {
		r.refuseContinue(title, err.Error()+". The episode was left as it is.")
		return
	}
	l.branchOf, l.branchAt = "", 0
	r.panel.pick(t)
	l.begin(t, settingsFor(ep, s), continueResume, func(e *episode) StartFunc { return e.resumeStart(id) })
}

// branch starts a new episode of episode id's task whose steps 1..k are
// id's (Tab.Branch).
func (l *lifecycle) branch(id string, k int) {
	r := l.t
	title := fmt.Sprintf("Cannot continue from step %d", k)
	s, ok := l.prepareContinue(title)
	if !ok {
		return
	}
	st := r.ctx.Store
	parent, err := st.GetEpisode(r.lifetime, id)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	t, err := st.GetTask(r.lifetime, parent.TaskID)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	if err := st.CheckContinue(r.lifetime, id, k); err != nil {
		r.refuseContinue(title, err.Error()+".")
		return
	}
	l.branchOf, l.branchAt = id, k
	r.panel.pick(t)
	l.begin(t, settingsFor(parent, s), continueBranch, func(e *episode) StartFunc { return e.branchStart(id, k) })
}

// continuedPage: the stored steps were replayed (and, for a branch,
// recorded): the episode records from here. On an error the runner closes
// next and runnerClosed says why.
func (l *lifecycle) continuedPage(obs action.Observation, err error) {
	r := l.t
	l.replaying = ""
	r.live.view.SetPending("")
	if err != nil {
		return
	}
	l.state = stRecording
	l.openedEpisode()
	r.live.accept()
	r.live.view.SetHint("", false)
	l.steps.load(l.episodeID)
	r.live.showShot(obs.Screenshot, l.cur.current)
	l.lastURL = obs.URL
	kept := l.steps.kept()
	switch l.continued {
	case continueResume:
		l.status.setStatus(fmt.Sprintf("Resumed: %s replayed and checked.", ui.Plural(kept, "step")))
	default:
		l.status.setStatus(fmt.Sprintf("Continuing from step %d: %s replayed, checked and recorded.", l.branchAt, ui.Plural(kept, "step")))
	}
	if r.panel.task != nil {
		r.setTitle("Recording: " + r.panel.task.Goal)
	}
	r.sync()
	r.live.focus()
}

// askBranch confirms "Continue from step K" on the selected step.
func (r *Tab) askBranch() {
	row, ok := r.steps.branchRow()
	if !ok {
		return
	}
	id, k := r.steps.episode(), row.idx
	goal := ""
	if r.panel.task != nil {
		goal = "“" + r.panel.task.Goal + "” "
	}
	msg := fmt.Sprintf("A new episode of %sstarts: steps 1–%d of this one are replayed in a fresh browser, each checked against the stored one, "+
		"and recorded as its first steps. Then you go on by hand. If a step does not replay as recorded, the new episode is discarded.", goal, k)
	if k == 0 {
		msg = fmt.Sprintf("A new episode of %sstarts from the start page, as a branch of this one.", goal)
	}
	w := r.ctx.Window
	if w == nil {
		r.Branch(id, k)
		return
	}
	body := widget.NewLabel(msg)
	body.Wrapping = fyne.TextWrapWord
	d := ui.NewQuestion(w, fmt.Sprintf("Continue from step %d?", k), "Continue", "Cancel", body, func(ok bool) {
		if ok {
			r.Branch(id, k)
		}
	})
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	ui.WithKeys(w, d, d.Confirm, d.Buttons()...)
}
