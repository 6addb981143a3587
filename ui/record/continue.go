package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
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

// continueState is the Record tab's part for continuing episodes.
type continueState struct {
	// continued is how the current (or last) episode continued a stored
	// one ("" for a new episode); branchOf and branchAt name the branch's
	// parent and step.
	continued string
	branchOf  string
	branchAt  int
	// replaying says what replays now ("" when nothing does): input is
	// refused meanwhile.
	replaying string
	cur       *episode // the current (or last) episode

	undoBtn       *widget.Button
	branchBtn     *widget.Button
	resumeOffered bool
	resumeDialog  dialog.Dialog // the notice while it shows
}

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
		e.onUI(func() { e.r.replayProgress(p) })
	}
}

// replayProgress shows which stored step replays now.
func (r *Tab) replayProgress(p replay.PrefixProgress) {
	r.replaying = fmt.Sprintf("Replaying step %d of %d", p.N, p.Of)
	r.view.SetPending("⟲ " + r.replaying + "… (" + p.Action + ")")
	r.status.setStatus(r.replaying + "… each is checked against the stored one.")
}

// recorderOf is the recording engine under an opened engine.
func recorderOf(eng engine.Engine) (*dataset.Recorder, error) {
	if rec, ok := eng.(*dataset.Recorder); ok {
		return rec, nil
	}
	return nil, errors.New("this engine does not record into the store, so a stored episode cannot be continued with it")
}

// resumeStart is the start of a resumed episode (runner goroutine).
func (e *episode) resumeStart(id string) StartFunc {
	store, progress := e.r.ctx.Store, e.progress()
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
	store, progress := e.r.ctx.Store, e.progress()
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
		d := dialog.NewCustom(title, "Close", l, w)
		d.Resize(fyne.NewSize(520, 0))
		d.Show()
		ui.WithKeys(w, d, nil)
	}
}

// prepareContinue checks what a resume or branch needs before the browser
// starts: no episode running, a store, an annotator.
func (r *Tab) prepareContinue(title string) (ui.Settings, bool) {
	s := r.opts.Settings()
	switch {
	case r.state == stRecording || r.state == stStarting:
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

// Resume goes on recording interrupted episode id: a fresh browser replays
// its kept steps, each checked, then recording continues into the same
// episode. If a step does not replay as recorded, the episode stays
// interrupted as it was.
func (r *Tab) Resume(id string) {
	const title = "Cannot resume the episode"
	s, ok := r.prepareContinue(title)
	if !ok {
		return
	}
	st := r.ctx.Store
	ep, err := st.GetEpisode(id)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	if ep.Annotator != s.Annotator {
		r.refuseContinue(title, fmt.Sprintf("The episode was recorded by %s, and you are %s: only its annotator can go on with it.", ep.Annotator, s.Annotator))
		return
	}
	t, err := st.GetTask(ep.TaskID)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	k, err := st.LastKeptStep(id)
	if err == nil {
		err = st.CheckContinue(id, k)
	}
	if err != nil {
		r.refuseContinue(title, err.Error()+". The episode was left as it is.")
		return
	}
	r.branchOf, r.branchAt = "", 0
	r.chooseTask(t)
	r.begin(t, settingsFor(ep, s), continueResume, func(e *episode) StartFunc { return e.resumeStart(id) })
}

// Branch starts a new episode of episode id's task whose steps 1..k are
// id's, replayed, checked and recorded; then the annotator goes on by
// hand. If a step does not replay as recorded, the new episode is
// discarded. The Review player asks for it through ui.Context.Branch.
func (r *Tab) Branch(id string, k int) {
	title := fmt.Sprintf("Cannot continue from step %d", k)
	s, ok := r.prepareContinue(title)
	if !ok {
		return
	}
	st := r.ctx.Store
	parent, err := st.GetEpisode(id)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	t, err := st.GetTask(parent.TaskID)
	if err != nil {
		r.refuseContinue(title, err.Error())
		return
	}
	if err := st.CheckContinue(id, k); err != nil {
		r.refuseContinue(title, err.Error()+".")
		return
	}
	r.branchOf, r.branchAt = id, k
	r.chooseTask(t)
	r.begin(t, settingsFor(parent, s), continueBranch, func(e *episode) StartFunc { return e.branchStart(id, k) })
}

// chooseTask shows t as the chosen task (as StartTask does).
func (r *Tab) chooseTask(t dataset.Task) {
	r.task = &t
	r.catSel.SetSelectedIndex(0)
	r.refreshQueue()
	r.showTask(t)
}

// continuedPage: the stored steps were replayed (and, for a branch,
// recorded): the episode records from here. On an error the runner closes
// next and runnerClosed says why.
func (r *Tab) continuedPage(obs action.Observation, err error) {
	r.replaying = ""
	r.view.SetPending("")
	if err != nil {
		return
	}
	r.state = stRecording
	if e, ok := r.eng.(interface{ EpisodeID() string }); ok {
		r.episodeID = e.EpisodeID()
	}
	r.view.Sink = r.mapper
	r.view.SetHint("", false)
	r.loadRows(r.episodeID, obs)
	r.lastURL = obs.URL
	kept := r.keptSteps()
	switch r.continued {
	case continueResume:
		r.status.setStatus(fmt.Sprintf("Resumed: %s replayed and checked.", ui.Plural(kept, "step")))
	default:
		r.status.setStatus(fmt.Sprintf("Continuing from step %d: %s replayed, checked and recorded.", r.branchAt, ui.Plural(kept, "step")))
	}
	if r.task != nil {
		r.setTitle("Recording: " + r.task.Goal)
	}
	r.sync()
	r.focusView()
}

// loadRows fills the timeline with the episode's stored steps (removed ones
// shown as such), their thumbnails made off the Fyne goroutine. last is the
// page now (shown when the engine has no live frames).
func (r *Tab) loadRows(ep string, last action.Observation) {
	r.rows = nil
	if r.ctx.Store != nil && ep != "" {
		steps, err := r.ctx.Store.Steps(ep)
		if err != nil {
			r.status.setError("The stored steps could not be read for the timeline: " + err.Error())
		}
		for _, st := range steps {
			row := stepRow{idx: st.Index, text: "start", url: st.URL, at: st.CreatedAt, err: ui.ObservationError(action.Code(st.Error)), removed: st.Removed}
			if st.Action != nil {
				a := *st.Action
				row.act, row.text = &a, a.String()
			}
			if st.Note != "" { // the notes written before, as note.go keeps them
				if r.notes == nil {
					r.notes = map[noteKey]string{}
				}
				r.notes[noteKey{ep, st.Index}] = st.Note
			}
			r.rows = append(r.rows, row)
		}
	}
	r.timeline.Refresh()
	r.timeline.ScrollToBottom()
	rows := append([]stepRow(nil), r.rows...)
	run, st, frameless, shot := r.runner, r.ctx.Store, r.frameless, last.Screenshot
	go func() {
		thumbs := make([]image.Image, len(rows))
		for i, row := range rows {
			if st != nil {
				thumbs[i], _ = st.ThumbnailImage(ep, row.idx)
			}
		}
		var full *image.RGBA
		if frameless && len(shot) > 0 {
			if img, err := decodePNG(shot); err == nil {
				full = ToRGBA(img)
			}
		}
		r.ctx.UI().Do(func() {
			if run != r.runner {
				return
			}
			for i, th := range thumbs {
				if i < len(r.rows) && r.rows[i].idx == rows[i].idx {
					r.rows[i].thumb = th
				}
			}
			r.timeline.Refresh()
			if full != nil {
				r.view.SetFrame(full)
			}
		})
	}()
}

// keptSteps counts the episode's action steps not undone.
func (r *Tab) keptSteps() int {
	n := 0
	for _, row := range r.rows {
		if row.idx > 0 && !row.removed {
			n++
		}
	}
	return n
}

// buildBranchButton makes the timeline's "Continue from step K" button.
func (r *Tab) buildBranchButton() *widget.Button {
	r.branchBtn = &widget.Button{Text: "Continue from a step…", Icon: theme.MediaSkipNextIcon(), OnTapped: r.askBranch}
	r.branchBtn.Disable()
	return r.branchBtn
}

// syncContinue enables Undo while recording and "Continue from step K" on
// a kept step of the ended episode selected in the timeline.
func (r *Tab) syncContinue() {
	if r.undoBtn != nil {
		ui.SetEnabled(r.undoBtn, r.state == stRecording && r.replaying == "")
	}
	if r.branchBtn == nil {
		return
	}
	row, ok := r.branchRow()
	if !ok {
		r.branchBtn.SetText("Continue from a step…")
		r.branchBtn.Disable()
		return
	}
	r.branchBtn.SetText(fmt.Sprintf("Continue from step %d…", row.idx))
	ui.SetEnabled(r.branchBtn, r.state == stEnded && !row.removed && !(row.act != nil && row.act.Op == action.Finish))
}

// branchRow is the timeline row selected, if any.
func (r *Tab) branchRow() (stepRow, bool) {
	if r.episodeID == "" || r.selected < 0 || r.selected >= len(r.rows) {
		return stepRow{}, false
	}
	return r.rows[r.selected], true
}

// askBranch confirms "Continue from step K" on the selected step.
func (r *Tab) askBranch() {
	row, ok := r.branchRow()
	if !ok {
		return
	}
	id, k := r.episodeID, row.idx
	goal := ""
	if r.task != nil {
		goal = "“" + r.task.Goal + "” "
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
	d := dialog.NewConfirm(fmt.Sprintf("Continue from step %d?", k), msg, func(ok bool) {
		if ok {
			r.Branch(id, k)
		}
	}, w)
	d.SetConfirmText("Continue")
	d.SetDismissText("Cancel")
	d.Show()
	ui.WithKeys(w, d, d.Confirm)
}
