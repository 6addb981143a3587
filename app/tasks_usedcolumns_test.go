package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tasks import names the columns it read each field through, all of them
// in a file whose rows name fields differently, and as "not used" only the
// columns no row was read through (it listed start_url, task, instruction,
// type, website… though every row was imported through them).
func TestTasksImportNamesTheColumnsItUsed(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	file := filepath.Join(dir, "mixed.jsonl")
	os.WriteFile(file, []byte(`{"instruction": "Find the tent", "url": "http://shop.waymark.test/", "type": "info", "answer": "42", "notes": "x"}
{"goal": "Open the returns page", "start_url": "http://shop.waymark.test/help", "category": "navigation"}
{"task": "Book a workshop", "website": "http://forms.waymark.test/", "task_type": "form"}
`), 0o644)
	code, out, errs := tasksRun(t, "--db", db, "tasks", "import", file, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{
		"goal         ← instruction, goal, task\n",
		"url          ← url, start_url, website\n",
		"category     ← type, category, task_type\n",
		"(not used: notes)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
