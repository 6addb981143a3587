package review

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// form is the label form, the other reviews (when settling), the status
// line and the guidelines.
type form struct {
	t *Tab

	outcome dataset.Outcome
	// failStep is the first failing step: set to the step shown when
	// failure is picked, then changed only by the reviewer (F, the list).
	failStep *int
	failType string
	// stepFlags are the mistake and unnecessary flags (stepflags.go).
	stepFlags stepFlags
	// labels is each step's correctness label (steplabels.go).
	labels stepLabels
	// judge are the side effect, looping, optimality and key screenshots
	// (judgefields.go).
	judge  judgeFields
	dirty  bool // the form differs from what is stored
	stored bool // a review (or settling label) of mine is loaded
	// successAcked: the reviewer confirmed a success despite the warning
	// (for the episode open; cleared by load).
	successAcked bool
	warnDlg      *ui.Question // the success warning while it shows

	outcomeRadio *widget.RadioGroup
	failStepSel  *widget.Select
	failTypeSel  *widget.Select
	failBox      *fyne.Container
	reason       *reasonEntry
	settle       *widget.Check
	others       *widget.Label
	othersBox    *fyne.Container
	history      *widget.Label
	status       *widget.Label
	saveBtn      *widget.Button
	updating     bool

	// guides are the labelling guidelines (guidelines.go).
	guides guidelines
	// origin heads the form with where the episode's goal came from
	// (origin.go); labelFields are the outcome and the step labels, hidden
	// for an exploration (no outcome to label).
	origin      originPanel
	labelFields *fyne.Container
}

func (f *form) init(t *Tab) {
	f.t = t
	f.stepFlags.init(f)
	f.labels.init(f)
	f.judge.init(f)
	f.guides.init(f)
	f.origin.init(f)
	f.outcomeRadio = widget.NewRadioGroup(outcomeLabels, func(s string) {
		if f.updating {
			return
		}
		if i := slices.Index(outcomeLabels, s); i >= 0 {
			f.pickOutcome(i)
		} else {
			f.outcome = ""
			f.refreshFailure()
		}
		f.t.unfocus()
	})
	f.failStepSel = widget.NewSelect(nil, func(s string) {
		if f.updating {
			return
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(s, "step ")); err == nil {
			f.failStep = &n
			f.dirty = true
			f.t.player.stepList.Refresh()
		}
		f.t.unfocus()
	})
	var types []string
	for _, ft := range dataset.FailureTypes {
		types = append(types, failureTypeName(ft))
	}
	f.failTypeSel = widget.NewSelect(types, func(s string) {
		if f.updating {
			return
		}
		f.failType = strings.ReplaceAll(s, " ", "_")
		f.dirty = true
		f.t.unfocus()
	})
	f.failTypeSel.PlaceHolder = "(choose, or press T)"
	f.reason = newReasonEntry(f)
	f.reason.SetPlaceHolder("Why, in one checkable sentence")
	f.reason.Wrapping = fyne.TextWrapWord
	f.reason.SetMinRowsVisible(2)
	f.reason.OnChanged = func(string) {
		if !f.updating {
			f.dirty = true
		}
	}
	f.settle = widget.NewCheck("Record as the settling label for this conflict", func(bool) {
		if !f.updating {
			f.dirty = true
			f.updateSaveText()
			f.t.unfocus()
		}
	})
	f.others = widget.NewLabel("")
	f.others.Wrapping = fyne.TextWrapWord
	f.history = widget.NewLabel("")
	f.history.Wrapping = fyne.TextWrapWord
	f.history.SizeName = theme.SizeNameCaptionText
	f.status = widget.NewLabel("")
	f.status.Wrapping = fyne.TextWrapWord
	f.saveBtn = widget.NewButton("Save (Ctrl+S)", func() { f.submit(nil); f.t.unfocus() })
	f.saveBtn.Importance = widget.HighImportance
}

func (f *form) build() fyne.CanvasObject {
	f.failBox = container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("First failing step (F)"), nil, f.failStepSel),
		container.NewBorder(nil, nil, widget.NewLabel("Failure type"), nil, f.failTypeSel),
	)
	f.othersBox = container.NewVBox(widget.NewSeparator(), f.settle, f.others)
	f.othersBox.Hide()
	next := widget.NewButton("Save & next (N)", func() { f.t.saveAndNext(); f.t.unfocus() })
	// The buttons and the status line stay in sight; the rest scrolls.
	f.labelFields = container.NewVBox(
		widget.NewLabelWithStyle("Outcome", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		f.outcomeRadio,
		f.failBox,
		f.reason,
		f.stepFlags.build(),
		f.labels.build(),
		f.judge.build(),
		f.othersBox,
		f.history,
	)
	fields := container.NewVBox(f.origin.build(), f.labelFields)
	labelPanel := container.NewBorder(container.NewVBox(container.NewGridWithColumns(2, f.saveBtn, next), f.status), nil, nil, nil,
		container.NewVScroll(fields))
	f.refreshFailure()
	split := container.NewVSplit(labelPanel, f.guides.build())
	split.Offset = 0.68
	return split
}

// setStatus shows a message under the form; problems are shown in red.
func (f *form) setStatus(msg string, problem bool) {
	f.status.Importance = widget.MediumImportance
	if problem {
		f.status.Importance = widget.DangerImportance
	}
	f.status.SetText(msg)
}

// load fills the form for a newly opened episode: my current review (or
// the settling label when settling), else a blank form.
func (f *form) load(it dataset.QueueItem) {
	f.outcome, f.failStep, f.failType = "", nil, ""
	f.successAcked = false
	if f.warnDlg != nil {
		f.warnDlg.Dismiss()
	}
	f.updating = true
	f.reason.SetText("")
	f.updating = false
	// Other reviewers' labels are shown only in the conflict and settled
	// queues: elsewhere they would bias an independent review.
	settlingQueue := f.t.queue.state == dataset.QueueConflict || f.t.queue.state == dataset.QueueSettled
	conflict := (it.In(dataset.QueueConflict) || it.Settled) && settlingQueue
	var others []dataset.Review
	if conflict {
		cur, err := f.t.store.CurrentReviews(f.t.life, it.EpisodeID)
		if err != nil {
			f.setStatus("Cannot read the other reviews: "+err.Error(), true)
		}
		others = cur
	}
	settling := conflict
	f.updating = true
	f.settle.SetChecked(settling)
	f.updating = false
	var start *dataset.Review
	if settling {
		for i := range others {
			if others[i].Settles {
				start = &others[i]
			}
		}
	}
	if start == nil {
		mine, err := f.t.store.MyReview(f.t.life, it.EpisodeID, f.t.reviewer())
		if err != nil {
			f.setStatus("Cannot read your review: "+err.Error(), true)
		}
		start = mine
	}
	if start != nil {
		f.outcome = start.Outcome
		if start.FailureStep != nil {
			v := *start.FailureStep
			f.failStep = &v
		}
		f.failType = start.FailureType
		f.updating = true
		f.reason.SetText(start.Reason)
		f.updating = false
	}
	f.stepFlags.load(start)
	f.labels.load(start)
	f.judge.load(start)
	f.stored, f.dirty = start != nil && start.Settles == settling, false
	if conflict {
		f.others.SetText(othersText(others))
		f.othersBox.Show()
	} else {
		f.othersBox.Hide()
	}
	f.updateHistory()
	f.refreshOutcome()
	f.refreshFailure()
	f.updateSaveText()
	f.origin.load()
	if f.labelFields != nil {
		if f.origin.exploration() {
			f.labelFields.Hide()
		} else {
			f.labelFields.Show()
		}
	}
	switch {
	case f.origin.exploration():
		f.setStatus(noOutcomeForExploration, false)
	case start != nil && start.Settles:
		f.setStatus(fmt.Sprintf("Settled by %s on %s. Saving records a new settling label.", start.Reviewer, start.CreatedAt.Local().Format("Jan 2 15:04")), false)
	case start != nil:
		f.setStatus(fmt.Sprintf("Your review of %s is loaded. Saving keeps the old one in the history.", start.CreatedAt.Local().Format("Jan 2 15:04")), false)
	default:
		f.setStatus("Pick an outcome with 1–4, then Ctrl+S (or N to save and go on).", false)
	}
}

func (f *form) updateHistory() {
	if f.t.player.ep == nil {
		f.history.SetText("")
		return
	}
	h, err := f.t.store.ReviewHistory(f.t.life, f.t.player.ep.ID, f.t.reviewer())
	if err != nil || len(h) <= 1 {
		f.history.SetText("")
		return
	}
	var lines []string
	for _, r := range h[1:] {
		lines = append(lines, fmt.Sprintf("%s: %s", r.CreatedAt.Local().Format("Jan 2 15:04:05"), ui.OutcomeName(r.Outcome)))
	}
	f.history.SetText("Your earlier versions: " + strings.Join(lines, "; "))
}

func (f *form) updateSaveText() {
	if f.settle.Checked && !f.othersBox.Hidden {
		f.saveBtn.SetText("Settle (Ctrl+S)")
	} else {
		f.saveBtn.SetText("Save (Ctrl+S)")
	}
}

// review is the form's content as a review.
func (f *form) review() dataset.Review {
	r := dataset.Review{
		EpisodeID:   f.t.player.ep.ID,
		Reviewer:    f.t.reviewer(),
		Outcome:     f.outcome,
		FailureType: f.failType,
		Reason:      f.reason.Text,
		StepFlags:   f.stepFlags.forReview(),
		StepLabels:  f.labels.forReview(),
	}
	f.judge.fill(&r)
	if f.failStep != nil {
		v := *f.failStep
		r.FailureStep = &v
	}
	return r
}

// submit saves the form and then runs then (nil: nothing). A success on an
// episode that was interrupted or whose automatic check failed asks first
// (Save anyway / Cancel); then runs only once it is saved.
func (f *form) submit(then func()) {
	if f.t.player.ep == nil {
		f.setStatus("Open an episode first: pick one in the queue or press N.", true)
		return
	}
	if f.origin.exploration() {
		f.setStatus(noOutcomeForExploration, true)
		return
	}
	if f.outcome == "" {
		f.setStatus("Pick an outcome first: keys 1–4 (success, failure, not executable, invalid task).", true)
		return
	}
	if !f.dirty && f.stored {
		f.setStatus("Nothing changed since the last save.", false)
		if then != nil {
			then()
		}
		return
	}
	if f.asking() {
		return // the warning is up: it saves or cancels
	}
	if warn := f.successWarning(); warn != "" && !f.successAcked {
		f.askSuccess(warn, then)
		return
	}
	if f.store() && then != nil {
		then()
	}
}

// store writes the form to the store; it reports whether it saved.
func (f *form) store() bool {
	settling := f.settle.Checked && !f.othersBox.Hidden
	r := f.review()
	var saved dataset.Review
	var err error
	if settling {
		saved, err = f.t.store.Settle(f.t.life, r)
	} else {
		saved, err = f.t.store.SaveReview(f.t.life, r)
	}
	if err != nil {
		msg := err.Error()
		switch {
		case errors.Is(err, dataset.ErrNeedFailureType):
			msg = "A failure needs a failure type: press T to cycle through them, or choose one in the list."
		case errors.Is(err, dataset.ErrNoReviewer):
			msg = "Set your reviewer name in Settings first: reviews are stored under it."
		}
		f.setStatus("Not saved. "+strings.ToUpper(msg[:1])+msg[1:], true)
		return false
	}
	what := "Saved your review: " + ui.OutcomeName(saved.Outcome)
	if settling {
		what = "Saved the settling label: " + ui.OutcomeName(saved.Outcome) + ". It is now the episode's outcome."
	}
	if saved.FailureStep != nil {
		what += fmt.Sprintf(" at step %d (%s)", *saved.FailureStep, failureTypeName(saved.FailureType))
	}
	f.setStatus(what+".", false)
	f.dirty, f.stored = false, true
	f.updateHistory()
	f.t.queue.afterSave()
	return true
}

// reasonEntry is the reason field. It keeps Ctrl+S working while the
// reviewer types (a focused entry would swallow it) and gives the keys back
// to the tab on Escape.
type reasonEntry struct {
	widget.Entry
	f *form
}

func newReasonEntry(f *form) *reasonEntry {
	e := &reasonEntry{f: f}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut saves on Ctrl+S and passes other shortcuts to the entry.
func (e *reasonEntry) TypedShortcut(s fyne.Shortcut) {
	if isSave(s) {
		e.f.submit(nil)
		return
	}
	e.Entry.TypedShortcut(s)
}

// TypedKey gives the keys back to the tab on Escape.
func (e *reasonEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape {
		e.f.t.unfocus()
		return
	}
	e.Entry.TypedKey(ev)
}
