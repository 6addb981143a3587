package app

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/storetest"
)

// exportFixture makes a store with one reviewed episode of two steps.
func exportFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := storetest.DB(t, s)
	defer db.Close() // before the store
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 800, 600))); err != nil {
		t.Fatal(err)
	}
	now := "2026-11-02T09:00:00.000Z"
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1','Find it','information','http://127.0.0.1/',?,?)`, []any{now, now}},
		{`INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at, ended_at) VALUES ('e1','t1','alice','default','finished',?,?)`, []any{now, now}},
		{`INSERT INTO steps (episode_id, idx, url, screenshot, created_at) VALUES ('e1',0,'http://127.0.0.1/',?,?)`, []any{pic.Bytes(), now}},
		{`INSERT INTO steps (episode_id, idx, action_json, op, url, screenshot, done, created_at) VALUES ('e1',1,'{"op":"click","x":3,"y":4}','click','http://127.0.0.1/a',?,0,?)`, []any{pic.Bytes(), now}},
		{`INSERT INTO steps (episode_id, idx, action_json, op, url, screenshot, done, created_at) VALUES ('e1',2,'{"op":"finish","text":"42"}','finish','http://127.0.0.1/a',?,1,?)`, []any{pic.Bytes(), now}},
		{`INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES ('r1','e1','rita','success',?)`, []any{now}},
	} {
		if _, err := db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	return path
}

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExportCommand(t *testing.T) {
	db := exportFixture(t)
	dir := filepath.Join(t.TempDir(), "ds")

	code, _, stderr := runMain("--db", db, "export", "--out", dir)
	if code != 2 || !strings.Contains(stderr, "--license") {
		t.Errorf("without --license: exit %d, %q", code, stderr)
	}
	code, _, stderr = runMain("--db", db, "export", "--out", dir, "--license", "mit", "--category", "shopping")
	if code != 2 || !strings.Contains(stderr, "unknown category") {
		t.Errorf("bad category: exit %d, %q", code, stderr)
	}
	code, _, stderr = runMain("--db", db, "export", "--out", dir, "--license", "mit", "--outcome", "failure")
	if code != 1 || !strings.Contains(stderr, "nothing to export") {
		t.Errorf("no match: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a dataset was created for nothing")
	}

	code, stdout, stderr := runMain("--db", db, "export", "--out", dir, "--license", "mit", "--name", "Tiny", "--test-fraction", "0", "--quiet")
	if code != 0 || !strings.Contains(stdout, "1 episodes, 2 steps") || !strings.Contains(stdout, "train 1 tasks") {
		t.Fatalf("export: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, f := range []string{"README.md", "steps/train-00000-of-00001.parquet", "episodes/train-00000-of-00001.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(readme), "pretty_name: Tiny\nlicense: mit\n") {
		t.Errorf("card front matter:\n%s", readme[:200])
	}

	code, _, stderr = runMain("--db", db, "export", "--out", dir, "--license", "mit")
	if code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("second export: exit %d, %q", code, stderr)
	}
	code, stdout, _ = runMain("--db", db, "export", "--out", dir, "--license", "mit", "--force", "--quiet")
	if code != 0 || !strings.HasPrefix(stdout, "Replaced ") {
		t.Errorf("--force: exit %d, %q", code, stdout)
	}
}

// The commands that only read refuse a database path with nothing there
// (a typo) instead of making a new empty database and saying it is empty.
func TestReadingCommandsRefuseAMissingDatabase(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{
		{"--db", missing, "replay", "3f2c0000-0000-0000-0000-000000000000"},
		{"--db", missing, "export", "--out", filepath.Join(t.TempDir(), "ds"), "--license", "mit"},
		{"--db", missing, "review", "stats"},
	} {
		code, _, stderr := runMain(args...)
		if code == 0 || !strings.Contains(stderr, "no Waymark database at "+missing) {
			t.Errorf("%q: exit %d, %q", args[2:], code, stderr)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("%q made a database at the mistyped path", args[2:])
		}
	}
}
