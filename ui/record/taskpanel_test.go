package record

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
)

// The queue has the room before the first episode (at least minQueueRows
// rows in a 1200×800 window less the main window's tab bar), folds to the
// chosen task while one records, when the timeline gets it, and after it
// shares the column with the episode's steps; a divider the person moved
// stays where they put it.
func TestRecordTabQueueFoldsWhileRecording(t *testing.T) {
	var tasks []dataset.Task
	for i := range 20 {
		tasks = append(tasks, dataset.Task{Goal: fmt.Sprintf("Task number %d", i+1), Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"})
	}
	f := openRecordFixture(t, tasks)
	f.win.Resize(fyne.NewSize(1200, 800-40))
	r := f.tab
	if n := r.QueueRowsShown(); n < minQueueRows || r.QueueFolded() {
		t.Fatalf("before any episode the queue shows %d rows (folded %v), want at least %d", n, r.QueueFolded(), minQueueRows)
	}
	r.StartTask(f.task)
	f.loop.until(t, "the episode to start", func() bool { return r.life.state == stRecording && len(r.steps.rows) == 1 })
	col := r.panel.split.Size().Height
	if !r.QueueFolded() || r.panel.queue.Visible() || r.panel.catSel.Visible() || r.panel.taskBtns.Visible() {
		t.Fatal("while recording the queue must fold to the chosen task")
	}
	if h := r.steps.list.Size().Height; h < col/2 {
		t.Fatalf("while recording the timeline is %.0f high in a %.0f column, want at least half", h, col)
	}
	if !strings.Contains(r.panel.goal.Text, "Task number 1") || r.panel.panelHead.Text != "Recording" {
		t.Fatalf("the folded panel shows %q under %q", r.panel.goal.Text, r.panel.panelHead.Text)
	}
	if err := r.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return r.life.state == stEnded })
	if r.QueueFolded() || !r.panel.queue.Visible() {
		t.Fatal("after the episode the queue must unfold")
	}
	// After an episode its steps keep room for their rows whole (up to
	// minStepRows, to continue from one), the queue the rest.
	if n := r.QueueRowsShown(); n < 3 {
		t.Fatalf("after an episode the queue shows %d rows, want at least 3", n)
	}
	if h, want := r.steps.list.Size().Height, float32(len(r.steps.rows))*r.steps.rowPitch()-4; h < want {
		t.Fatalf("after an episode its %d steps get %.0f, want %.0f", len(r.steps.rows), h, want)
	}
	// The person moves the divider between episodes; it stays through the
	// next episode.
	r.panel.split.SetOffset(0.3)
	r.StartTask(f.task)
	f.loop.until(t, "the second episode", func() bool { return r.life.state == stRecording })
	if r.panel.split.Offset != 0 {
		t.Fatalf("recording offset %v, want 0 (details at their minimum)", r.panel.split.Offset)
	}
	r.life.discard()
	f.loop.until(t, "the discard", func() bool { return r.life.state == stEnded })
	if r.panel.split.Offset != 0.3 {
		t.Fatalf("offset %v after the episode, want the 0.3 the person chose", r.panel.split.Offset)
	}
}

// Changing the category filter never leaves Start recording a task the list
// does not show as chosen.
func TestRecordTabFilterChangeKeepsListAndStartInStep(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{
		{Goal: "Find the opening hours", Category: dataset.Information, StartURL: "http://127.0.0.1:9/a", Source: "test"},
		{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"},
	})
	if f.tab.panel.task == nil || f.tab.panel.task.Goal != "Find the opening hours" {
		t.Fatalf("chosen at start: %+v", f.tab.panel.task)
	}
	f.tab.panel.catSel.SetSelected(dataset.Navigation)
	if len(f.tab.panel.tasks) != 1 || f.tab.panel.tasks[0].Goal != "Open the returns page" {
		t.Fatalf("filtered list: %+v", f.tab.panel.tasks)
	}
	if f.tab.panel.task == nil || f.tab.panel.task.Goal != "Open the returns page" || f.tab.panel.goal.Text != "Open the returns page" {
		t.Fatalf("after the filter change Start would record %+v (details show %q), the list shows only the returns page", f.tab.panel.task, f.tab.panel.goal.Text)
	}
	f.tab.panel.catSel.SetSelected(dataset.Interaction)
	if f.tab.panel.task != nil {
		t.Fatalf("an empty list still has a task for Start: %+v", f.tab.panel.task)
	}
	f.tab.startChosen()
	if f.tab.life.state == stRecording || f.tab.life.state == stStarting {
		t.Fatal("Start recorded a task the list does not show")
	}
}

// An ad-hoc task saved twice (the same goal and start URL) is one task; one
// that cannot be saved says so.
func TestRecordTabAdhocTaskSavedOnce(t *testing.T) {
	f := openRecordFixture(t, nil)
	a, err := f.tab.panel.saveAdhoc("Find the red kettle", dataset.Navigation, "http://127.0.0.1:9/shop")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.tab.panel.saveAdhoc("Find the red kettle", dataset.Navigation, "http://127.0.0.1:9/shop")
	if err != nil || b.ID != a.ID {
		t.Fatalf("saved again: %+v, %v; want the task %s", b, err, a.ID)
	}
	if a.Source != dataset.SourceAdhoc {
		t.Fatalf("source %q", a.Source)
	}
	if _, err := f.tab.panel.saveAdhoc("Find it", dataset.Navigation, "not an address"); err == nil || !strings.HasPrefix(err.Error(), "the task was not saved") {
		t.Fatalf("a task with no valid start URL: %v", err)
	}
}
