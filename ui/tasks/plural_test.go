package tasks

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// rowNote is what the list row of task i says about its episodes.
func rowNote(tab *Tab, i int) string {
	o := tab.list.CreateItem()
	tab.list.UpdateItem(i, o)
	return o.(*fyne.Container).Objects[2].(*fyne.Container).Objects[0].(*widget.Label).Text
}

// Counts are written as words: "1 episode", "1 of 1 task", never "(s)".
func TestTasksTabCountsAreSingularForOne(t *testing.T) {
	tab, store, _ := newTasksFixture(t)
	tab.search.SetText("kettle")
	if len(tab.tasks) != 1 {
		t.Fatalf("tasks %v", goals(tab))
	}
	if _, err := store.CreateEpisode(t.Context(), dataset.Episode{TaskID: tab.tasks[0].ID, Annotator: "ada", Status: dataset.StatusInterrupted}); err != nil {
		t.Fatal(err)
	}
	tab.Reload()
	if got := rowNote(tab, 0); got != "not yet demonstrated · 1 episode" {
		t.Errorf("row says %q, want %q", got, "not yet demonstrated · 1 episode")
	}
	// Two of three archived: the active list counts one task.
	tab.search.SetText("")
	for _, task := range tab.tasks[1:] {
		if err := store.ArchiveTask(t.Context(), task.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	tab.Reload()
	if !strings.HasPrefix(tab.counts.Text, "Showing 1 of 1 task ·") {
		t.Errorf("counts %q, want Showing 1 of 1 task · …", tab.counts.Text)
	}
}
