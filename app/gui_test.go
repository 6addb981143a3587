package app

import (
	"path/filepath"
	"strings"
	"testing"

	"waymark/assets/practice"
	"waymark/dataset"
)

func TestPracticePackLoadsOnceAndTasksResolve(t *testing.T) {
	store, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := ensurePracticeTasks(store); err != nil {
		t.Fatal(err)
	}
	c, _ := store.CountTasks(t.Context(), dataset.TaskFilter{})
	if c.Total != len(practice.Tasks()) || c.BySource[practice.Source] != c.Total {
		t.Fatalf("%d tasks loaded (%v), want the %d of the pack", c.Total, c.BySource, len(practice.Tasks()))
	}
	// Archived or edited tasks are not brought back on the next start.
	items, _ := store.ListTasks(t.Context(), dataset.TaskFilter{})
	if err := store.ArchiveTask(t.Context(), items[0].ID, true); err != nil {
		t.Fatal(err)
	}
	if err := ensurePracticeTasks(store); err != nil {
		t.Fatal(err)
	}
	if c2, _ := store.CountTasks(t.Context(), dataset.TaskFilter{}); c2.Total != c.Total-1 {
		t.Fatalf("after a restart %d active tasks, want %d", c2.Total, c.Total-1)
	}

	p := practice.Tasks()[0]
	byKey, err := resolveTask(store, guiFlags{startTask: p.Key})
	if err != nil || byKey.Goal != p.Goal {
		t.Fatalf("by key: %+v %v", byKey, err)
	}
	byID, err := resolveTask(store, guiFlags{startTask: byKey.ID})
	if err != nil || byID.ID != byKey.ID {
		t.Fatalf("by id: %+v %v", byID, err)
	}
	adhoc, err := resolveTask(store, guiFlags{startTask: "http://127.0.0.1:1/x", goal: "Try it", category: dataset.Interaction})
	if err != nil || adhoc.Source != dataset.SourceAdhoc || adhoc.Category != dataset.Interaction || adhoc.Goal != "Try it" {
		t.Fatalf("ad hoc: %+v %v", adhoc, err)
	}
	again, err := resolveTask(store, guiFlags{startTask: "http://127.0.0.1:1/x", goal: "Try it", category: dataset.Interaction})
	if err != nil || again.ID != adhoc.ID {
		t.Fatalf("the same ad-hoc task twice: %+v %v", again, err)
	}
	if _, err := resolveTask(store, guiFlags{startTask: "nonsense"}); err == nil || !strings.Contains(err.Error(), "not a task id") {
		t.Fatalf("nonsense: %v", err)
	}
}
