package tasks

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
)

// checkKinds are the automatic-check choices of the task form.
var checkKinds = []string{"none", action.CheckKindAnswer, action.CheckKindURL, action.CheckKindJS}

// taskForm builds the add/edit form; read returns the task it describes.
func taskForm(cur *dataset.Task) ([]*widget.FormItem, func() dataset.Task) {
	goal := widget.NewMultiLineEntry()
	goal.Wrapping = fyne.TextWrapWord
	goal.SetMinRowsVisible(3)
	cat := widget.NewSelect(dataset.Categories, nil)
	url := widget.NewEntry()
	url.SetPlaceHolder("https://…")
	kind := widget.NewSelect(checkKinds, nil)
	val := widget.NewEntry()
	val.SetPlaceHolder("expected answer (a|b for alternatives), URL regexp, or JS expression")
	t := dataset.Task{Category: dataset.Navigation}
	if cur != nil {
		t = *cur
	}
	goal.SetText(t.Goal)
	cat.SetSelected(t.Category)
	url.SetText(t.StartURL)
	kind.SetSelected("none")
	if c := t.Check; c != nil {
		kind.SetSelected(c.Kind)
		val.SetText(c.Answer + c.URL + c.JS)
	}
	items := []*widget.FormItem{
		{Text: "Goal", Widget: goal},
		{Text: "Category", Widget: cat},
		{Text: "Start URL", Widget: url},
		{Text: "Automatic check", Widget: kind},
		{Text: "Expected", Widget: val, HintText: "answer, URL pattern or JavaScript, by the check's kind"},
	}
	read := func() dataset.Task {
		out := t
		out.Goal, out.Category, out.StartURL = goal.Text, cat.Selected, url.Text
		out.Check = nil
		v := strings.TrimSpace(val.Text)
		switch kind.Selected {
		case action.CheckKindAnswer:
			out.Check = &action.Check{Kind: action.CheckKindAnswer, Answer: v}
		case action.CheckKindURL:
			out.Check = &action.Check{Kind: action.CheckKindURL, URL: v}
		case action.CheckKindJS:
			out.Check = &action.Check{Kind: action.CheckKindJS, JS: v}
		}
		if out.Source == "" {
			out.Source = "manual"
		}
		return out
	}
	return items, read
}

// SaveTask adds (ID empty) or updates a task from the form.
func (t *Tab) SaveTask(task dataset.Task) (dataset.Task, error) {
	if task.ID == "" {
		return t.ctx.Store.AddTask(context.Background(), task)
	}
	return task, t.ctx.Store.UpdateTask(context.Background(), task)
}

func (t *Tab) showEdit(cur *dataset.Task) {
	if t.ctx.Window == nil {
		return
	}
	items, read := taskForm(cur)
	title, ok := "Add a task", "Add"
	if cur != nil {
		title, ok = "Edit the task", "Save"
	}
	d := dialog.NewForm(title, ok, "Cancel", items, func(yes bool) {
		if !yes {
			return
		}
		task := read()
		if _, err := t.SaveTask(task); err != nil {
			t.showErr(fmt.Errorf("the task was not saved: %w", err))
			return
		}
		t.Reload()
	}, t.ctx.Window)
	d.Resize(fyne.NewSize(620, 0))
	d.Show()
}
