package review

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// successWarning says why a success label is doubtful for the open
// episode ("" when the outcome is not success or nothing contradicts it):
// the episode was interrupted, or its automatic check failed.
func (f *form) successWarning() string {
	if f.outcome != dataset.OutcomeSuccess || f.t.player.ep == nil {
		return ""
	}
	return successDoubts(*f.t.player.ep, f.t.player.task)
}

// successDoubts lists what contradicts a success label for ep ("" when
// nothing does).
func successDoubts(ep dataset.Episode, task dataset.Task) string {
	var why []string
	if ep.Status == dataset.StatusInterrupted {
		how := endReasonText(ep) // "interrupted (the recording stopped early)", or why it ended
		if !strings.HasPrefix(how, "interrupted") {
			how = "interrupted (" + how + ")"
		}
		why = append(why, "This episode was "+how+": the annotator may not have reached the end of the task.")
	}
	if ep.AutoReward != nil && *ep.AutoReward < 1 {
		s := "Its automatic check failed"
		if task.Check != nil && task.Check.Kind == action.CheckKindAnswer {
			ans := "no answer"
			if ep.FinalAnswer != "" {
				ans = "“" + ep.FinalAnswer + "”"
			}
			s += ": the answer was " + ans
			if want := ui.ExpectedAnswers(task.Check.Answer); want != "" {
				s += ", expected " + want
			}
		}
		why = append(why, s+".")
	}
	return strings.Join(why, "\n")
}

// asking reports whether the success warning is showing.
func (f *form) asking() bool { return f.warnDlg != nil }

// askSuccess shows the success warning: Save anyway (Enter) saves and runs
// then, Cancel (Escape) leaves the form as it is. Without a window the
// warning is shown as the status and the next save goes through.
func (f *form) askSuccess(warn string, then func()) {
	w := f.t.window()
	if w == nil {
		f.successAcked = true
		f.setStatus("Not saved yet. "+warn+" Save again to label it a success anyway.", true)
		return
	}
	msg := widget.NewLabel(warn + "\n\nA success label says the task was completed. Save it as a success anyway?")
	msg.Wrapping = fyne.TextWrapWord
	d := ui.NewQuestion(w, "Label this episode a success?", "Save anyway", "Cancel", msg, func(ok bool) {
		f.warnDlg = nil
		if !ok {
			f.setStatus("Not saved: choose another outcome, or save again and confirm the success.", false)
			return
		}
		f.successAcked = true
		if f.store() && then != nil {
			then()
		}
	})
	f.warnDlg = d
	d.Resize(fyne.NewSize(480, 0))
	d.Show()
	ui.WithKeys(w, d, d.Confirm, d.Buttons()...)
}
