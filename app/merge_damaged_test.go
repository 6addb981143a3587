package app

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/storetest"
)

// mergeSourceStore writes a store of 16 episodes and 48 steps (each with a
// 3,000-byte screenshot, one step a page) and returns its path, closed.
func mergeSourceStore(t *testing.T, path string) {
	t.Helper()
	st, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db := storetest.DB(t, st)
	const now = "2026-11-02T09:00:00.000Z"
	pic := make([]byte, 3000)
	for i := range pic {
		pic[i] = byte(i * 7)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1','Find it','information','http://127.0.0.1/',?,?)`, now, now)
	for e := 0; e < 16; e++ {
		id := fmt.Sprintf("episode-%02d-0123456789abcdef", e)
		exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, num_steps, started_at, ended_at) VALUES (?,'t1','ann','default','finished',2,?,?)`, id, now, now)
		for i := 0; i < 2+e%2*2; i++ {
			exec(`INSERT INTO steps (episode_id, idx, url, screenshot, created_at) VALUES (?,?,'http://127.0.0.1/',?,?)`, id, i, pic, now)
		}
	}
	db.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the store left a write-ahead log: its pages are not all in the file")
	}
}

// damageStore flips bits inside pages of the store file at path (never its
// 100-byte header), as how says: "index", one bit of the ids of three
// episodes in the episodes' primary-key index, so that the index no longer
// matches the table (only integrity_check sees it); "index+count", that and
// the free-fragment count of the episodes table's page, which quick_check
// reports too; "tree", a bit of a child page number in the steps table's
// interior page, so a read of the steps fails. It returns what quick_check
// and integrity_check say of the file afterwards.
func damageStore(t *testing.T, path, how string) (quick, integrity string) {
	t.Helper()
	root := func(name string) int64 {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var p int64
		if err := db.QueryRow(`SELECT rootpage FROM sqlite_master WHERE name=?`, name).Scan(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	table, index, steps := root("episodes"), root("sqlite_autoindex_episodes_1"), root("steps")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(binary.BigEndian.Uint16(raw[16:18]))
	page := func(n int64) []byte { return raw[(n-1)*size : n*size] }
	// 13: a table's leaf page, 10: an index's leaf page, 5: a table's
	// interior page.
	if page(table)[0] != 13 || page(index)[0] != 10 || page(steps)[0] != 5 {
		t.Fatalf("pages %d, %d and %d are of types %d, %d and %d", table, index, steps, page(table)[0], page(index)[0], page(steps)[0])
	}
	switch how {
	case "index", "index+count":
		for _, e := range []string{"03", "07", "11"} {
			p := page(index)
			i := bytes.Index(p, []byte("episode-"+e+"-0123"))
			if i < 0 {
				t.Fatalf("episode %s's id is not in page %d", e, index)
			}
			p[i+len("episode-03-")] ^= 1
		}
		if how == "index+count" {
			page(table)[7] ^= 5
		}
	case "tree":
		// The 4-byte child page number of the interior page's 11th cell.
		p := page(steps)
		cell := binary.BigEndian.Uint16(p[12+2*10:])
		p[cell+1] ^= 0x40
	default:
		t.Fatalf("no damage %q", how)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(pragma string) string {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var out []string
		rows, err := db.Query(`PRAGMA ` + pragma)
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return strings.Join(out, "; ")
	}
	return check("quick_check"), check("integrity_check")
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// A copy of a store with bits flipped in its pages is refused whole, with
// the .recover advice naming that file, whether SQLite's quick_check sees
// the damage or only its integrity_check does; the store merged into is
// left byte for byte as it was, a new one and one that already holds the
// sound copy's episodes. Before, the damage only integrity_check sees, with
// or without what quick_check sees, merged part of the copy with exit 0
// ("added 16 episodes, 36 steps" of 16 and 48; into the store that held
// them, 3 more episodes under the garbled ids) and "could not reconcile:
// nothing"; a steps page that could not be read failed the merge saying
// that the store merged into was damaged, and told the user to recover it.
func TestMergeRefusesADamagedStore(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "alice.db")
	mergeSourceStore(t, src)
	sound, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"index+count", "index", "tree"} {
		t.Run(how, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "alice-copy.db")
			if err := os.WriteFile(bad, sound, 0o600); err != nil {
				t.Fatal(err)
			}
			quick, integrity := damageStore(t, bad, how)
			t.Logf("quick_check: %s\nintegrity_check: %s", quick, integrity)
			if (quick == "ok") != (how == "index") || integrity == "ok" {
				t.Fatalf("the damage is not what the test needs: quick_check %q, integrity_check %q", quick, integrity)
			}

			fresh := filepath.Join(t.TempDir(), "lead.db")
			// The practice pack is in (every command adds it when it opens a
			// store).
			if s, err := (&Env{DBPath: fresh, Stderr: os.Stderr}).OpenStore(); err != nil {
				t.Fatal(err)
			} else {
				s.Close()
			}
			held := filepath.Join(t.TempDir(), "held.db")
			if code, stdout, stderr := runMain("--db", held, "merge", "--quiet", src); code != 0 {
				t.Fatalf("merging the sound copy: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, into := range []string{fresh, held} {
				before := fileSum(t, into)
				code, stdout, stderr := runMain("--db", into, "merge", "--quiet", bad)
				t.Logf("merge into %s: exit %d\n%s%s", filepath.Base(into), code, stdout, stderr)
				if code != 1 {
					t.Errorf("into %s: exit %d, want 1", filepath.Base(into), code)
				}
				for _, want := range []string{"cannot merge " + bad, "damaged", "sqlite3 " + bad + " .recover", "not merged: " + bad} {
					if !strings.Contains(stderr, want) {
						t.Errorf("into %s: the message lacks %q", filepath.Base(into), want)
					}
				}
				if strings.Contains(stderr, "sqlite3 "+into) || stdout != "" {
					t.Errorf("into %s: the message sends the user to the wrong file, or a report was printed", filepath.Base(into))
				}
				if fileSum(t, into) != before {
					t.Errorf("into %s: the store merged into changed", filepath.Base(into))
				}
			}
		})
	}
}

// A row of the other file with no id (a task, an episode, a review, a
// replay run: SQLite lets a TEXT primary key be NULL, and a file edited by
// hand may have one) cannot be told from any other row: it is not copied,
// and the report names it (which table, its row, what it holds) under
// "could not reconcile"; the rows with ids are merged, and merging the file
// again names them again. Before, a merge into a new store failed with
// "sql: Scan error on column index 0, name "id": converting NULL to string
// is unsupported"; into a store holding rows of each kind, they were left
// out and the report said "could not reconcile: nothing".
func TestMergeNamesRowsWithoutAKey(t *testing.T) {
	for _, withTask := range []bool{false, true} {
		t.Run(fmt.Sprintf("task_without_id=%v", withTask), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "alice.db")
			mergeSourceStore(t, src)
			st, err := dataset.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			db := storetest.DB(t, st)
			const now = "2026-11-03T10:00:00.000Z"
			for _, q := range []string{
				`INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at) VALUES (NULL,'t1','bob','default','finished','` + now + `')`,
				`INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES (NULL,'episode-02-0123456789abcdef','rita','success','` + now + `')`,
				`INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES ('r1','episode-02-0123456789abcdef','sam','failure','` + now + `')`,
				`INSERT INTO replay_runs (id, episode_id, started_at) VALUES (NULL,'episode-04-0123456789abcdef','` + now + `')`,
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if withTask {
				if _, err := db.Exec(`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES (NULL,'Buy a lamp','interaction','http://127.0.0.1/lamp',?,?)`, now, now); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			st.Close()

			lead := filepath.Join(dir, "lead.db")
			code, stdout, stderr := runMain("--db", lead, "merge", "--quiet", src)
			t.Logf("exit %d\n%s%s", code, stdout, stderr)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			want := []string{
				"added: 1 tasks, 16 episodes, 48 steps, 0 network chunks, 0 edits, 1 reviews, 0 replay runs",
				"episode (no id): row 17 of the other file's episodes has no id (annotator \"bob\", started 2026-11-03T10:00:00.000Z)",
				"review (no id): row 1 of the other file's reviews has no id (of episode episode-02-0123456789abcdef by \"rita\", 2026-11-03T10:00:00.000Z)",
				"replay run (no id): row 1 of the other file's replay_runs has no id (of episode episode-04-0123456789abcdef, started 2026-11-03T10:00:00.000Z)",
				"not copied",
			}
			n := 3
			if withTask {
				want = append(want, "task (no id): row 2 of the other file's tasks has no id (\"Buy a lamp\" at http://127.0.0.1/lamp)")
				n = 4
			}
			want = append(want, fmt.Sprintf("could not reconcile (%d):", n))
			for _, w := range want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			code, stdout, stderr = runMain("--db", lead, "merge", "--quiet", src)
			if code != 0 || !strings.Contains(stdout, "added: 0 tasks, 0 episodes, 0 steps") || !strings.Contains(stdout, want[1]) ||
				!strings.Contains(stdout, fmt.Sprintf("could not reconcile (%d):", n)) {
				t.Errorf("merged again: exit %d\n%s%s", code, stdout, stderr)
			}
			s, err := dataset.Open(lead)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ldb := storetest.DB(t, s)
			for _, table := range []string{"tasks", "episodes", "reviews", "replay_runs"} {
				var nulls int
				if err := ldb.QueryRow(`SELECT COUNT(*) FROM ` + table + ` WHERE id IS NULL`).Scan(&nulls); err != nil {
					t.Fatal(err)
				}
				if nulls != 0 {
					t.Errorf("%d rows of %s without an id were copied", nulls, table)
				}
			}
		})
	}
}
