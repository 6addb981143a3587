package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tasksRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func TestTasksImportAndList(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	file := filepath.Join(dir, "web tasks.csv")
	os.WriteFile(file, []byte("Question,Site,Kind,answer\n"+
		"How tall is the tower?,http://wiki.waymark.test/tower,qa,324 m\n"+
		"Open the cart,http://shop.waymark.test/,nav,\n"+
		"Buy socks,http://shop.waymark.test/,shopping,\n"+
		"Switch on dark mode,http://settings.waymark.test/,,\n"), 0o644)

	// Dry run: reports, stores nothing.
	code, out, errs := tasksRun(t, "--db", db, "tasks", "import", file, "--map", "goal=Question,url=Site", "--map", "category=Kind", "--dry-run")
	if code != 0 || !strings.Contains(out, "Would import 2 of 4 rows") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errs)
	}
	if _, out, _ := tasksRun(t, "--db", db, "tasks", "list", "--source", "web tasks.csv"); !strings.Contains(out, "No tasks match") {
		t.Fatalf("the dry run stored tasks:\n%s", out)
	}

	code, out, errs = tasksRun(t, "--db", db, "tasks", "import", file, "--map", "goal=Question,url=Site,category=Kind",
		"--default-category", "interaction", "--source", "mine")
	t.Log("\n" + out)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		`Imported 3 of 4 rows`, `source "mine"`,
		"goal         ← Question", "answer       ← answer",
		"By category: information 1, navigation 1, interaction 1",
		`row 3 (line 4): unknown category "shopping"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q", want)
		}
	}
	// Again: duplicates, nothing new.
	_, out, _ = tasksRun(t, "--db", db, "tasks", "import", file, "--map", "goal=Question,url=Site,category=Kind", "--default-category", "interaction")
	if !strings.Contains(out, "Imported 0 of 4 rows") || !strings.Contains(out, "Duplicates (not imported again) (3)") {
		t.Fatalf("re-import:\n%s", out)
	}

	code, out, _ = tasksRun(t, "--db", db, "tasks", "list", "--source", "mine")
	t.Log("\n" + out)
	if code != 0 || !strings.Contains(out, "How tall is the tower?") || !strings.Contains(out, "3 tasks (information 1, navigation 1, interaction 1); not yet demonstrated: 3") {
		t.Fatalf("list:\n%s", out)
	}
	if i, j := strings.Index(out, "How tall"), strings.Index(out, "Switch on dark mode"); i < 0 || j < i {
		t.Fatal("information tasks must come first")
	}
	_, out, _ = tasksRun(t, "--db", db, "tasks", "list", "--category", "nav", "--todo", "--source", "mine")
	if !strings.Contains(out, "Open the cart") || strings.Contains(out, "tower") {
		t.Fatalf("filtered list:\n%s", out)
	}
}

func TestTasksCommandErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("name,link\nx,y\n"), 0o644)
	allBad := filepath.Join(dir, "allbad.jsonl")
	os.WriteFile(allBad, []byte(`{"goal":"x","url":"nope","category":"nav"}`+"\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tasks"}, 2, "waymark tasks import FILE"},
		{[]string{"tasks", "frobnicate"}, 2, `unknown 'tasks' command "frobnicate"`},
		{[]string{"tasks", "import"}, 2, "give one file"},
		{[]string{"tasks", "import", bad, "--map", "goal"}, 2, "write FIELD=COLUMN"},
		{[]string{"tasks", "import", bad}, 1, "no goal column: the file has columns name, link"},
		{[]string{"tasks", "import", filepath.Join(dir, "none.csv")}, 1, "does not exist"},
		{[]string{"tasks", "import", allBad}, 1, "no task could be imported"},
		{[]string{"tasks", "list", "--category", "shopping"}, 2, "use information, navigation or interaction"},
	}
	for _, c := range cases {
		code, out, errs := tasksRun(t, append([]string{"--db", db}, c.args...)...)
		if code != c.code || !strings.Contains(errs+out, c.want) {
			t.Errorf("%v: exit %d, want %d mentioning %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}
