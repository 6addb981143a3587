package record

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// The Record tab's dialogs: the end of an episode, a lost server, Finish,
// Go to, Discard, Restart and closing the window mid-episode.

// showEnd is the end dialog: how the episode ended, the answer and its
// check, and the next task to start.
func (r *Tab) showEnd(msg string, last action.Observation, check string) {
	if r.ctx.Window == nil {
		return
	}
	lines := []fyne.CanvasObject{widget.NewLabelWithStyle(msg, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	if last.Answer != "" {
		lines = append(lines, widget.NewLabel("Your answer: “"+last.Answer+"”"))
	}
	if check != "" {
		l := widget.NewLabel(check)
		if last.Reward != nil && *last.Reward >= 1 {
			l.Importance = widget.SuccessImportance
		} else {
			l.Importance = widget.WarningImportance
		}
		lines = append(lines, l)
		if want := r.expectedAnswer(last); want != "" {
			w := widget.NewLabel("Accepted answers: " + want)
			w.Wrapping = fyne.TextWrapWord
			lines = append(lines, w)
		}
	}
	var d *dialog.CustomDialog
	buttons := []fyne.CanvasObject{ui.NewDialogButton("Stay here", nil, func() { d.Hide() })}
	next := r.panel.next()
	switch {
	case r.cuts.expl:
		// An exploration is cut into tasks next, not followed by one.
		saved := widget.NewLabel(ui.ExplorationSaved(r.steps.kept()))
		saved.Wrapping = fyne.TextWrapWord
		lines = append(lines, saved)
		if len(r.cuts.spanSteps()) == 0 {
			break // no action to cut
		}
		cut := ui.NewDialogButton("Cut a task…", theme.ContentCutIcon(), func() {
			d.Hide()
			r.cuts.ask()
		})
		cut.Importance = widget.HighImportance
		buttons = append(buttons, cut)
	default:
		lines = append(lines, widget.NewLabel(ui.Plural(r.steps.kept(), "step")+" saved."))
	}
	if next != nil && !r.cuts.expl {
		t := *next
		nl := widget.NewLabel("Next: " + t.Goal)
		nl.Wrapping = fyne.TextWrapWord
		lines = append(lines, widget.NewSeparator(), nl)
		next := ui.NewDialogButton("Start next task (Ctrl+Shift+N)", theme.MediaPlayIcon(), func() {
			d.Hide()
			r.StartTask(t)
		})
		next.Importance = widget.HighImportance
		buttons = append(buttons, next)
	}
	d = dialog.NewCustomWithoutButtons("Episode ended", container.NewVBox(lines...), r.ctx.Window)
	d.SetButtons(buttons)
	d.Resize(fyne.NewSize(460, 0))
	r.endDialog = d
	d.Show()
	// Enter: the highlighted button (Cut a task… after an exploration, the
	// next task, else Stay here).
	enter := buttons[len(buttons)-1].(*ui.DialogButton).OnTapped
	ui.WithKeys(r.ctx.Window, d, enter, buttons...)
}

// expectedAnswer lists the accepted answers of the task's answer check
// when the episode's answer did not pass it ("" otherwise): the episode is
// over, so showing them teaches without giving anything away.
func (r *Tab) expectedAnswer(last action.Observation) string {
	if r.panel.task == nil || r.panel.task.Check == nil || r.panel.task.Check.Kind != action.CheckKindAnswer {
		return ""
	}
	if last.Reward == nil || *last.Reward >= 1 {
		return ""
	}
	return ui.ExpectedAnswers(r.panel.task.Check.Answer)
}

// connectionLost tells that the OpenEnv server went away: the episode is
// saved as interrupted with every step, and the person chooses how to go
// on: resume it in the local browser (its steps replayed), or start the
// task again on the server.
func (r *Tab) connectionLost(t dataset.Task, err error) {
	steps := max(0, r.steps.len()-1)
	id, closed := r.life.episodeID, r.life.closed()
	resumable := id != "" && r.steps.kept() > 0
	msg := fmt.Sprintf("The connection to the OpenEnv server was lost. The episode was saved as interrupted, with its %s.", ui.Plural(steps, "step"))
	switch {
	case r.opts.UseLocalBrowser != nil && resumable:
		msg += "\n\nResume it in the local browser (its steps are replayed there, then you go on), or start the task again on the server once it is back."
	case r.opts.UseLocalBrowser != nil:
		msg += "\n\nStart the task in the local browser, or again on the server once it is back."
	default:
		msg += "\n\nStart the task again on the server once it is back."
	}
	if err != nil {
		msg += "\n\nDetails: " + ui.Sentence(err.Error())
	}
	r.status.setError("The connection to the OpenEnv server was lost: the episode was saved as interrupted.")
	w := r.ctx.Window
	if w == nil {
		return
	}
	label := widget.NewLabel(msg)
	label.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	again := ui.NewDialogButton("Start again on the server", nil, func() {
		d.Hide()
		r.StartTask(t)
	})
	again.Importance = widget.HighImportance
	buttons := []fyne.CanvasObject{ui.NewDialogButton("Close", nil, func() { d.Hide() })}
	if r.opts.UseLocalBrowser != nil && resumable {
		buttons = append(buttons, ui.NewDialogButton("Resume in the local browser", nil, func() {
			d.Hide()
			r.opts.UseLocalBrowser()
			// The episode is marked interrupted when the runner has
			// closed its engine: resume after that.
			go func() {
				<-closed
				r.ctx.UI().Do(func() { r.Resume(id) })
			}()
		}))
	} else if r.opts.UseLocalBrowser != nil {
		buttons = append(buttons, ui.NewDialogButton("Start in the local browser", nil, func() {
			d.Hide()
			r.opts.UseLocalBrowser()
			r.StartTask(t)
		}))
	}
	buttons = append(buttons, again)
	d = dialog.NewCustomWithoutButtons("Connection to the server lost", label, w)
	d.SetButtons(buttons)
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
	ui.WithKeys(w, d, nil, buttons...)
}

// askFinish asks for the answer and finishes the episode (the Finish…
// button).
func (r *Tab) askFinish() {
	if r.life.state != stRecording || r.ctx.Window == nil {
		return
	}
	r.live.flush()
	cat := ""
	if r.panel.task != nil {
		cat = r.panel.task.Category
	}
	ans := ui.NewDialogEntry()
	hint := "Optional: the answer, if the task asks for one"
	if cat == dataset.Information {
		hint = "Required for information tasks"
		ans.SetPlaceHolder("The answer you found")
	}
	ans.Validator = func(s string) error { return ui.FinishAnswerError(cat, s) }
	// Enter finishes (when the answer is valid), Escape cancels, in the
	// field or outside it; the field has the keys from the start.
	ui.ShowForm(r.ctx.Window, "Finish the task", "Finish", "Cancel", []*widget.FormItem{{Text: "Answer", Widget: ans, HintText: hint}}, func(ok bool) {
		if ok {
			if err := r.Finish(ans.Text); err != nil {
				r.status.setError(err.Error())
			}
		}
		r.ctx.Window.Canvas().Focus(r.live.view)
	}, 460)
	if r.opts.Debugf != nil {
		r.opts.Debugf("finish dialog open")
	}
}

// askGoto asks for an address and sends goto (extended set).
func (r *Tab) askGoto() {
	if r.life.state != stRecording || !r.life.set.HasOp(action.Goto) || r.ctx.Window == nil {
		return
	}
	u := ui.NewDialogEntry()
	u.SetPlaceHolder("https://…")
	u.Validator = action.CheckURL
	ui.ShowForm(r.ctx.Window, "Go to an address", "Go", "Cancel", []*widget.FormItem{{Text: "URL", Widget: u}}, func(ok bool) {
		if ok {
			r.life.act(action.Action{Op: action.Goto, URL: strings.TrimSpace(u.Text)})
		}
		r.ctx.Window.Canvas().Focus(r.live.view)
	}, 520)
}

// askDiscard asks before discarding the running episode.
func (r *Tab) askDiscard() {
	if !r.life.busy() {
		return
	}
	if r.life.state == stStarting && r.life.continued != "" {
		// Stopping a resume or branch that still replays: nothing of a
		// resumed episode is discarded, a branch is.
		what := "The episode is left interrupted, as it was."
		if r.life.continued == continueBranch {
			what = "The new episode is discarded."
		}
		confirm(r.ctx.Window, "Stop the replay?", what, r.life.abort)
		return
	}
	msg := "Its steps stay on disk, marked discarded, and are left out of exports."
	if r.life.continued == continueResume {
		msg = "This episode was resumed: discarding it discards all of it, the steps recorded before the interruption too. " + msg
	}
	confirm(r.ctx.Window, "Discard this episode?", msg, func() {
		r.life.discard()
	})
}

// askRestart starts the task again; a running episode is discarded first,
// once the person agrees.
func (r *Tab) askRestart() {
	if r.panel.task == nil || r.life.state == stIdle || r.life.state == stStarting {
		return
	}
	t := *r.panel.task
	if r.life.state == stEnded {
		r.life.start(t)
		return
	}
	msg := "The current episode is discarded (kept on disk, marked discarded) and a new one starts."
	if r.life.continued == continueResume {
		msg = "The current episode was resumed: all of it is discarded, the steps recorded before the interruption too (kept on disk, marked discarded), and a new one starts."
	}
	confirm(r.ctx.Window, "Restart the task?", msg, func() { r.life.restart(t) })
}

// confirm asks a yes/no question over w and calls yes on yes (at once when
// there is no window).
func confirm(w fyne.Window, title, msg string, yes func()) {
	if w == nil {
		yes()
		return
	}
	ui.ShowConfirm(w, title, msg, func(ok bool) {
		if ok {
			yes()
		}
	})
}

// ConfirmClose is what closing the window does: while an episode records,
// it asks first (Keep recording, or Stop and save as interrupted, every
// step kept); otherwise, and on Stop, it calls closeNow.
func (r *Tab) ConfirmClose(closeNow func()) {
	w := r.ctx.Window
	if (r.life.state != stRecording && r.life.state != stStarting) || w == nil {
		closeNow()
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("An episode is being recorded (%s saved). Closing Waymark stops it: it is saved as interrupted, with every step kept.",
		ui.Plural(r.steps.kept(), "step")))
	msg.Wrapping = fyne.TextWrapWord
	d := ui.NewQuestion(w, "Close Waymark?", "Stop and save as interrupted", "Keep recording", msg, func(stop bool) {
		if stop {
			closeNow()
		} else {
			r.live.focus()
		}
	})
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	ui.WithKeys(w, d, d.Cancel, d.Buttons()...) // Enter keeps recording: the safe answer
}
