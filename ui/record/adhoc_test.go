package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
)

// The ad-hoc task dialog takes Enter (save and start) and Escape (cancel)
// in its fields; an empty goal is refused with the dialog still open and
// what was typed kept; a task the store refuses comes back with its text.
func TestAdhocDialogKeys(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	c := f.win.Canvas()
	adhocs := func() int {
		items, err := f.store.ListTasks(t.Context(), dataset.TaskFilter{Source: dataset.SourceAdhoc})
		if err != nil {
			t.Fatal(err)
		}
		return len(items)
	}

	// Escape in the goal cancels.
	f.tab.panel.showAdhoc()
	a := f.tab.panel.adhoc
	if a == nil || c.Focused() != a.goal {
		t.Fatal("the ad-hoc dialog did not open with the goal focused")
	}
	test.Type(a.goal, "Find the kettle")
	a.goal.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil || f.tab.panel.adhoc != nil {
		t.Fatal("Escape did not close the ad-hoc dialog")
	}

	// Enter with an empty goal: refused, the dialog and the URL stay.
	f.tab.panel.showAdhoc()
	a = f.tab.panel.adhoc
	test.Type(a.url, "http://127.0.0.1:9/kettle")
	a.url.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Overlays().Top() == nil || f.tab.panel.adhoc != a || a.url.Text != "http://127.0.0.1:9/kettle" || adhocs() != 0 {
		t.Fatalf("an empty goal was not refused in place: dialog %v, url %q, %d ad-hoc tasks", c.Overlays().Top() != nil, a.url.Text, adhocs())
	}

	// An empty or bad start URL: refused in place, with a sentence under
	// the field that says what to write.
	c.Focus(a.goal)
	test.Type(a.goal, "Find the kettle")
	for _, bad := range []string{"", "not a url", "javascript:alert(1)"} {
		a.url.SetText(bad)
		a.goal.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		if c.Overlays().Top() == nil || f.tab.panel.adhoc != a || adhocs() != 0 || strings.Contains(overlayText(f), "Error") {
			t.Fatalf("the start URL %q was not refused in place: %q", bad, overlayText(f))
		}
		if err := a.url.Validate(); err == nil || !strings.Contains(err.Error(), "https://") {
			t.Errorf("the start URL %q: the field says %v", bad, err)
		}
	}

	// A task the store refuses (a goal over its limit): the error, then
	// the dialog again with the text.
	long := strings.Repeat("kettle ", 600)
	a.goal.SetText(long)
	a.url.SetText("http://127.0.0.1:9/kettle")
	a.goal.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if !strings.Contains(overlayText(f), "characters long") || adhocs() != 0 {
		t.Fatalf("a goal over the limit was not refused: %q", overlayText(f))
	}
	typeKey(f, fyne.KeyReturn) // closes the error
	b := f.tab.panel.adhoc
	if b == nil || b == a || b.goal.Text != long || b.url.Text != "http://127.0.0.1:9/kettle" || c.Overlays().Top() == nil {
		t.Fatalf("the refused task's text did not come back: %+v", b)
	}

	// Shift+Enter in the goal starts a new line: the dialog stays open,
	// nothing is saved, and the typing after it stays in the goal.
	b.goal.SetText("Find the kettle")
	b.goal.CursorColumn = len("Find the kettle")
	c.Focus(b.goal)
	b.goal.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	b.goal.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	b.goal.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	if c.Overlays().Top() == nil || f.tab.panel.adhoc != b || adhocs() != 0 {
		t.Fatalf("Shift+Enter closed the dialog (%d ad-hoc tasks)", adhocs())
	}
	test.Type(b.goal, "and read it")
	if b.goal.Text != "Find the kettle\nand read it" {
		t.Fatalf("after Shift+Enter the goal is %q", b.goal.Text)
	}
	b.goal.SetText("Find the kettle")

	// Enter in the goal saves and starts.
	c.Focus(b.goal)
	b.goal.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Overlays().Top() != nil || adhocs() != 1 || f.tab.panel.task == nil || f.tab.panel.task.Goal != "Find the kettle" {
		t.Fatalf("Enter did not save and start: %d ad-hoc tasks, task %+v", adhocs(), f.tab.panel.task)
	}
	f.loop.until(t, "the episode to start", func() bool { return f.tab.life.state == stRecording })
}
