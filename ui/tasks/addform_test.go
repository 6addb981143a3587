package tasks

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// deliver hands keys and runes over as the desktop driver does: to the
// focused widget, else to the window (where typing is lost).
func deliverKey(c fyne.Canvas, k fyne.KeyName) {
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: k})
	} else if h := c.OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
	}
}

func deliverText(c fyne.Canvas, s string) {
	for _, r := range s {
		if f := c.Focused(); f != nil {
			f.TypedRune(r)
		} else if h := c.OnTypedRune(); h != nil {
			h(r)
		}
	}
}

// Tasks → Add… takes the keyboard from the start: typing goes into the
// goal, Escape cancels (in a field and outside), Tab moves on, Enter adds
// the task once goal and start URL are right, and says what is missing
// otherwise.
func TestAddTaskDialogKeys(t *testing.T) {
	tab, store, _ := newTasksFixture(t)
	c := tab.ctx.Window.Canvas()
	open := func() {
		t.Helper()
		tab.showEdit(nil)
		if c.Overlays().Top() == nil {
			t.Fatal("no Add dialog")
		}
	}
	open()
	deliverText(c, "Find")
	if c.Focused() == nil {
		t.Fatal("the Add dialog opened with nothing focused: typing is lost")
	}
	deliverKey(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil {
		t.Fatal("Escape in the goal did not close the Add dialog")
	}
	open()
	c.Unfocus()
	deliverKey(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil {
		t.Fatal("Escape outside the fields did not close the Add dialog")
	}
	if n, _ := store.CountTasks(t.Context(), dataset.TaskFilter{}); n.Total != 3 {
		t.Fatalf("cancelled dialogs stored tasks: %d", n.Total)
	}

	open()
	deliverText(c, "Find the blue kettle")
	deliverKey(c, fyne.KeyReturn) // no start URL yet
	if c.Overlays().Top() == nil {
		t.Fatal("Enter without a start URL closed the dialog")
	}
	url, ok := c.Focused().(*ui.DialogEntry)
	if !ok || url.PlaceHolder != "https://…" {
		t.Fatalf("after Enter without a start URL the focus is on %T, not the start URL", c.Focused())
	}
	deliverText(c, "http://shop.test/kettles")
	deliverKey(c, fyne.KeyReturn)
	if c.Overlays().Top() != nil {
		t.Fatal("Enter with goal and start URL did not add the task")
	}
	found := false
	for _, it := range tab.tasks {
		if it.Goal == "Find the blue kettle" && it.StartURL == "http://shop.test/kettles" && it.Category == dataset.Navigation {
			found = true
		}
	}
	if !found {
		t.Fatalf("the task was not added: %v", goals(tab))
	}
	// The task added is the one selected, its details shown.
	if cur := tab.current(); cur == nil || cur.Goal != "Find the blue kettle" || !strings.Contains(tab.detail.Text, "Find the blue kettle") {
		t.Errorf("after Add the list shows %+v selected, details %q", cur, tab.detail.Text)
	}
}

// The Expected field's placeholder shows whole for every check kind (it
// was cut, with a scroll bar, at "…JS expressic").
func TestAddTaskExpectedPlaceholderFits(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(1200, 800))
	items, _, f := taskForm(dataset.Task{})
	ui.ShowForm(w, "Add a task", "Add", "Cancel", items, func(bool) {}, 620)
	for _, k := range checkKinds {
		f.kind.SetSelected(k)
		ph := f.val.PlaceHolder
		if ph == "" {
			t.Fatalf("no placeholder for %s", k)
		}
		need := fyne.MeasureText(ph, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
		if have := f.val.Size().Width; need > have {
			t.Errorf("check %s: placeholder %q needs %.0f, the field is %.0f wide", k, ph, need, have)
		}
	}
	f.kind.SetSelected(action.CheckKindURL)
	f.val.SetText("(")
	if f.val.Validate() == nil {
		t.Error("an URL check with a pattern that is no regular expression passes")
	}
}
