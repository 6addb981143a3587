package dataset

import (
	"fmt"
	"strings"
	"testing"
)

// A file with very many columns, or a very long column name, gets an
// error of bounded size that names the column count.
func TestImportErrorsAreBounded(t *testing.T) {
	s := wmStore(t)
	var cols []string
	for i := 1; i <= 100002; i++ {
		cols = append(cols, fmt.Sprintf("c%d", i))
	}
	header := strings.Join(cols, ",")
	for name, file := range map[string]string{
		"100002 columns":              header + "\n" + strings.Repeat("x,", 100001) + "x\n",
		"100002 columns with --map":   header + "\n" + strings.Repeat("x,", 100001) + "x\n",
		"a 1 MB column name":          strings.Repeat("n", 1<<20) + ",link\nx,http://a.test/\n",
		"100002 columns and no rows":  header + "\n",
		"100002 columns, no category": "goal,url," + header + "\nx,http://a.test/" + strings.Repeat(",", 100002) + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			// -short (mutation runs): one wide file and the long name.
			if testing.Short() && name != "100002 columns" && name != "a 1 MB column name" {
				t.Skip("-short: one wide file is enough")
			}
			opts := ImportOptions{}
			if strings.Contains(name, "--map") {
				opts.Map = map[string]string{"goal": "nope"}
			}
			_, err := s.ImportTasks(t.Context(), strings.NewReader(file), "wide.csv", opts)
			if err == nil {
				t.Fatal("imported")
			}
			if n := len(err.Error()); n > 2000 {
				t.Errorf("the error is %d bytes: %.300s…", n, err)
			}
			if !strings.Contains(name, "1 MB") && !strings.Contains(err.Error(), "columns") {
				t.Errorf("the error does not say how many columns: %.300s", err)
			}
			if strings.Contains(name, "100002") && !strings.Contains(err.Error(), "10000") {
				t.Errorf("the error does not name the count: %.600s", err)
			}
		})
	}
}

// {"tasks": null} and {"tasks": 5} are manifests with no task list: the
// error says what the "tasks" key must hold.
func TestImportTasksKeyNotAList(t *testing.T) {
	s := wmStore(t)
	for _, body := range []string{`{"tasks":null}`, `{"tasks":5}`, `{"tasks":{"taskId":"a"}}`} {
		_, err := s.ImportTasks(t.Context(), strings.NewReader(body), "m.json", ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), `"tasks"`) || !strings.Contains(err.Error(), "array") {
			t.Errorf("%s: %v, want an error saying \"tasks\" must be an array of tasks", body, err)
		}
	}
}

// Task files with classic Mac line endings (CR only) are read line by
// line, as with LF or CRLF.
func TestImportCROnlyLineEndings(t *testing.T) {
	for name, body := range map[string]string{
		"cr.csv":   "goal,url,category\rBuy shoes,http://a.test/1,navigation\rFind socks,http://a.test/2,information\r",
		"cr.tsv":   "goal\turl\tcategory\rBuy shoes\thttp://a.test/1\tnavigation\rFind socks\thttp://a.test/2\tinformation\r",
		"cr.jsonl": `{"goal":"Buy shoes","url":"http://a.test/1","category":"navigation"}` + "\r" + `{"goal":"Find socks","url":"http://a.test/2","category":"information"}` + "\r",
	} {
		t.Run(name, func(t *testing.T) {
			s := wmStore(t)
			rep, err := s.ImportTasks(t.Context(), strings.NewReader(body), name, ImportOptions{})
			if err != nil || rep.Imported != 2 || len(rep.Skipped) != 0 {
				t.Fatalf("imported %d, skipped %v: %v", rep.Imported, rep.Skipped, err)
			}
			for _, tk := range rep.Tasks {
				if strings.ContainsRune(tk.Goal+tk.StartURL+tk.Category, '\r') {
					t.Errorf("a CR in the task: %q %q %q", tk.Goal, tk.StartURL, tk.Category)
				}
			}
		})
	}
}

// Two manifest tasks with the same goal and start URL but different
// taskIds or graders are different tasks: both are imported, and
// importing the file again finds both stored.
func TestImportManifestSameGoalDifferentGrader(t *testing.T) {
	s := wmStore(t)
	manifest := `[
 {"taskId":"a","goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'A'"},
 {"taskId":"b","goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'B'"},
 {"goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'C'"},
 {"goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'C'"}
]`
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(manifest), "m.json", ImportOptions{})
	if err != nil || rep.Imported != 3 || len(rep.Duplicates) != 1 {
		t.Fatalf("imported %d, duplicates %v: %v; want 3 (a, b and the untitled C) and one duplicate (the second C)", rep.Imported, rep.Duplicates, err)
	}
	scripts := map[string]bool{}
	for _, tk := range rep.Tasks {
		scripts[tk.Manifest.ValidateScript] = true
	}
	if len(scripts) != 3 {
		t.Errorf("graders imported: %v", scripts)
	}
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(manifest), "m.json", ImportOptions{})
	if err != nil || rep.Imported != 0 || len(rep.Duplicates) != 4 {
		t.Fatalf("again: imported %d, duplicates %d: %v; want 0 and 4", rep.Imported, len(rep.Duplicates), err)
	}
	// A plain task file's row with the same goal and URL is still the
	// stored task.
	rep, err = s.ImportTasks(t.Context(), strings.NewReader("goal,url,category\nClick the button,http://a.test/,interaction\n"), "t.csv", ImportOptions{})
	if err != nil || rep.Imported != 0 || len(rep.Duplicates) != 1 {
		t.Errorf("a plain row: imported %d, duplicates %d: %v", rep.Imported, len(rep.Duplicates), err)
	}
}

// A schema 6 store opens at the current schema with its tasks and episodes intact,
// foreign keys still enforced, and a second grader of a stored manifest
// task's page can then be imported.
func TestMigrationToGraderKeys(t *testing.T) {
	path := oldStore(t, 6, `
		INSERT INTO tasks (id, goal, category, start_url, source, source_id, created_at, updated_at, manifest_json)
			VALUES ('t1', 'Click the button', 'interaction', 'http://a.test/', 'm.json', 'a', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',
			'{"taskId":"a","goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === ''A''"}');
		INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at)
			VALUES ('e1', 't1', 'alice', 'default', 'finished', '2026-01-01T00:00:01Z');`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion || SchemaVersion < 7 {
		t.Fatalf("schema %d after the upgrade, want %d", v, SchemaVersion)
	}
	ep, err := s.GetEpisode(t.Context(), "e1")
	if err != nil || ep.TaskID != "t1" {
		t.Fatalf("the episode after the migration: %+v %v", ep, err)
	}
	task, err := s.GetTask(t.Context(), "t1")
	if err != nil || task.Manifest == nil || task.Manifest.ValidateScript != "document.title === 'A'" || task.SourceID != "a" {
		t.Fatalf("the task after the migration: %+v %v", task, err)
	}
	if _, err := s.db.Exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at) VALUES ('e2', 'nope', 'x', 'default', 'finished', '2026-01-01T00:00:01Z')`); err == nil {
		t.Error("an episode of no task was stored: foreign keys are off after the migration")
	}
	manifest := `[
 {"taskId":"a","goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'A'"},
 {"taskId":"b","goal":"Click the button","setupUrl":"http://a.test/","validateScript":"document.title === 'B'"}
]`
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(manifest), "m.json", ImportOptions{})
	if err != nil || rep.Imported != 1 || len(rep.Duplicates) != 1 || rep.Tasks[0].SourceID != "b" {
		t.Fatalf("import after the migration: %d imported, duplicates %v: %v; want b imported, a already stored", rep.Imported, rep.Duplicates, err)
	}
	if ok, err := s.IntegrityCheck(t.Context()); ok != "ok" || err != nil {
		t.Errorf("integrity after the migration: %q %v", ok, err)
	}
}
