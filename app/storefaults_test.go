package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
		if _, err := s.AddTask(dataset.Task{Goal: fmt.Sprintf("task %d %s", i, strings.Repeat("x", 200)), Category: dataset.Navigation, StartURL: "http://a.test/"}); err != nil {
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
