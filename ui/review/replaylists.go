package review

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// The Replay tab's two lists: the verdicts of the run shown (the running
// replay's so far, or a past one's), each step's verdict also shown on the
// player's step rows, and the episode's past replays, newest first; a
// verdict selected shows its step in the player.

func twoLineRow() fyne.CanvasObject {
	a := widget.NewLabel("0 · reset")
	a.Truncation = fyne.TextTruncateEllipsis
	a.TextStyle = fyne.TextStyle{Bold: true}
	a.SizeName = theme.SizeNameCaptionText
	b := widget.NewLabel("")
	b.Truncation = fyne.TextTruncateEllipsis
	b.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(a, b)
}

func rowLabels(o fyne.CanvasObject) (*widget.Label, *widget.Label) {
	c := o.(*fyne.Container)
	return c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
}

func (r *replayPanel) loadRuns() {
	runs, err := r.p.t.store.ReplayRuns(r.p.t.life, r.epID)
	if err != nil {
		r.setStatus("Cannot read the past replays: "+err.Error(), true)
	}
	r.runs = runs
	r.runsList.UnselectAll()
	r.runsList.Refresh()
}

// shownRun is the run whose verdicts are listed.
func (r *replayPanel) shownRun() *dataset.ReplayRun {
	if r.shown >= 0 && r.shown < len(r.runs) {
		return &r.runs[r.shown]
	}
	return &r.live
}

// rowVerdict is the shown run's verdict on the stored step idx of the
// episode open in the player ("replay ✓ match"), or "" when the panel's
// episode is another or the run did not reach that step.
func (r *replayPanel) rowVerdict(idx int) string {
	if r.p == nil || r.p.ep == nil || r.p.ep.ID != r.epID {
		return ""
	}
	for _, v := range r.shownRun().Steps {
		if v.Step == idx {
			return "replay " + ui.VerdictMark(v.Verdict)
		}
	}
	return ""
}

// showRun lists the shown run's verdicts and warning.
func (r *replayPanel) showRun() {
	run := r.shownRun()
	title := "Replay"
	if r.goal != "" {
		title = "Replay of “" + r.goal + "”"
	}
	if r.cut {
		title += " from its start state"
	}
	r.title.SetText(title)
	if run.Warning != "" {
		r.warning.SetText("Warning: " + ui1(strings.ReplaceAll(run.Warning, "\n", "\nWarning: ")) + ".")
		r.warning.Show()
	} else {
		r.warning.Hide()
	}
	r.detail.SetText("")
	r.verdicts.UnselectAll()
	r.verdicts.Refresh()
	if r.p != nil && r.p.stepList != nil {
		r.p.stepList.Refresh() // the verdicts beside the stored steps
	}
	if r.shown >= 0 {
		r.runsList.Select(r.shown)
	}
}

func (r *replayPanel) updateVerdictRow(id widget.ListItemID, o fyne.CanvasObject) {
	steps := r.shownRun().Steps
	if id >= len(steps) {
		return
	}
	v := steps[id]
	a, b := rowLabels(o)
	a.SetText(fmt.Sprintf("%d · %s", v.Step, v.Action))
	parts := []string{ui.VerdictMark(v.Verdict)}
	if v.Score != nil {
		parts = append(parts, fmt.Sprintf("score %.5f", *v.Score))
	}
	if v.Why != "" {
		parts = append(parts, v.Why)
	}
	if f := r.shownRun().Fidelity; f != nil {
		parts = append(parts, requestsWords(f.Step(v.Step)))
	}
	b.Importance = widget.MediumImportance
	if v.Verdict != dataset.VerdictMatch {
		b.Importance = widget.DangerImportance
	}
	b.SetText(strings.Join(parts, " · "))
}

// selectVerdict shows a verdict in full and its step's result in the
// player, when the panel's episode is the one open.
func (r *replayPanel) selectVerdict(id widget.ListItemID) {
	steps := r.shownRun().Steps
	if id >= len(steps) {
		return
	}
	v := steps[id]
	var b strings.Builder
	fmt.Fprintf(&b, "Step %d · %s\n%s", v.Step, v.Action, ui.VerdictMark(v.Verdict))
	if v.Score != nil {
		fmt.Fprintf(&b, " · screenshot score %.5f (1 is the same)", *v.Score)
	}
	if v.Why != "" {
		fmt.Fprintf(&b, "\n%s", v.Why)
	}
	if f := r.shownRun().Fidelity; f != nil {
		st := f.Step(v.Step)
		fmt.Fprintf(&b, "\n%s", requestsWords(st))
		if st.FirstRefusal != "" {
			fmt.Fprintf(&b, "\nFirst refused: %s", st.FirstRefusal)
		}
		for _, n := range st.NotHermetic {
			fmt.Fprintf(&b, "\nNot hermetic: %s", n)
		}
	}
	r.detail.SetText(b.String())
	if p := r.p; p.ep != nil && p.ep.ID == r.epID {
		for k, st := range p.steps {
			if st.Index == v.Step {
				p.show(k, k > 0 && !p.sideBySide)
				break
			}
		}
	}
	r.p.t.unfocus()
}

func (r *replayPanel) updateRunRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(r.runs) {
		return
	}
	run := r.runs[id]
	a, b := rowLabels(o)
	head := fmt.Sprintf("%s · %d of %d matched", run.StartedAt.Local().Format("2006-01-02 15:04:05"), run.Matched, run.Compared)
	if run.Display != "" {
		head += " · " + run.Display
	}
	if run.Fidelity != nil {
		head += " · offline"
	}
	a.SetText(head)
	b.Importance = widget.MediumImportance
	switch {
	case run.OK():
		b.SetText("all matched")
	default:
		b.Importance = widget.DangerImportance
		var s []string
		if run.FirstDiverged != nil {
			s = append(s, fmt.Sprintf("first divergence at step %d", *run.FirstDiverged))
		}
		if run.Error != "" {
			s = append(s, run.Error)
		}
		b.SetText(strings.Join(s, " · "))
	}
}
