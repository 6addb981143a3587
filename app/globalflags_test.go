package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Global options (--db) are parsed the same way wherever they stand, in
// every command: before the command, after it, between or after its files
// and episodes. A merge never writes to a store the user did not name.
func TestGlobalOptionsAnywhere(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", home)
	t.Setenv("WAYMARK_DB", "")
	defaultDB := filepath.Join(home, "waymark", "waymark.db")
	src := exportFixture(t)
	dir := t.TempDir()

	// merge OTHER.db --db F merges into F.
	lead := filepath.Join(dir, "lead.db")
	code, stdout, stderr := runMain("merge", src, "--db", lead)
	if code != 0 || !strings.Contains(stdout, "added: 1 tasks, 1 episodes, 3 steps") || !strings.Contains(stderr, "into "+lead) {
		t.Fatalf("merge OTHER --db F: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(defaultDB); err == nil {
		t.Fatalf("merge OTHER --db F made the default store %s", defaultDB)
	}
	// Options between the files, and the same file again: nothing added.
	lead2 := filepath.Join(dir, "lead2.db")
	code, stdout, stderr = runMain("merge", "--quiet", src, "--db", lead2, src)
	if code != 0 || strings.Count(stdout, "added: 1 tasks, 1 episodes, 3 steps") != 1 || strings.Contains(stderr, "steps copied") {
		t.Fatalf("merge --quiet OTHER --db F OTHER: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without --db or WAYMARK_DB, a merge into a default store that does
	// not exist is refused: it would make one nobody named.
	code, stdout, stderr = runMain("merge", src)
	if code != 2 || !strings.Contains(stderr, "--db") || !strings.Contains(stderr, defaultDB) {
		t.Errorf("merge with no store named and none at the default: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(defaultDB); err == nil {
		t.Fatalf("a refused merge made the default store %s", defaultDB)
	}
	// After "--" everything is a file, even a name starting with "-".
	code, _, stderr = runMain("merge", "--db", lead, "--", "--db")
	if code != 1 || !strings.Contains(stderr, "not merged: --db") {
		t.Errorf("merge -- --db: exit %d %s", code, stderr)
	}

	// The same for the commands that take an episode or no argument.
	// (har finds the episode in F: it was recorded without network capture.)
	if code, _, stderr := runMain("har", "e1", "--db", lead); code != 1 || !strings.Contains(stderr, "e1 was recorded without network capture") {
		t.Errorf("har EPISODE --db F: exit %d %s", code, stderr)
	}
	for _, args := range [][]string{
		{"gif", "e1", "-o", filepath.Join(dir, "e1.gif"), "--db", lead},
		{"review", "stats", "--db", lead},
		{"tasks", "list", "--db", lead},
	} {
		code, stdout, stderr := runMain(args...)
		if code != 0 || stdout == "" && !strings.Contains(strings.Join(args, " "), "gif") {
			t.Errorf("%q: exit %d\n%.300s%.300s", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := runMain("export", "stray", "--db", lead); code != 2 || !strings.Contains(stderr, `unexpected arguments ["stray"]`) {
		t.Errorf("export with a stray argument: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(defaultDB); err == nil {
		t.Fatalf("a command with --db after its arguments made the default store %s", defaultDB)
	}
}
