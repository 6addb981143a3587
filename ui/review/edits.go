package review

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// stepEdits is the player's part for editing an ended episode: remove or
// restore the step shown, trim the steps after it, continue recording from
// it (a branch), the branch's origin, and the audit log. Steps are never
// deleted: a removed step stays stored and listed (greyed), is left out of
// the edited episode and its exports, and can be restored.
type stepEdits struct {
	p *player

	log []dataset.Edit
	// removedBy maps a removed step to the edit that removed it (undo,
	// remove or trim), as the audit log tells it.
	removedBy map[int]dataset.Edit

	removeBtn, trimBtn, contBtn *widget.Button
	agentBtn                    *widget.Button // let an agent continue from the step

	logText  *widget.Label
	logIntro *widget.Label
	tab      *container.TabItem // the side panel's Edits tab (title counts)
}

func (e *stepEdits) init(p *player) {
	e.p = p
	e.removedBy = map[int]dataset.Edit{}
	e.removeBtn = widget.NewButtonWithIcon("Remove step", theme.DeleteIcon(), func() { p.t.unfocus(); e.askRemoveOrRestore() })
	e.trimBtn = widget.NewButtonWithIcon("Trim after this step", theme.ContentCutIcon(), func() { p.t.unfocus(); e.askTrim() })
	e.contBtn = widget.NewButtonWithIcon("Continue from step 0", theme.MediaRecordIcon(), func() { p.t.unfocus(); e.continueFrom() })
	e.agentBtn = widget.NewButtonWithIcon("Agent from here", theme.ComputerIcon(), func() { p.t.unfocus(); e.agentFrom() })
	e.logIntro = widget.NewLabel("Open an episode to see its edits.")
	e.logIntro.Wrapping = fyne.TextWrapWord
	e.logText = widget.NewLabel("")
	e.logText.Wrapping = fyne.TextWrapWord
	e.setEnabled(-1)
}

// bar is the row of edit buttons under the player's step buttons.
func (e *stepEdits) bar() fyne.CanvasObject {
	return container.NewHBox(e.removeBtn, e.trimBtn, e.contBtn, e.agentBtn)
}

// panel is the side panel's Edits tab: the audit log.
func (e *stepEdits) panel() fyne.CanvasObject {
	top := container.NewVBox(
		widget.NewLabelWithStyle("Edits to this episode", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		e.logIntro,
		widget.NewSeparator(),
	)
	return container.NewBorder(top, nil, nil, nil, container.NewVScroll(e.logText))
}

// load reads the open episode's audit log.
func (e *stepEdits) load() {
	ep := e.p.ep
	e.log, e.removedBy = nil, map[int]dataset.Edit{}
	if ep == nil {
		e.refreshLog(nil)
		return
	}
	var readErr error
	for ed, err := range e.p.t.store.EpisodeEdits(e.p.t.life, ep.ID) {
		if err != nil {
			readErr = err
			break
		}
		e.log = append(e.log, ed)
	}
	e.removedBy = removers(e.log, e.p.steps)
	e.refreshLog(readErr)
}

// removers replays the audit log over the steps and returns, for each
// step removed now, the edit that removed it. A step removed without a
// matching row (not expected) is left out.
func removers(log []dataset.Edit, steps []dataset.Step) map[int]dataset.Edit {
	removed := map[int]bool{}
	by := map[int]dataset.Edit{}
	for _, ed := range log {
		switch ed.Kind {
		case dataset.EditUndo, dataset.EditRemove:
			removed[ed.Step] = true
			by[ed.Step] = ed
		case dataset.EditRestore:
			delete(removed, ed.Step)
			delete(by, ed.Step)
		case dataset.EditTrim:
			for _, st := range steps {
				if st.Index > ed.Step && !removed[st.Index] {
					removed[st.Index] = true
					by[st.Index] = ed
				}
			}
		}
	}
	out := map[int]dataset.Edit{}
	for _, st := range steps {
		if ed, ok := by[st.Index]; ok && st.Removed {
			out[st.Index] = ed
		}
	}
	return out
}

// refreshLog shows the audit log in the Edits tab.
func (e *stepEdits) refreshLog(readErr error) {
	title := "Edits"
	switch {
	case e.p.ep == nil:
		e.logIntro.SetText("Open an episode to see its edits.")
		e.logText.SetText("")
	case readErr != nil:
		e.logIntro.SetText("Cannot read the edits of this episode: " + readErr.Error())
		e.logText.SetText("")
	case len(e.log) == 0:
		e.logIntro.SetText("No step of this episode was edited. Remove, restore or trim steps with the buttons under the player; who, when and why is kept here, and the stored steps are never deleted.")
		e.logText.SetText("")
	default:
		title = fmt.Sprintf("Edits (%d)", len(e.log))
		removed := 0
		for _, st := range e.p.steps {
			if st.Removed {
				removed++
			}
		}
		intro := "Newest first. Stored steps are never deleted."
		switch {
		case removed == 1:
			intro = "1 step is left out of the edited episode and its exports; it stays stored and can be restored. Newest first."
		case removed > 1:
			intro = fmt.Sprintf("%d steps are left out of the edited episode and its exports; they stay stored and can be restored. Newest first.", removed)
		}
		e.logIntro.SetText(intro)
		lines := make([]string, 0, len(e.log))
		for i := len(e.log) - 1; i >= 0; i-- {
			lines = append(lines, editLine(e.log[i]))
		}
		e.logText.SetText(strings.Join(lines, "\n\n"))
	}
	if e.tab != nil && e.tab.Text != title {
		e.tab.Text = title
		if e.p.t.side != nil {
			e.p.t.side.Refresh()
		}
	}
}

// editWhat says what an edit did.
func editWhat(ed dataset.Edit) string {
	switch ed.Kind {
	case dataset.EditUndo:
		return fmt.Sprintf("undid step %d while recording", ed.Step)
	case dataset.EditRemove:
		return fmt.Sprintf("removed step %d", ed.Step)
	case dataset.EditRestore:
		return fmt.Sprintf("restored step %d", ed.Step)
	case dataset.EditTrim:
		return fmt.Sprintf("trimmed the steps after step %d", ed.Step)
	case dataset.EditResume:
		return fmt.Sprintf("resumed recording after step %d", ed.Step)
	case dataset.EditSpan:
		return "changed the span of the task cut from the exploration"
	}
	return fmt.Sprintf("%s at step %d", ed.Kind, ed.Step)
}

// editLine is one audit log entry: when, who, what, why.
func editLine(ed dataset.Edit) string {
	s := fmt.Sprintf("%s · %s %s", ed.At.Local().Format("2006-01-02 15:04"), ed.Editor, editWhat(ed))
	switch {
	case ed.Kind == dataset.EditSpan && ed.Reason != "":
		s += "\n" + ed.Reason // which span became which, and why
	case ed.Reason != "":
		s += "\nWhy: " + ed.Reason
	}
	return s
}

// removedLine says who removed step k, when and why ("" when it is kept).
func (e *stepEdits) removedLine(k int) string {
	if k < 0 || k >= len(e.p.steps) || !e.p.steps[k].Removed {
		return ""
	}
	ed, ok := e.removedBy[e.p.steps[k].Index]
	if !ok {
		return "REMOVED: left out of the edited episode and its exports."
	}
	s := fmt.Sprintf("REMOVED by %s on %s", ed.Editor, ed.At.Local().Format("2006-01-02 15:04"))
	switch ed.Kind {
	case dataset.EditUndo:
		s += " (undone while recording)"
	case dataset.EditTrim:
		s += fmt.Sprintf(" (trimmed after step %d)", ed.Step)
	}
	if ed.Reason != "" {
		s += ": " + ed.Reason
	}
	return s + ". Left out of the edited episode and its exports."
}

// rowNote is the step list's second line for a removed step ("" when kept).
func (e *stepEdits) rowNote(k int) string {
	if k < 0 || k >= len(e.p.steps) || !e.p.steps[k].Removed {
		return ""
	}
	ed, ok := e.removedBy[e.p.steps[k].Index]
	if !ok {
		return "removed"
	}
	s := "removed by " + ed.Editor
	if ed.Reason != "" {
		s += ": " + ed.Reason
	}
	return s
}

// stepChanged sets the buttons for step k (-1: nothing open).
func (e *stepEdits) stepChanged(k int) { e.setEnabled(k) }

func (e *stepEdits) setEnabled(k int) {
	p := e.p
	open := p.ep != nil && k >= 0 && k < len(p.steps)
	removed := open && p.steps[k].Removed
	if removed {
		e.removeBtn.SetText("Restore step")
		e.removeBtn.SetIcon(theme.ContentUndoIcon())
	} else {
		e.removeBtn.SetText("Remove step")
		e.removeBtn.SetIcon(theme.DeleteIcon())
	}
	ui.SetEnabled(e.removeBtn, open && k > 0)
	ui.SetEnabled(e.trimBtn, open && k > 0 && !removed && e.keptAfter(k) > 0)
	if open {
		e.contBtn.SetText(fmt.Sprintf("Continue from step %d", k))
	} else {
		e.contBtn.SetText("Continue from a step")
	}
	ui.SetEnabled(e.contBtn, open && !removed)
	ui.SetEnabled(e.agentBtn, open && !removed && p.t.ctx != nil && p.t.ctx.AgentContinue != nil)
}

// keptAfter counts the kept steps after step k.
func (e *stepEdits) keptAfter(k int) int {
	n := 0
	for _, st := range e.p.steps[k+1:] {
		if !st.Removed {
			n++
		}
	}
	return n
}

// askRemoveOrRestore removes the step shown, or restores it when it is
// removed, after asking why (key Delete).
func (e *stepEdits) askRemoveOrRestore() {
	p := e.p
	if p.ep == nil || e.removeBtn.Disabled() {
		return
	}
	k := p.cur
	st := p.steps[k]
	if st.Removed {
		e.askReason(fmt.Sprintf("Restore step %d?", k),
			fmt.Sprintf("Step %d (%s) is kept in the edited episode and its exports again.", k, actionText(st.Action)),
			"Restore step", fmt.Sprintf("Step %d was not restored", k),
			func(why string) error {
				return p.t.store.RestoreStep(p.t.life, p.ep.ID, st.Index, p.t.reviewer(), why)
			}, fmt.Sprintf("Restored step %d.", k))
		return
	}
	e.askReason(fmt.Sprintf("Remove step %d?", k),
		fmt.Sprintf("Step %d (%s) is left out of the edited episode and its exports. It stays stored, and you can restore it.", k, actionText(st.Action))+
			e.reviewsTouching([]int{st.Index}),
		"Remove step", fmt.Sprintf("Step %d was not removed", k),
		func(why string) error {
			return p.t.store.RemoveStep(p.t.life, p.ep.ID, st.Index, p.t.reviewer(), why)
		}, fmt.Sprintf("Removed step %d.", k))
}

// askTrim removes every kept step after the step shown, after asking why.
func (e *stepEdits) askTrim() {
	p := e.p
	if p.ep == nil || e.trimBtn.Disabled() {
		return
	}
	k := p.cur
	n := e.keptAfter(k)
	var cut []int
	for _, st := range p.steps[k+1:] {
		if !st.Removed {
			cut = append(cut, st.Index)
		}
	}
	e.askReason(fmt.Sprintf("Trim after step %d?", k),
		fmt.Sprintf("The %s after step %d %s left out of the edited episode and its exports, which then end at step %d. They stay stored, and you can restore them one by one.",
			ui.Plural(n, "step"), k, map[bool]string{true: "is", false: "are"}[n == 1], k)+e.reviewsTouching(cut),
		"Trim", fmt.Sprintf("The steps after step %d were not trimmed", k),
		func(why string) error {
			return p.t.store.TrimAfter(p.t.life, p.ep.ID, p.steps[k].Index, p.t.reviewer(), why)
		}, fmt.Sprintf("Trimmed the %s after step %d.", ui.Plural(n, "step"), k))
}

// reviewsTouching says which current reviews of the open episode name one
// of the steps (stored indices) as the first failing step or flag it, and
// what an edit leaving them out does to those labels; "" when none does
// (or the reviews cannot be read: the edit itself is harmless to them).
func (e *stepEdits) reviewsTouching(steps []int) string {
	p := e.p
	revs, err := p.t.store.CurrentReviews(p.t.life, p.ep.ID)
	if err != nil {
		return ""
	}
	in := map[int]bool{}
	for _, k := range steps {
		in[k] = true
	}
	var lines []string
	failure := false
	for _, r := range revs {
		var what []string
		if r.FailureStep != nil && in[*r.FailureStep] {
			what = append(what, fmt.Sprintf("names step %d as the first failing step (%s)", *r.FailureStep, failureTypeName(r.FailureType)))
			failure = true
		}
		var flagged []int
		for k := range r.StepFlags {
			if in[k] && len(r.StepFlags[k]) > 0 {
				flagged = append(flagged, k)
			}
		}
		slices.Sort(flagged)
		for _, k := range flagged {
			var names []string
			for _, f := range r.StepFlags[k] {
				names = append(names, flagName(f))
			}
			what = append(what, fmt.Sprintf("flags step %d as %s", k, strings.Join(names, " and ")))
		}
		if len(what) == 0 {
			continue
		}
		who := r.Reviewer + "'s review"
		switch {
		case r.Settles:
			who = r.Reviewer + "'s settling label"
		case r.Reviewer == p.t.reviewer():
			who = "Your review"
		}
		lines = append(lines, "• "+who+" "+strings.Join(what, "; "))
	}
	if len(lines) == 0 {
		return ""
	}
	s := "\n\nReviews that label these steps:\n" + strings.Join(lines, "\n")
	if failure {
		s += "\nThe export then leaves that failure step and type empty (the outcome is kept), and drops the flags of the steps left out. Ask the reviewer to review the episode again, or restore the step."
	} else {
		s += "\nThe export then drops the flags of the steps left out."
	}
	return s
}

// flagName is a step flag in words.
func flagName(f string) string {
	if f == dataset.FlagMistake {
		return "a mistake"
	}
	return f
}

// askReason asks why (required; Enter confirms, Escape cancels), then
// runs do with the reason, reloads the episode and says what happened.
func (e *stepEdits) askReason(title, what, confirm, failTitle string, do func(why string) error, done string) {
	p := e.p
	if p.t.reviewer() == "" {
		e.fail(failTitle, errors.New("set your reviewer name in Settings first: the edit is logged under it"))
		return
	}
	w := p.t.window()
	if w == nil {
		return
	}
	why := ui.NewDialogEntry()
	why.SetPlaceHolder("e.g. clicked the wrong link, then went back")
	why.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("say why: the reason is kept with your name")
		}
		return nil
	}
	msg := widget.NewLabel(what)
	msg.Wrapping = fyne.TextWrapWord
	confirmed := false
	d := ui.ShowForm(w, title, confirm, "Cancel", []*widget.FormItem{
		{Widget: msg},
		{Text: "Why", Widget: why, HintText: "Kept in the episode's audit log with your name and the time."},
	}, func(ok bool) { confirmed = ok }, 520)
	// The edit runs once the dialog has closed and given the keys back, so
	// that an error dialog gets them in turn.
	d.SetOnClosed(func() {
		if !confirmed {
			return
		}
		err := do(strings.TrimSpace(why.Text))
		if rerr := p.reloadSteps(); err == nil && rerr != nil {
			err = rerr
		}
		if err != nil {
			e.fail(failTitle, err)
			return
		}
		p.t.form.setStatus(done+" The audit log is in the Edits tab.", false)
		p.t.queue.afterSave()
		p.t.unfocus()
	})
}

// fail shows why an edit or a branch did not happen, in a dialog.
func (e *stepEdits) fail(title string, err error) {
	msg := sentence(err.Error())
	if errors.Is(err, dataset.ErrNotFound) {
		msg += " Reopen the episode from the queue: it may have changed."
	}
	if w := e.p.t.window(); w != nil {
		ui.ShowInformation(w, title, msg)
	}
	e.p.t.form.setStatus(title+". "+msg, true)
}

// sentence starts s with a capital and ends it with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// continueFrom asks the Record screen to continue the episode from the
// step shown (a new episode: the steps up to it are replayed, then the
// annotator goes on by hand).
func (e *stepEdits) continueFrom() {
	p := e.p
	if p.ep == nil || e.contBtn.Disabled() {
		return
	}
	k := p.steps[p.cur].Index
	if !p.t.ctx.ContinueFrom(p.ep.ID, k) {
		e.fail("Cannot continue from here", errors.New("recording is not available in this window: continue the episode from Waymark's main window, which has the Record tab"))
		return
	}
	p.t.form.setStatus(fmt.Sprintf("Continuing from step %d on the Record screen: steps 1–%d are replayed and checked, then you go on by hand.", k, k), false)
}

// agentFrom starts a serve whose sessions begin where the episode was after
// the step shown, and says where an agent connects (the Sessions tab
// watches it).
func (e *stepEdits) agentFrom() {
	p := e.p
	if p.ep == nil || e.agentBtn.Disabled() || p.t.ctx == nil || p.t.ctx.AgentContinue == nil {
		return
	}
	id, k := p.ep.ID, p.steps[p.cur].Index
	start := p.t.ctx.AgentContinue
	p.t.form.setStatus(fmt.Sprintf("Starting a serve that continues this episode from step %d…", k), false)
	b := p.t.ctx.UI()
	go func() {
		url, err := start(id, k)
		b.Do(func() {
			if err != nil {
				e.fail("Cannot let an agent continue from here", err)
				return
			}
			p.t.form.setStatus(fmt.Sprintf("An agent can continue from step %d: connect it to %s (WebSocket %s/ws; reset needs no start_url). "+
				"Its episode is recorded as a branch of this one; watch or take over in the Sessions tab.", k, url, "ws"+strings.TrimPrefix(url, "http")), false)
		})
	}()
}
