package review

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// stepFlags is the form's flags on steps: a mistake (M) or an unnecessary
// detour (U), any number per step, saved with the review. The check boxes
// show the flags of the step shown.
type stepFlags struct {
	f *form
	// byStep maps a step index to its flags.
	byStep      map[int][]string
	mistake     *widget.Check
	unnecessary *widget.Check
	title       *widget.Label
	updating    bool
}

func (s *stepFlags) init(f *form) {
	s.f = f
	s.byStep = map[int][]string{}
	s.mistake = widget.NewCheck("Mistake (M)", func(on bool) {
		if !s.updating {
			s.set(dataset.FlagMistake, on)
			f.t.unfocus()
		}
	})
	s.unnecessary = widget.NewCheck("Unnecessary (U)", func(on bool) {
		if !s.updating {
			s.set(dataset.FlagUnnecessary, on)
			f.t.unfocus()
		}
	})
	s.title = widget.NewLabel("Flags on the step shown:")
}

func (s *stepFlags) build() fyne.CanvasObject {
	return container.NewVBox(s.title, container.NewHBox(s.mistake, s.unnecessary))
}

// load shows a stored review's flags (nil: none).
func (s *stepFlags) load(r *dataset.Review) {
	s.byStep = map[int][]string{}
	if r != nil {
		for k, v := range r.StepFlags {
			s.byStep[k] = slices.Clone(v)
		}
	}
	s.refresh()
}

// forReview returns a copy of the flags for a review to save.
func (s *stepFlags) forReview() map[int][]string {
	out := map[int][]string{}
	for k, v := range s.byStep {
		out[k] = slices.Clone(v)
	}
	return out
}

// refresh shows the flags of the step shown.
func (s *stepFlags) refresh() {
	s.updating = true
	defer func() { s.updating = false }()
	k := s.f.t.player.cur
	fl := s.byStep[k]
	s.mistake.SetChecked(slices.Contains(fl, dataset.FlagMistake))
	s.unnecessary.SetChecked(slices.Contains(fl, dataset.FlagUnnecessary))
	s.title.SetText(fmt.Sprintf("Flags on step %d:", k))
}

// toggle flips a flag on the step shown (keys M, U).
func (s *stepFlags) toggle(flag string) {
	if s.f.t.player.ep == nil {
		return
	}
	s.set(flag, !slices.Contains(s.byStep[s.f.t.player.cur], flag))
	s.refresh()
}

func (s *stepFlags) set(flag string, on bool) {
	k := s.f.t.player.cur
	fl := slices.DeleteFunc(slices.Clone(s.byStep[k]), func(x string) bool { return x == flag })
	if on {
		fl = append(fl, flag)
	}
	s.f.dirty = true
	if len(fl) == 0 {
		delete(s.byStep, k)
	} else {
		s.byStep[k] = fl
	}
	s.f.t.player.stepList.RefreshItem(k)
}
