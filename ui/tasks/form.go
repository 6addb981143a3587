package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// checkKinds are the automatic-check choices of the task form.
var checkKinds = []string{"none", action.CheckKindAnswer, action.CheckKindURL, action.CheckKindJS}

// expectedHint is the hint under the Expected field, and
// expectedPlaceholder its placeholder per check kind (each short enough
// to show whole in the dialog).
const expectedHint = "By the check: the accepted answers (a|b), a URL regexp, or a JS expression"

var expectedPlaceholder = map[string]string{
	"none":                 "no automatic check chosen",
	action.CheckKindAnswer: "e.g. 12|twelve",
	action.CheckKindURL:    "e.g. /order/[0-9]+/done",
	action.CheckKindJS:     "e.g. document.title === 'Done'",
}

// taskFormFields are the add/edit form's inputs.
type taskFormFields struct {
	goal, url, val *ui.DialogEntry
	cat, kind      *ui.DialogSelect
}

// taskForm builds the add/edit form filled with t; read returns the task
// it describes.
func taskForm(t dataset.Task) ([]*widget.FormItem, func() dataset.Task, *taskFormFields) {
	f := &taskFormFields{
		goal: ui.NewDialogWrapEntry(3),
		url:  ui.NewDialogEntry(),
		val:  ui.NewDialogEntry(),
		cat:  ui.NewDialogSelect(dataset.Categories, nil),
		kind: ui.NewDialogSelect(checkKinds, nil),
	}
	f.goal.SetPlaceHolder("What should be done, e.g. Find the price of the red kettle")
	f.goal.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("write the goal: what should be done on the page")
		}
		return nil
	}
	f.url.SetPlaceHolder("https://…")
	f.url.Validator = func(s string) error {
		switch {
		case strings.TrimSpace(s) == "":
			return errors.New("write the start URL: the page the task begins on, e.g. https://example.com/")
		case action.CheckURL(strings.TrimSpace(s)) != nil:
			return errors.New("the start URL is an http:// or https:// address with a host, e.g. https://example.com/")
		}
		return nil
	}
	f.val.Validator = func(s string) error {
		s = strings.TrimSpace(s)
		switch f.kind.Selected {
		case action.CheckKindAnswer:
			if s == "" {
				return errors.New("write the accepted answers, e.g. 12|twelve")
			}
		case action.CheckKindURL:
			if s == "" {
				return errors.New("write the URL pattern, e.g. /order/[0-9]+/done")
			}
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Errorf("not a regular expression: %v", err)
			}
		case action.CheckKindJS:
			if s == "" {
				return errors.New("write the JavaScript expression, e.g. document.title === 'Done'")
			}
		}
		return nil
	}
	if t.Category == "" {
		t.Category = dataset.Navigation
	}
	f.goal.SetText(t.Goal)
	f.cat.SetSelected(t.Category)
	f.url.SetText(t.StartURL)
	f.kind.OnChanged = func(k string) {
		f.val.SetPlaceHolder(expectedPlaceholder[k])
		if k == "none" {
			f.val.SetText("")
			f.val.Disable()
		} else {
			f.val.Enable()
		}
		if f.val.Text != "" {
			f.val.Validate()
		}
	}
	f.kind.SetSelected("none")
	if c := t.Check; c != nil {
		f.kind.SetSelected(c.Kind)
		f.val.SetText(c.Answer + c.URL + c.JS)
	}
	items := []*widget.FormItem{
		{Text: "Goal", Widget: f.goal, HintText: "Enter saves; Shift+Enter starts a new line"},
		{Text: "Category", Widget: f.cat},
		{Text: "Start URL", Widget: f.url},
		{Text: "Automatic check", Widget: f.kind},
		{Text: "Expected", Widget: f.val, HintText: expectedHint},
	}
	read := func() dataset.Task {
		out := t
		out.Goal, out.Category, out.StartURL = strings.TrimSpace(f.goal.Text), f.cat.Selected, strings.TrimSpace(f.url.Text)
		out.Check = nil
		v := strings.TrimSpace(f.val.Text)
		switch f.kind.Selected {
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
	return items, read, f
}

// SaveTask adds (ID empty) or updates a task from the form.
func (t *Tab) SaveTask(task dataset.Task) (dataset.Task, error) {
	if task.ID == "" {
		return t.ctx.Store.AddTask(t.life, task)
	}
	return task, t.ctx.Store.UpdateTask(t.life, task)
}

// showEdit opens the add (cur nil) or edit form. Enter saves (once every
// field is right), Escape cancels, and the goal has the keys from the
// start; a task the store refuses opens the form again with what was
// typed, under the error.
func (t *Tab) showEdit(cur *dataset.Task) {
	draft := dataset.Task{}
	if cur != nil {
		draft = *cur
	}
	t.showEditWith(cur != nil, draft)
}

func (t *Tab) showEditWith(editing bool, draft dataset.Task) {
	w := t.ctx.Window
	if w == nil {
		return
	}
	items, read, _ := taskForm(draft)
	title, ok := "Add a task", "Add"
	if editing {
		title, ok = "Edit the task", "Save"
	}
	t.editDlg = ui.ShowForm(w, title, ok, "Cancel", items, func(yes bool) {
		t.editDlg = nil
		if !yes {
			return
		}
		task := read()
		saved, err := t.SaveTask(task)
		if err != nil {
			t.showEditWith(editing, task)
			t.showErr(fmt.Errorf("the task was not saved: %w", err))
			return
		}
		t.Reload()
		t.selectTask(saved.ID)
	}, 620)
}

// selectTask selects the task with id in the list and scrolls to it, so a
// task just added or edited is in view with its details (it was added
// somewhere in the list, out of sight).
func (t *Tab) selectTask(id string) {
	for i, it := range t.tasks {
		if it.ID == id {
			t.list.Select(i)
			t.list.ScrollTo(i)
			return
		}
	}
	t.counts.SetText(t.counts.Text + " · the task saved is not shown with these filters")
}
