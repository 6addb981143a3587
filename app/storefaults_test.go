package app

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"waymark/dataset"
)

// A damaged page is reported with the file's name and what to do, by every
// command that meets it.
func TestDamagedDatabaseSaysWhatToDo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		if _, err := s.AddTask(t.Context(), dataset.Task{Goal: fmt.Sprintf("task %d %s", i, strings.Repeat("x", 200)), Category: dataset.Navigation, StartURL: "http://a.test/"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 40*4096 {
		t.Fatalf("database of %d bytes: %v", len(b), err)
	}
	// Garbage over the middle of the tasks table's pages.
	for p := 10; p < 30; p++ {
		for i := range 4096 {
			b[p*4096+i] = byte(i * 7)
		}
	}
	os.WriteFile(path, b, 0o600)
	code, _, stderr := runMain("--db", path, "tasks", "list")
	if code == 0 {
		t.Fatal("tasks list on a damaged database succeeded")
	}
	for _, want := range []string{path, "damaged", ".recover", "backup"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("message lacks %q: %s", want, stderr)
		}
	}
}

// A database on a read-only file system says so, not "no such file".
func TestReadOnlyFolderSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a file system here (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "w.db")
	if code, _, stderr := runMain("--db", path, "tasks", "list"); code != 0 {
		t.Fatalf("tasks list: %s", stderr)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v %s", err, out)
	}
	for _, db := range []string{path, filepath.Join(dir, "new.db")} {
		code, _, stderr := runMain("--db", db, "tasks", "list")
		if code == 0 {
			t.Fatalf("tasks list on a read-only file system succeeded for %s", db)
		}
		if strings.Contains(stderr, "no such file") || !strings.Contains(stderr, "read-only file system") || !strings.Contains(stderr, "writable folder") {
			t.Errorf("%s: message = %s", db, stderr)
		}
	}
}

// A database whose integrity check fails where the commands do not look
// (an index page) is not used as if nothing were wrong: it opens
// read-only, every command says it is damaged and how to recover, reading
// still works, a write is refused with the same advice, and the file is
// not changed.
func TestDamagedIndexOpensReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := s.AddTask(t.Context(), dataset.Task{Goal: fmt.Sprintf("task %d", i), Category: dataset.Navigation, StartURL: "http://a.test/",
			Source: fmt.Sprintf("source %d %s", i, strings.Repeat("s", 100))}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	damageIndex(t, path, "tasks_source")
	before, _ := os.ReadFile(path)

	code, stdout, stderr := runMain("--db", path, "tasks", "list")
	if code != 0 || !strings.Contains(stdout, "task 299") {
		t.Fatalf("tasks list on a database with a damaged index: exit %d, %.300s %s", code, stdout, stderr)
	}
	for _, want := range []string{path, "damaged", "read-only", ".recover", "backup"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the warning lacks %q: %s", want, stderr)
		}
	}
	if len(stderr) > 2000 {
		t.Errorf("the warning is %d bytes", len(stderr))
	}
	csv := filepath.Join(t.TempDir(), "t.csv")
	os.WriteFile(csv, []byte("goal,url,category\nNew task,http://a.test/n,navigation\n"), 0o600)
	code, _, stderr = runMain("--db", path, "tasks", "import", csv)
	if code == 0 || !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, ".recover") {
		t.Errorf("tasks import into the damaged database: exit %d, %s", code, stderr)
	}
	t.Log(stderr)
	_, err = newServing(&Env{DBPath: path, Stderr: io.Discard}, serveConfig{MaxSessions: 1, Record: true, Logf: t.Logf})
	if err == nil || !strings.Contains(err.Error(), "--record cannot record into a damaged database") {
		t.Errorf("serve --record on the damaged database: %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the damaged database file was changed")
	}
}

// damageIndex overwrites the root page of the named index with garbage.
func damageIndex(t *testing.T, path, index string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	var root, size int
	if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name=?`, index).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < size; i++ {
		b[(root-1)*size+i] = byte(i * 13)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
