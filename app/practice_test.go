package app

import (
	"path/filepath"
	"strings"
	"testing"

	"waymark/assets/practice"
	"waymark/dataset"
)

func TestEnsurePracticeTasksLoadsOnceAndAddsNewOnes(t *testing.T) {
	st, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pack := practice.Tasks()
	count := func() int {
		t.Helper()
		items, err := st.ListTasks(t.Context(), dataset.TaskFilter{Source: practice.Source})
		if err != nil {
			t.Fatal(err)
		}
		return len(items)
	}
	if err := ensurePracticeTasks(st); err != nil {
		t.Fatal(err)
	}
	if got := count(); got != len(pack) {
		t.Fatalf("first run: %d practice tasks stored, want %d", got, len(pack))
	}
	// The user deletes one task; an older store knew only part of the pack.
	gone := pack[0]
	have, ok, err := st.FindTask(t.Context(), gone.Goal, gone.StartURL)
	if err != nil || !ok {
		t.Fatalf("find %s: ok=%v err=%v", gone.Key, ok, err)
	}
	if err := st.DeleteTask(t.Context(), have.ID); err != nil {
		t.Fatal(err)
	}
	newer := pack[len(pack)-1]
	have, _, _ = st.FindTask(t.Context(), newer.Goal, newer.StartURL)
	if err := st.DeleteTask(t.Context(), have.ID); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range pack[:len(pack)-1] {
		keys = append(keys, `"`+p.Key+`"`)
	}
	if err := st.SetMeta(t.Context(), practiceKeysMeta, "["+strings.Join(keys, ",")+"]"); err != nil {
		t.Fatal(err)
	}
	if err := ensurePracticeTasks(st); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.FindTask(t.Context(), gone.Goal, gone.StartURL); ok {
		t.Errorf("a practice task the user deleted came back")
	}
	if _, ok, _ := st.FindTask(t.Context(), newer.Goal, newer.StartURL); !ok {
		t.Errorf("a task new in the pack was not added")
	}
	if got := count(); got != len(pack)-1 {
		t.Errorf("after upgrade: %d practice tasks, want %d", got, len(pack)-1)
	}
}

// Any command that opens a new store gives it the practice pack, not only
// the desktop app.
func TestTasksListOnANewStoreShowsThePracticePack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "new.db")
	code, out, stderr := runMain("--db", db, "tasks", "list", "--source", practice.Source)
	if code != 0 {
		t.Fatalf("tasks list: exit %d: %s", code, stderr)
	}
	for _, p := range practice.Tasks()[:3] {
		if !strings.Contains(out, p.Goal[:min(30, len(p.Goal))]) {
			t.Errorf("tasks list lacks %q:\n%s", p.Goal, out)
		}
	}
}
