package review

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// originPanel heads the label form with where the open episode's goal came
// from. A planned episode: what was actually done, when it differs from
// the goal (dataset.Store.SetActualTask). A task cut from an exploration:
// the exploration and the span, what its check showed (replayable or not,
// each key point; a failed one is shown as failed), and buttons to change
// the span (dataset.Store.AdjustSpan, kept in the audit log), to replay it
// from its start state and to open the exploration. An exploration: it has
// no outcome to label (the form's outcome is hidden), and the tasks cut
// from it are listed with their checks, and Cut a task… cuts another one
// (the ui kit's cut dialog, as the Record screen's).
type originPanel struct {
	f *form

	title  *widget.Label
	detail *widget.Label
	// actual is a planned episode's "actually done" field and its button.
	actual    *widget.Entry
	actualBtn *widget.Button
	actualBox *fyne.Container
	// spanBtn, checkBtn and explBtn act on a cut.
	spanBtn, checkBtn, explBtn *widget.Button
	cutBox                     *fyne.Container
	// cutBtn cuts a task out of an exploration.
	cutBtn  *widget.Button
	explBox *fyne.Container
	box     *fyne.Container

	// span is the open change-the-span dialog, or nil.
	span *spanForm
	// cutDlg is the open cut dialog, or nil.
	cutDlg *ui.CutDialog
}

func (o *originPanel) init(f *form) {
	o.f = f
	o.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	o.title.Wrapping = fyne.TextWrapWord
	o.detail = widget.NewLabel("")
	o.detail.Wrapping = fyne.TextWrapWord
	o.actual = widget.NewEntry()
	o.actual.SetPlaceHolder("What was actually done, if not the goal")
	o.actual.OnSubmitted = func(string) { o.keepActual() }
	o.actualBtn = widget.NewButton("Keep", func() { o.keepActual(); f.t.unfocus() })
	o.actualBox = container.NewBorder(nil, nil, nil, o.actualBtn, o.actual)
	o.spanBtn = widget.NewButtonWithIcon("Change the span…", theme.ContentCutIcon(), func() { f.t.unfocus(); o.askSpan() })
	o.checkBtn = widget.NewButtonWithIcon("Replay from its start state (R)", theme.MediaReplayIcon(), func() { f.t.unfocus(); f.t.player.replay.start() })
	o.explBtn = widget.NewButton("Open the exploration", func() { f.t.unfocus(); o.openExploration() })
	// One under the other: side by side they asked for more than the side
	// panel's width, and the texts above were cut off at its edge.
	o.cutBox = container.NewVBox(o.spanBtn, o.checkBtn, o.explBtn)
	o.cutBtn = widget.NewButtonWithIcon("Cut a task…", theme.ContentCutIcon(), func() { f.t.unfocus(); o.askCut() })
	o.explBox = container.NewVBox(o.cutBtn)
}

func (o *originPanel) build() fyne.CanvasObject {
	o.box = container.NewVBox(o.title, o.detail, o.actualBox, o.cutBox, o.explBox, widget.NewSeparator())
	o.box.Hide()
	return o.box
}

// exploration reports whether the open episode is an exploration.
func (o *originPanel) exploration() bool {
	ep := o.f.t.player.ep
	return ep != nil && ep.Intent == dataset.IntentExploration
}

// load shows the open episode's origin (called when an episode opens or
// its check changed).
func (o *originPanel) load() {
	ep := o.f.t.player.ep
	if ep == nil || o.box == nil {
		if o.box != nil {
			o.box.Hide()
		}
		return
	}
	o.detail.Importance = widget.MediumImportance
	o.actualBox.Hide()
	o.cutBox.Hide()
	o.explBox.Hide()
	switch ep.Intent {
	case dataset.IntentExploration:
		o.title.SetText("An exploration: no outcome to label")
		o.detail.SetText(o.explorationText(ep.ID))
		ui.SetEnabled(o.cutBtn, len(spanChoices(o.f.t.player.steps)) > 0)
		o.explBox.Show()
	case dataset.IntentHindsight:
		o.title.SetText(fmt.Sprintf("A task cut from an exploration, its steps %d–%d", ep.SpanFrom, ep.SpanTo))
		text, bad := o.cutText(ep.ID)
		if bad {
			o.detail.Importance = widget.DangerImportance
		}
		o.detail.SetText(text)
		o.cutBox.Show()
	default:
		o.title.SetText("A planned task")
		o.detail.SetText("If the episode did something else than the goal, write what it actually did: review and export carry both.")
		o.actual.SetText(ep.ActualTask)
		o.actualBox.Show()
	}
	o.box.Show()
}

// explorationText lists the tasks cut from exploration id with their
// checks.
func (o *originPanel) explorationText(id string) string {
	head := "It was recorded without a goal, so there is nothing to label as a success or a failure: the tasks cut from it are reviewed as tasks. Cut them here (Cut a task…, from the step shown), on the Record screen or with waymark cut."
	cuts, err := o.f.t.store.Cuts(o.f.t.life, id)
	switch {
	case err != nil:
		return head + "\n\nThe tasks cut from it cannot be read: " + err.Error()
	case len(cuts) == 0:
		return head + "\n\nNo task was cut from it yet."
	}
	lines := []string{head, "", ui.Plural(len(cuts), "task") + " cut from it (listed under it in the queue):"}
	for _, c := range cuts {
		h, err := o.f.t.store.HindsightCheckOf(o.f.t.life, c.ID)
		state := h.Summary()
		if err != nil {
			state = "its check cannot be read: " + err.Error()
		}
		lines = append(lines, fmt.Sprintf("• steps %d–%d · %s: %s — %s", c.SpanFrom, c.SpanTo, c.Category, c.Goal, state))
	}
	return strings.Join(lines, "\n")
}

// cutText says what was checked of cut id: whether it replays from its
// start state, and each key point. bad is true when it does not replay or
// a key point failed.
func (o *originPanel) cutText(id string) (text string, bad bool) {
	h, err := o.f.t.store.HindsightCheckOf(o.f.t.life, id)
	if err != nil {
		return "Its check cannot be read: " + err.Error(), true
	}
	if h == nil {
		h = &dataset.HindsightCheck{}
	}
	var lines []string
	switch r := h.Replay; {
	case r == nil:
		lines = append(lines, "Not replayed from its start state yet: press R (or the button below) to check that it replays.")
	case r.Replayable:
		how := "online"
		if r.Offline {
			how = "offline, from the exploration's recorded traffic"
		}
		lines = append(lines, fmt.Sprintf("Replayable from its start state (%d of %d steps matched, %s, %s).", r.Matched, r.Compared, how, r.At.Local().Format("Jan 2 15:04")))
	default:
		bad = true
		lines = append(lines, fmt.Sprintf("NOT replayable (%s): %s", r.At.Local().Format("Jan 2 15:04"), r.Why))
	}
	if len(h.KeyPoints) == 0 {
		lines = append(lines, "No key points were written for it.")
		return strings.Join(lines, "\n"), bad
	}
	lines = append(lines, "Key points:")
	for _, k := range h.KeyPoints {
		switch {
		case k.Checked && k.Passed:
			lines = append(lines, "✓ "+k.KeyPoint+" (checked against "+k.Against+")")
		case k.Checked:
			bad = true
			lines = append(lines, "✗ FAILED "+k.KeyPoint+": "+k.Why)
		default:
			lines = append(lines, "· "+k.KeyPoint+" — "+k.Why)
		}
	}
	return strings.Join(lines, "\n"), bad
}

// keepActual stores what a planned episode actually did.
func (o *originPanel) keepActual() {
	ep := o.f.t.player.ep
	if ep == nil || ep.Intent != dataset.IntentPlanned {
		return
	}
	v := strings.TrimSpace(o.actual.Text)
	if err := o.f.t.store.SetActualTask(o.f.t.life, ep.ID, v); err != nil {
		o.f.setStatus("Not kept: "+err.Error(), true)
		return
	}
	ep.ActualTask = v
	if v == "" {
		o.f.setStatus("Cleared what was actually done: the episode did its goal.", false)
	} else {
		o.f.setStatus("Kept what was actually done: “"+v+"”.", false)
	}
	o.f.t.queue.afterSave()
}

// spanForm is the open change-the-span dialog.
type spanForm struct {
	d        *ui.FormDialog
	from, to *ui.DialogSelect
	why      *ui.DialogEntry
	steps    map[string]int // the choices' step numbers
}

// askSpan asks for the cut's new span (of the exploration's kept steps)
// and why, then replaces the cut (dataset.Store.AdjustSpan), opens the new
// one and replays it from its start state.
func (o *originPanel) askSpan() {
	t := o.f.t
	ep := t.player.ep
	if ep == nil || ep.Intent != dataset.IntentHindsight {
		return
	}
	if t.reviewer() == "" {
		t.player.edits.fail("The span was not changed", errors.New("set your reviewer name in Settings first: the change is logged under it"))
		return
	}
	steps, err := t.store.Steps(t.life, ep.ExplorationID)
	if err != nil {
		t.player.edits.fail("The span cannot be changed", fmt.Errorf("the exploration's steps cannot be read: %w", err))
		return
	}
	f := &spanForm{steps: map[string]int{}}
	var labels []string
	for _, st := range spanChoices(steps) {
		l := fmt.Sprintf("%d · %s", st.Index, st.Text)
		labels = append(labels, l)
		f.steps[l] = st.Index
	}
	if len(labels) == 0 {
		t.player.edits.fail("The span cannot be changed", errors.New("the exploration has no kept step left"))
		return
	}
	f.from, f.to = ui.NewDialogSelect(labels, nil), ui.NewDialogSelect(labels, nil)
	for _, l := range labels {
		if f.steps[l] == ep.SpanFrom {
			f.from.SetSelected(l)
		}
		if f.steps[l] == ep.SpanTo {
			f.to.SetSelected(l)
		}
	}
	f.from.OnChanged = func(string) { f.order(true) }
	f.to.OnChanged = func(string) { f.order(false) }
	f.why = ui.NewDialogEntry()
	f.why.SetPlaceHolder("e.g. step 4 was a detour")
	f.why.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("say why: the change is kept in the audit log with your name")
		}
		return nil
	}
	w := t.window()
	if w == nil {
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("“%s” is now the exploration's steps %d–%d. A new cut with the new span replaces it (its instruction, key points and answer kept); this one is kept, discarded, and both say so in their audit logs. The new cut is then replayed from its start state.", ep.Goal, ep.SpanFrom, ep.SpanTo))
	msg.Wrapping = fyne.TextWrapWord
	confirmed := false
	o.span = f
	f.d = ui.ShowForm(w, "Change the span", "Change and check", "Cancel", []*widget.FormItem{
		{Widget: msg},
		{Text: "First step", Widget: f.from},
		{Text: "Last step", Widget: f.to, HintText: "The start page is the one the step before the first led to"},
		{Text: "Why", Widget: f.why, HintText: "Kept in the audit log with your name and the time."},
	}, func(ok bool) { confirmed = ok }, 560)
	f.d.SetOnClosed(func() {
		if o.span == f {
			o.span = nil
		}
		if confirmed {
			o.changeSpan(ep.ID, f.steps[f.from.Selected], f.steps[f.to.Selected], strings.TrimSpace(f.why.Text))
		}
	})
}

// spanChoices are the steps of an exploration a span may hold: its kept
// actions, not the one that ended it.
func spanChoices(steps []dataset.Step) []ui.CutStep {
	var out []ui.CutStep
	for _, st := range steps {
		if st.Index == 0 || st.Removed || st.Done || st.Action == nil || st.Action.Op == action.Finish {
			continue
		}
		out = append(out, ui.CutStep{Index: st.Index, Text: st.Action.String()})
	}
	return out
}

// askCut opens the cut dialog on the open exploration's actions, from the
// step shown to the last; the cut is stored, opened and replayed from its
// start state.
func (o *originPanel) askCut() {
	t := o.f.t
	p := &t.player
	ep := p.ep
	if ep == nil || ep.Intent != dataset.IntentExploration {
		return
	}
	if t.reviewer() == "" {
		p.edits.fail("No task was cut", errors.New("set your reviewer name in Settings first: the cut's finish is recorded under it"))
		return
	}
	steps := spanChoices(p.steps)
	w := t.window()
	if w == nil || len(steps) == 0 {
		return
	}
	first := 0
	if p.cur >= 0 && p.cur < len(p.steps) {
		first = p.steps[p.cur].Index
	}
	var d *ui.CutDialog
	d = ui.ShowCutDialog(w, ep.ID, t.reviewer(), steps, first, func(spec *dataset.CutSpec) {
		if o.cutDlg == d {
			o.cutDlg = nil
		}
		if spec != nil {
			o.cut(*spec)
		}
	})
	o.cutDlg = d
}

// cut stores spec's cut, opens it and replays it from its start state.
func (o *originPanel) cut(spec dataset.CutSpec) {
	t := o.f.t
	e, err := t.store.CutSpan(t.life, spec)
	if e.ID == "" {
		t.player.edits.fail("The task was not cut", err)
		return
	}
	t.queue.reload()
	if !o.openEpisode(e.ID, e.TaskID) {
		t.player.edits.fail("The task was cut", fmt.Errorf("the cut (episode %s) is not in the review queue", e.ID))
		return
	}
	msg := fmt.Sprintf("Steps %d–%d cut as “%s”. Open the exploration to cut another.", e.SpanFrom, e.SpanTo, e.Goal)
	if err != nil {
		t.form.setStatus(msg+" "+sentence(err.Error()), true)
	} else {
		t.form.setStatus(msg, false)
	}
	if t.player.replay.opts.Open != nil {
		t.player.replay.start()
	}
}

// order keeps the first step at or before the last.
func (f *spanForm) order(fromChanged bool) {
	if f.steps[f.from.Selected] <= f.steps[f.to.Selected] {
		return
	}
	if fromChanged {
		f.to.SetSelected(f.from.Selected)
	} else {
		f.from.SetSelected(f.to.Selected)
	}
}

// changeSpan replaces cut id by a cut of from–to, opens the new cut and
// replays it from its start state.
func (o *originPanel) changeSpan(id string, from, to int, why string) {
	t := o.f.t
	cut, err := t.store.AdjustSpan(t.life, id, from, to, t.reviewer(), why)
	if cut.ID == "" || cut.ID == id {
		if err == nil {
			err = errors.New("no new cut was made")
		}
		t.player.edits.fail("The span was not changed", err)
		return
	}
	t.queue.reload()
	if !o.openEpisode(cut.ID, cut.TaskID) {
		t.player.edits.fail("The span was changed", fmt.Errorf("the new cut (episode %s) is not in the review queue", cut.ID))
		return
	}
	msg := fmt.Sprintf("The span is now steps %d–%d: a new cut replaced the old one (see the Edits tab).", from, to)
	if err != nil {
		t.form.setStatus(msg+" "+sentence(err.Error()), true)
	} else {
		t.form.setStatus(msg, false)
	}
	if t.player.replay.opts.Open != nil {
		t.player.replay.start()
	}
}

// openExploration opens the exploration the open cut came from.
func (o *originPanel) openExploration() {
	ep := o.f.t.player.ep
	if ep == nil || ep.ExplorationID == "" {
		return
	}
	e, err := o.f.t.store.GetEpisode(o.f.t.life, ep.ExplorationID)
	if err == nil && !o.openEpisode(e.ID, e.TaskID) {
		err = fmt.Errorf("the exploration is %s, so it is not in the review queue", e.Status)
	}
	if err != nil {
		o.f.t.player.edits.fail("Cannot open the exploration", err)
	}
}

// openEpisode opens episode id (of task taskID) from the queue, whatever
// the queue's filters; false when it is not reviewable.
func (o *originPanel) openEpisode(id, taskID string) bool {
	t := o.f.t
	q, err := t.store.ReviewQueue(t.life, dataset.QueueFilter{Reviewer: t.reviewer(), TaskID: taskID})
	if err != nil {
		return false
	}
	for _, it := range q.Items {
		if it.EpisodeID == id {
			t.openItem(it)
			return true
		}
	}
	return false
}
