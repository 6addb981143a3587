package ui

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// The "Cut a task out of the exploration" dialog, one for every screen
// that cuts (the Record screen's timeline, Review's exploration): the
// span of the exploration's steps (first and last, kept in order), the
// instruction, the category, the key points and, for an information task,
// the answer (required).

// CutStep is a step of an exploration a span may hold.
type CutStep struct {
	Index int    // the exploration's step number
	Text  string // how the step reads (its action)
}

// CutDialog is an open cut dialog.
type CutDialog struct {
	D           *FormDialog
	From, To    *DialogSelect
	Instruction *DialogEntry
	Category    *DialogSelect
	KeyPoints   *DialogEntry
	Answer      *DialogEntry
	steps       map[string]int // each choice's step number
	exploration string
	editor      string
}

// ShowCutDialog asks which span of exploration's steps to cut as a task
// and what it did: the first step is first (a step number; the first of
// steps when none of them has it), the last the last of steps. When the
// dialog closes, done gets the cut (made by editor) the person confirmed,
// or nil when they cancelled.
func ShowCutDialog(w fyne.Window, exploration, editor string, steps []CutStep, first int, done func(*dataset.CutSpec)) *CutDialog {
	f := &CutDialog{steps: map[string]int{}, exploration: exploration, editor: editor}
	var labels []string
	for _, s := range steps {
		l := fmt.Sprintf("%d · %s", s.Index, s.Text)
		labels = append(labels, l)
		f.steps[l] = s.Index
	}
	f.From, f.To = NewDialogSelect(labels, nil), NewDialogSelect(labels, nil)
	if len(labels) > 0 {
		f.From.SetSelected(labels[0])
		f.To.SetSelected(labels[len(labels)-1])
	}
	for _, l := range labels {
		if f.steps[l] == first {
			f.From.SetSelected(l)
		}
	}
	f.Instruction = NewDialogWrapEntry(2)
	f.Instruction.SetPlaceHolder("What the span did, as a task, e.g. Find the price of the red kettle")
	f.Instruction.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("write the instruction: what these steps accomplished")
		}
		return nil
	}
	f.Category = NewDialogSelect(dataset.Categories, nil)
	f.Category.SetSelected(dataset.Navigation)
	f.KeyPoints = NewDialogWrapEntry(3)
	f.KeyPoints.SetPlaceHolder("One a line. Checked: url: /cart · text: Added to cart · \"Added to cart\". Others are listed for reviewers.")
	f.Answer = NewDialogEntry()
	f.Answer.SetPlaceHolder("What the span found out (information tasks)")
	f.Answer.Validator = func(s string) error {
		if f.Category.Selected == dataset.Information && strings.TrimSpace(s) == "" {
			return errors.New("an information task needs its answer")
		}
		return nil
	}
	f.From.OnChanged = func(string) { f.order(true) }
	f.To.OnChanged = func(string) { f.order(false) }
	f.D = ShowForm(w, "Cut a task out of the exploration", "Cut and check", "Cancel", []*widget.FormItem{
		{Text: "First step", Widget: f.From},
		{Text: "Last step", Widget: f.To, HintText: "Spans may overlap; the start page is the one the step before the first led to"},
		{Text: "Instruction", Widget: f.Instruction},
		{Text: "Category", Widget: f.Category},
		{Text: "Key points", Widget: f.KeyPoints},
		{Text: "Answer", Widget: f.Answer},
	}, func(ok bool) {
		if done == nil {
			return
		}
		if !ok {
			done(nil)
			return
		}
		spec := f.Spec()
		done(&spec)
	}, 560)
	return f
}

// Step is the step number of span choice label (0 when it is none).
func (f *CutDialog) Step(label string) int { return f.steps[label] }

// order keeps the first step at or before the last.
func (f *CutDialog) order(fromChanged bool) {
	if f.steps[f.From.Selected] <= f.steps[f.To.Selected] {
		return
	}
	if fromChanged {
		f.To.SetSelected(f.From.Selected)
	} else {
		f.From.SetSelected(f.To.Selected)
	}
}

// Spec is the cut the form describes.
func (f *CutDialog) Spec() dataset.CutSpec {
	var kps []string
	for _, l := range strings.Split(f.KeyPoints.Text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			kps = append(kps, l)
		}
	}
	return dataset.CutSpec{ExplorationID: f.exploration, From: f.Step(f.From.Selected), To: f.Step(f.To.Selected),
		Instruction: f.Instruction.Text, Category: f.Category.Selected, KeyPoints: kps, Answer: f.Answer.Text, Editor: f.editor}
}
