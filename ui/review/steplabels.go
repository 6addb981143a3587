package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// stepLabelChoices are the radio options in dataset.StepLabelNames order,
// with their keys.
var stepLabelChoices = []string{"Correct (C)", "Wrong (W)", "Unnecessary (X)"}

// stepLabelKeys maps a key to the label it gives the step shown.
var stepLabelKeys = map[fyne.KeyName]string{
	fyne.KeyC: dataset.StepCorrect,
	fyne.KeyW: dataset.StepWrong,
	fyne.KeyX: dataset.StepUnnecessary,
}

// stepLabels is the form's per-step correctness: the reviewer's label of
// each action step (correct, wrong, unnecessary), saved with the review.
// A key gives the step shown its label; the same key again clears it.
type stepLabels struct {
	f *form
	// labels maps a step index (1…) to its label; steps not in it are
	// unlabelled.
	labels   map[int]string
	title    *widget.Label
	radio    *widget.RadioGroup
	updating bool
}

func (s *stepLabels) init(f *form) {
	s.f = f
	s.labels = map[int]string{}
	s.title = widget.NewLabel("Label of the step shown:")
	s.radio = widget.NewRadioGroup(stepLabelChoices, func(choice string) {
		if s.updating {
			return
		}
		label := ""
		if i := slices.Index(stepLabelChoices, choice); i >= 0 {
			label = dataset.StepLabelNames[i]
		}
		s.set(label)
		f.t.unfocus()
	})
}

func (s *stepLabels) build() fyne.CanvasObject {
	return container.NewVBox(s.title, s.radio)
}

// load shows a stored review's labels (nil: none).
func (s *stepLabels) load(r *dataset.Review) {
	s.labels = map[int]string{}
	if r != nil {
		maps.Copy(s.labels, r.StepLabels)
	}
	s.refresh()
}

// forReview returns a copy of the labels for a review to save.
func (s *stepLabels) forReview() map[int]string { return maps.Clone(s.labels) }

// toggle gives the step shown the label, or clears it when it has it
// already (keys C, W, X).
func (s *stepLabels) toggle(label string) {
	if s.f.t.player.ep == nil {
		return
	}
	if s.labels[s.f.t.player.cur] == label {
		label = ""
	}
	s.set(label)
	s.refresh()
}

// set labels the step shown ("" clears its label).
func (s *stepLabels) set(label string) {
	k := s.f.t.player.cur
	if k < 1 {
		s.f.setStatus("Step 0 is the page the episode started on: only actions (step 1 and later) get a label.", true)
		s.refresh()
		return
	}
	if label == "" {
		delete(s.labels, k)
	} else {
		s.labels[k] = label
	}
	s.f.dirty = true
	s.f.t.player.stepList.RefreshItem(k)
}

// refresh shows the label of the step shown.
func (s *stepLabels) refresh() {
	s.updating = true
	defer func() { s.updating = false }()
	k := s.f.t.player.cur
	s.title.SetText(fmt.Sprintf("Label of step %d:", k))
	if i := slices.Index(dataset.StepLabelNames, s.labels[k]); i >= 0 && k >= 1 {
		s.radio.SetSelected(stepLabelChoices[i])
	} else {
		s.radio.SetSelected("")
	}
	if k < 1 {
		s.radio.Disable()
	} else {
		s.radio.Enable()
	}
}

// rowText is what the step list shows of step k's label ("" for none).
func (s *stepLabels) rowText(k int) string {
	if l := s.labels[k]; l != "" {
		return "marked " + l
	}
	return ""
}

// labelsText summarises a review's step labels for the other reviews'
// list ("" for none): "steps 1, 2 correct; 3 wrong".
func labelsText(labels map[int]string) string {
	var parts []string
	for _, name := range dataset.StepLabelNames {
		var steps []string
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			if labels[k] == name {
				steps = append(steps, fmt.Sprint(k))
			}
		}
		if len(steps) > 0 {
			parts = append(parts, strings.Join(steps, ", ")+" "+name)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "steps " + strings.Join(parts, "; ")
}
