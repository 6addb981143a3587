package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"waymark/engine/action"
)

// lockDropChild is the child side of TestLockDropDetected and
// TestStoreFilesGuarded: it records steps 1–3, then opens and closes the
// database's files outside SQLite ("lockdrop": by os.Open, as any code of
// the process could; "guarded": only through the paths the app uses, which
// must refuse), lets another process open and close the store, and records
// steps 4–6. It prints "recorded N" for each step the recorder acknowledged
// and "error …" for each it refused, then waits to be killed.
func lockDropChild(s *Store, rec *Recorder, mode string) {
	ctx := context.Background()
	step := func(i int) {
		if _, err := rec.Step(ctx, action.ClickAt(i, i)); err != nil {
			fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " "))
			return
		}
		fmt.Println("recorded", i)
	}
	for i := 1; i <= 3; i++ {
		step(i)
	}
	path := s.Path()
	for _, suf := range []string{"", "-wal", "-shm"} {
		if mode == "lockdrop" {
			if f, err := os.Open(path + suf); err == nil {
				f.Close()
			}
		} else if f, err := openImportFile(path + suf); err == nil {
			f.Close()
			fmt.Println("error the importer opened", path+suf)
		}
	}
	other := exec.Command(os.Args[0], "-test.run=^TestChildRecorder$", "-test.count=1")
	other.Env = append(os.Environ(), "WAYMARK_TEST_CHILD=openclose")
	if out, err := other.CombinedOutput(); err != nil {
		fmt.Println("error second process:", err, string(out))
	}
	for i := 4; i <= 6; i++ {
		step(i)
	}
	fmt.Println("done")
	select {} // until the parent kills us
}

// lockDrill runs lockDropChild in mode, kills it, and returns the steps it
// acknowledged, the errors it printed, and the store's steps after reopening.
func lockDrill(t *testing.T, mode string) (acked []int, errs []string, stored int) {
	path, s := wmChildStore(t)
	// The parent's own store must not keep the database alive: the child's
	// second process has to be the last one to close it, as in the field.
	s.Close()
	cmd, out := wmChild(t, path, mode)
	var episode string
	for out.Scan() {
		line := out.Text()
		if id, ok := strings.CutPrefix(line, "episode "); ok {
			episode = id
		} else if n, ok := strings.CutPrefix(line, "recorded "); ok {
			i, _ := strconv.Atoi(n)
			acked = append(acked, i)
		} else if e, ok := strings.CutPrefix(line, "error "); ok {
			errs = append(errs, e)
		} else if line == "done" {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if v, err := s2.IntegrityCheck(t.Context()); err != nil || v != "ok" {
		t.Fatalf("integrity_check after the drill: %q %v", v, err)
	}
	steps, err := s2.Steps(t.Context(), episode)
	if err != nil {
		t.Fatal(err)
	}
	have := map[int]bool{}
	for _, st := range steps {
		have[st.Index] = true
	}
	for _, i := range acked {
		if !have[i] {
			t.Errorf("step %d was acknowledged but is not in the store after the kill (store holds %d steps)", i, len(steps))
		}
	}
	ep, _ := s2.GetEpisode(t.Context(), episode)
	if ep.Status != StatusInterrupted {
		t.Errorf("episode is %s after the kill, want interrupted", ep.Status)
	}
	return acked, errs, len(steps)
}

// A raw open and close of the database file by any code of the process
// drops SQLite's locks; another process closing the store then deletes the
// write-ahead log. The store must notice and refuse to write, so that no
// acknowledged step is lost.
func TestLockDropDetected(t *testing.T) {
	acked, errs, stored := lockDrill(t, "lockdrop")
	if len(acked) != 4 || len(errs) != 3 {
		t.Fatalf("acknowledged %v and refused %d steps (%q); want steps 0–3 acknowledged, 4–6 refused", acked, len(errs), errs)
	}
	for _, e := range errs {
		if !strings.Contains(e, ErrStoreLost.Error()) || !strings.Contains(e, "close Waymark and open it again") {
			t.Errorf("refusal does not say what happened and what to do: %s", e)
		}
	}
	t.Logf("stored %d steps; refusal: %s", stored, errs[0])
}

// The paths the app takes to open files a person chose (the importer here;
// the file dialog in ui) refuse the open store's files, so the locks hold
// and every step is saved.
func TestStoreFilesGuarded(t *testing.T) {
	acked, errs, stored := lockDrill(t, "guarded")
	if len(acked) != 7 || len(errs) != 0 {
		t.Fatalf("acknowledged %v, errors %q; want all 6 steps saved", acked, errs)
	}
	if stored != 7 {
		t.Fatalf("store holds %d steps, want 7 (reset + 6)", stored)
	}
}

func TestIsStoreFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "tasks.json")
	os.WriteFile(other, []byte("[]"), 0o600)
	link := filepath.Join(dir, "link.db")
	os.Symlink(path, link)
	for _, p := range []string{path, path + "-wal", path + "-shm", link} {
		if !IsStoreFile(p) {
			t.Errorf("IsStoreFile(%s) = false", p)
		}
	}
	if IsStoreFile(other) {
		t.Error("a task file counted as the store")
	}
	if !IsSQLiteSidecar(path+"-wal") || IsSQLiteSidecar(path) || IsSQLiteSidecar(other) {
		t.Error("IsSQLiteSidecar is wrong")
	}
	s.Close()
	if IsStoreFile(path) {
		t.Error("a closed store's file still counts as open")
	}
}

func TestNewDatabaseIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	path := filepath.Join(dir, "w.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wmTask(t, s, "x", Navigation, "http://a.test/")
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

func TestForeignDatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	db.Exec(`CREATE TABLE contacts (name TEXT)`)
	db.Exec(`INSERT INTO contacts VALUES ('Ada')`)
	db.Close()
	before, _ := os.ReadFile(path)
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("opened another program's database")
	}
	if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), "contacts") || !strings.Contains(err.Error(), "not changed") {
		t.Fatalf("message: %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the other program's database was changed")
	}
}

// A write-ahead log replaced by another file (same folder, so the same
// device, but a new inode) while the store is open is not the log this
// process writes into: the next commit is refused with ErrStoreLost, and so
// are the ones after it.
func TestWALReplacedRefusesWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wmTask(t, s, "Saved before the log was replaced", Navigation, "http://a.test/")
	wal := path + "-wal"
	before, err := os.Stat(wal)
	if err != nil {
		t.Fatal(err)
	}
	// Another program's copy of the log renamed over it: the same bytes,
	// the same device, another inode.
	b, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), "w.db-wal.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, wal); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(wal)
	if err != nil {
		t.Fatal(err)
	}
	bs, as := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
	if bs.Dev != as.Dev || bs.Ino == as.Ino {
		t.Fatalf("the replacement has device %d inode %d, the log had device %d inode %d: want the same device, another inode", as.Dev, as.Ino, bs.Dev, bs.Ino)
	}
	for _, goal := range []string{"First write after the replacement", "Second write after the replacement"} {
		_, err := s.AddTask(t.Context(), Task{Goal: goal, Category: Navigation, StartURL: "http://a.test/", Source: "test"})
		if !errors.Is(err, ErrStoreLost) {
			t.Fatalf("%q after the log was replaced: error %v, want ErrStoreLost", goal, err)
		}
		if want := s.lostError().Error(); err.Error() != want {
			t.Errorf("%q: error\n %v\nwant\n %s", goal, err, want)
		}
	}
}
