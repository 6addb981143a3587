package review

import (
	"slices"
	"strconv"

	"waymark/dataset"
)

// The label form's outcome and first failure: keys 1–4 pick the outcome
// (none for an exploration), F makes the step shown the first failing
// step and T steps through the failure types; the radio and the failure
// choices show what was picked.

// noOutcomeForExploration says why an exploration is not labelled.
const noOutcomeForExploration = "An exploration has no goal, so no outcome to label: review the tasks cut from it (listed under it in the queue)."

// pickOutcome chooses outcome i of dataset.Outcomes (keys 1–4).
func (f *form) pickOutcome(i int) {
	if f.t.player.ep == nil || i < 0 || i >= len(dataset.Outcomes) {
		return
	}
	if f.origin.exploration() {
		f.setStatus(noOutcomeForExploration, true)
		return
	}
	if f.outcome != dataset.Outcomes[i] {
		f.successAcked = false // a new choice of success is asked about again
	}
	f.outcome = dataset.Outcomes[i]
	f.dirty = true
	if f.outcome == dataset.OutcomeFailure && f.failStep == nil {
		v := f.t.player.cur
		f.failStep = &v
	}
	f.refreshOutcome()
	f.refreshFailure()
	f.t.player.stepList.Refresh()
}

// markFailingStep makes the step shown the first failing step (key F),
// picking failure when another outcome was chosen.
func (f *form) markFailingStep() {
	if f.t.player.ep == nil || f.origin.exploration() {
		return
	}
	v := f.t.player.cur
	f.failStep = &v
	if f.outcome != dataset.OutcomeFailure {
		f.pickOutcome(1)
		return
	}
	f.dirty = true
	f.refreshFailure()
	f.t.player.stepList.Refresh()
}

// stepChanged is called when the player shows another step: the flag
// boxes show the new step's flags. The first failing step stays as it was
// set: a label changes only when the reviewer changes it.
func (f *form) stepChanged(int) {
	f.stepFlags.refresh()
	f.labels.refresh()
	f.judge.refresh()
}

// cycleFailureType steps through the failure types (key T); it picks
// failure when another outcome was chosen.
func (f *form) cycleFailureType() {
	if f.t.player.ep == nil || f.origin.exploration() {
		return
	}
	if f.outcome != dataset.OutcomeFailure {
		f.pickOutcome(1)
	}
	i := slices.Index(dataset.FailureTypes, f.failType)
	f.failType = dataset.FailureTypes[(i+1)%len(dataset.FailureTypes)]
	f.dirty = true
	f.refreshFailure()
}

func (f *form) refreshOutcome() {
	f.updating = true
	defer func() { f.updating = false }()
	if i := slices.Index(dataset.Outcomes, f.outcome); i >= 0 {
		f.outcomeRadio.SetSelected(outcomeLabels[i])
	} else {
		f.outcomeRadio.SetSelected("")
	}
}

func (f *form) refreshFailure() {
	if f.failBox == nil {
		return
	}
	f.updating = true
	defer func() { f.updating = false }()
	if f.outcome != dataset.OutcomeFailure {
		f.failBox.Hide()
		return
	}
	var opts []string
	for i := range f.t.player.steps {
		opts = append(opts, "step "+strconv.Itoa(i))
	}
	f.failStepSel.SetOptions(opts)
	if f.failStep != nil {
		f.failStepSel.SetSelected("step " + strconv.Itoa(*f.failStep))
	}
	if f.failType != "" {
		f.failTypeSel.SetSelected(failureTypeName(f.failType))
	} else {
		f.failTypeSel.ClearSelected()
	}
	f.failBox.Show()
}
