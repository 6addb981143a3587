package dataset

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// osDamageIndex overwrites the root page of the named index of the closed
// store at path with garbage, as a disk or another program might, after
// moving what the write-ahead log holds into the file with a connection
// of another program (not a Store).
func osDamageIndex(t testing.TB, path, index string) {
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
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := make([]byte, size-100)
	for i := range garbage {
		garbage[i] = byte((i + 100) * 13)
	}
	if _, err := f.WriteAt(garbage, int64((root-1)*size+100)); err != nil {
		t.Fatal(err)
	}
}

// osAddTasks fills the store at path with n tasks (so its tasks_source
// index has a page of its own) and closes it.
func osAddTasks(t *testing.T, path string, n int) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		if _, err := s.AddTask(t.Context(), Task{Goal: fmt.Sprintf("task %d", i), Category: Navigation, StartURL: "http://a.test/",
			Source: fmt.Sprintf("source %d %s", i, strings.Repeat("s", 100))}); err != nil {
			t.Fatal(err)
		}
	}
}

// osOpen opens the store at path and returns it with why its check ran
// ("" when it did not).
func osOpen(t *testing.T, path string) (*Store, string) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, s.checked
}

// Open checks the file only when it may have been left damaged: not after
// a clean close, not while another Store has it open; after it was changed
// while closed, and again at every Open while it is damaged, each time
// found damaged, opened read-only and refused for writing with the
// .recover advice.
func TestOpenChecksOnlyWhenNeeded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, why := osOpen(t, path)
	if !strings.Contains(why, "no record of closing it") {
		t.Errorf("a new file: checked because %q", why)
	}
	s.Close()
	osAddTasks(t, path, 300)
	s, why = osOpen(t, path)
	if why != "" {
		t.Errorf("after a clean close the file was checked: %q", why)
	}
	s2, why := osOpen(t, path)
	if why != "" {
		t.Errorf("with another Store open the file was checked: %q", why)
	}
	s2.Close()
	s.Close()
	if s, why = osOpen(t, path); why != "" {
		t.Errorf("after two Stores closed the file was checked: %q", why)
	}
	s.Close()
	// The same file by a link: the same markers.
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if s, why = osOpen(t, link); why != "" {
		t.Errorf("opened by a link after a clean close, the file was checked: %q", why)
	}
	s.Close()

	// A program that keeps the file open with its write-ahead log.
	other, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`INSERT INTO meta(key, value) VALUES('other', 'x')`); err != nil {
		t.Fatal(err)
	}
	if s, why = osOpen(t, path); !strings.Contains(why, "write-ahead log was left") {
		t.Errorf("with a write-ahead log of another program: checked because %q", why)
	}
	s.Close()
	other.Close()
	// That Store left no record (the file was still open elsewhere): the
	// next Open checks it and its clean close records it.
	if s, why = osOpen(t, path); !strings.Contains(why, "no record") {
		t.Errorf("after another program had it open: checked because %q", why)
	}
	s.Close()

	osDamageIndex(t, path, "tasks_source")
	for round := range 2 {
		s, why = osOpen(t, path)
		if round == 0 && !strings.Contains(why, "changed or replaced") {
			t.Errorf("changed while closed: checked because %q", why)
		}
		if round == 1 && why == "" {
			t.Error("a damaged file was not checked again")
		}
		d := s.Damaged()
		if !strings.Contains(d, "damaged") || !strings.Contains(d, ".recover") {
			t.Errorf("round %d: Damaged() = %q", round, d)
		}
		_, err := s.AddTask(t.Context(), Task{Goal: "new", Category: Navigation, StartURL: "http://a.test/"})
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), ".recover") {
			t.Errorf("round %d: a write into the damaged store: %v", round, err)
		}
		s.Close()
	}
}

// A Waymark killed with the store open leaves its marker: the next Open
// checks the file, reports the damage it finds, and (once a check passed)
// no longer checks it.
func TestOpenChecksAfterUncleanShutdown(t *testing.T) {
	for _, damage := range []bool{false, true} {
		t.Run(fmt.Sprintf("damaged=%v", damage), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "shared.db")
			osAddTasks(t, path, 300)
			s, _ := osOpen(t, path)
			wmTask(t, s, "Record until killed", Navigation, "http://shop.waymark.test/")
			s.Close()
			if s, why := osOpen(t, path); why != "" {
				t.Fatalf("after a clean close the file was checked: %q", why)
			} else {
				s.Close()
			}

			cmd, out := wmChild(t, path, "hold")
			for out.Scan() && out.Text() != "recorded 0" {
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if damage {
				osDamageIndex(t, path, "tasks_source")
			}
			s, why := osOpen(t, path)
			if !strings.Contains(why, "ended without closing it") {
				t.Errorf("after the kill: checked because %q", why)
			}
			d := s.Damaged()
			s.Close()
			if !damage {
				if d != "" {
					t.Fatalf("a sound file found damaged: %s", d)
				}
				if s, why = osOpen(t, path); why != "" {
					t.Errorf("after the check passed and a clean close the file was checked again: %q", why)
				}
				s.Close()
				return
			}
			if !strings.Contains(d, path) || !strings.Contains(d, ".recover") {
				t.Errorf("Damaged() = %q", d)
			}
			if s, why = osOpen(t, path); why == "" || s.Damaged() == "" {
				t.Errorf("the damaged file opened again: checked because %q, Damaged() = %q", why, s.Damaged())
			}
			s.Close()
		})
	}
}

// A file that is no database keeps nothing beside it after Open refused it.
func TestRefusedOpenLeavesNoMarker(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("these are my notes, not a database\n"), 0o600)
	if s, err := Open(path); err == nil {
		s.Close()
		t.Fatal("opened")
	}
	if _, err := os.Stat(path + openStateDirSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s%s after the refused open: %v", path, openStateDirSuffix, err)
	}
}
