package review

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// judgeFields are the form's answers to what AgentRewardBench asks of an
// expert beside the outcome (did the episode cause an unwanted side
// effect, did it loop, how optimal was it) and the key screenshots a judge
// needs (WebJudge's). Keys: E cycles the side effect (no, yes, unsure,
// unanswered), L the looping, O the optimality (1–4, unanswered), K marks
// the step shown as a key screenshot (again: unmarks it).
type judgeFields struct {
	f *form

	sideEffect, looping string
	optimality          int
	keySteps            map[int]bool

	sideRadio, loopRadio *widget.RadioGroup
	optSel               *widget.Select
	keyCheck             *widget.Check
	updating             bool
}

// judgeAnswerLabels are the radios' choices, in dataset.JudgeAnswers order.
var judgeAnswerLabels = []string{"No", "Yes", "Unsure"}

func optimalityLabel(n int) string {
	return fmt.Sprintf("%d %s", n, dataset.OptimalityNames[n-1])
}

func (j *judgeFields) init(f *form) {
	j.f = f
	j.keySteps = map[int]bool{}
	answer := func(dst *string) func(string) {
		return func(s string) {
			if j.updating {
				return
			}
			*dst = ""
			if i := slices.Index(judgeAnswerLabels, s); i >= 0 {
				*dst = dataset.JudgeAnswers[i]
			}
			f.dirty = true
			f.t.unfocus()
		}
	}
	j.sideRadio = widget.NewRadioGroup(judgeAnswerLabels, answer(&j.sideEffect))
	j.sideRadio.Horizontal = true
	j.loopRadio = widget.NewRadioGroup(judgeAnswerLabels, answer(&j.looping))
	j.loopRadio.Horizontal = true
	var opts []string
	for n := 1; n <= len(dataset.OptimalityNames); n++ {
		opts = append(opts, optimalityLabel(n))
	}
	j.optSel = widget.NewSelect(opts, func(s string) {
		if j.updating {
			return
		}
		j.optimality, _ = strconv.Atoi(strings.SplitN(s, " ", 2)[0])
		f.dirty = true
		f.t.unfocus()
	})
	j.optSel.PlaceHolder = "(unanswered; O cycles)"
	j.keyCheck = widget.NewCheck("Key screenshot (K)", func(on bool) {
		if !j.updating {
			j.setKey(f.t.player.cur, on)
			f.t.unfocus()
		}
	})
}

func (j *judgeFields) build() fyne.CanvasObject {
	return container.NewVBox(
		container.NewBorder(nil, nil, widget.NewLabel("Side effect (E)"), nil, j.sideRadio),
		container.NewBorder(nil, nil, widget.NewLabel("Looping (L)"), nil, j.loopRadio),
		container.NewBorder(nil, nil, widget.NewLabel("Optimality (O)"), nil, j.optSel),
		j.keyCheck,
	)
}

// load shows a stored review's answers (nil: none).
func (j *judgeFields) load(r *dataset.Review) {
	j.sideEffect, j.looping, j.optimality = "", "", 0
	j.keySteps = map[int]bool{}
	if r != nil {
		j.sideEffect, j.looping, j.optimality = r.SideEffect, r.Looping, r.Optimality
		for _, k := range r.KeySteps {
			j.keySteps[k] = true
		}
	}
	j.refresh()
}

// fill puts the answers in a review to save.
func (j *judgeFields) fill(r *dataset.Review) {
	r.SideEffect, r.Looping, r.Optimality = j.sideEffect, j.looping, j.optimality
	r.KeySteps = nil
	for k, on := range j.keySteps {
		if on {
			r.KeySteps = append(r.KeySteps, k)
		}
	}
	slices.Sort(r.KeySteps)
}

// refresh shows the answers, and whether the step shown is a key one.
func (j *judgeFields) refresh() {
	j.updating = true
	defer func() { j.updating = false }()
	show := func(rg *widget.RadioGroup, v string) {
		if i := slices.Index(dataset.JudgeAnswers, v); i >= 0 {
			rg.SetSelected(judgeAnswerLabels[i])
		} else {
			rg.SetSelected("")
		}
	}
	show(j.sideRadio, j.sideEffect)
	show(j.loopRadio, j.looping)
	if j.optimality > 0 {
		j.optSel.SetSelected(optimalityLabel(j.optimality))
	} else {
		j.optSel.ClearSelected()
	}
	cur := 0
	if j.f.t.player.ep != nil {
		cur = j.f.t.player.cur
	}
	j.keyCheck.SetChecked(j.keySteps[cur])
	j.keyCheck.Text = fmt.Sprintf("Step %d is a key screenshot (K)", cur)
	j.keyCheck.Refresh()
}

// cycle returns the answer after v: no, yes, unsure, unanswered.
func cycle(v string) string {
	i := slices.Index(dataset.JudgeAnswers, v)
	if i+1 >= len(dataset.JudgeAnswers) {
		return ""
	}
	return dataset.JudgeAnswers[i+1]
}

func (j *judgeFields) setKey(k int, on bool) {
	if on {
		j.keySteps[k] = true
	} else {
		delete(j.keySteps, k)
	}
	j.f.dirty = true
	j.f.t.player.stepList.RefreshItem(k)
}

// typedKey handles E, L, O and K; it reports whether the key was one of
// them.
func (j *judgeFields) typedKey(k fyne.KeyName) bool {
	switch k {
	case fyne.KeyE, fyne.KeyL, fyne.KeyO, fyne.KeyK:
	default:
		return false
	}
	if j.f.t.player.ep == nil {
		return true
	}
	switch k {
	case fyne.KeyE:
		j.sideEffect = cycle(j.sideEffect)
	case fyne.KeyL:
		j.looping = cycle(j.looping)
	case fyne.KeyO:
		j.optimality = (j.optimality + 1) % (len(dataset.OptimalityNames) + 1)
	case fyne.KeyK:
		cur := j.f.t.player.cur
		j.setKey(cur, !j.keySteps[cur])
	}
	j.f.dirty = true
	j.refresh()
	return true
}
