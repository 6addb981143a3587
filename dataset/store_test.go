package dataset

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// wmHoldWriteLock makes another connection take the write lock of the
// database (BEGIN IMMEDIATE plus a write) and hold it until release.
func wmHoldWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`BEGIN IMMEDIATE`, `INSERT INTO meta(key, value) VALUES('lock-holder', 'x') ON CONFLICT(key) DO UPDATE SET value='y'`} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	done := false
	release = func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), `ROLLBACK`)
			conn.Close()
			db.Close()
		}
	}
	t.Cleanup(release)
	return release
}

func TestOpenCreatesMissingFolders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "waymark.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	s.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != SchemaVersion {
		t.Fatalf("schema %d, want %d", v, SchemaVersion)
	}
	var mode string
	s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Fatalf("journal mode %s", mode)
	}
}

// The app may close its store from two goroutines at once (its normal
// return and the close watch, when the window's loop does not end): both
// calls return the first one's result, and the file opens again after.
func TestCloseTwiceAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "waymark.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- s.Close() }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("close: %v", err)
		}
	}
	again, err := Open(path)
	if err != nil {
		t.Fatalf("open after closing twice: %v", err)
	}
	again.Close()
}

func TestOpenRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	// The bytes are the same in every run: whether SQLite finds a file with
	// its header and garbage after it "not a database" or "malformed"
	// depends on the garbage (about 1 in 60 random fillings is malformed),
	// and both must be refused without a change, each with its own advice.
	junk := func(seed byte, n int) []byte {
		b := make([]byte, n)
		rand.NewChaCha8([32]byte{seed}).Read(b)
		return b
	}
	header := []byte("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20")
	cases := []struct {
		name    string
		content []byte
		want    error
		advice  string
	}{
		{"random.db", junk(1, 8192), ErrNotDatabase, "it was not changed"},
		{"notes.txt", []byte("these are my notes, not a database\n"), ErrNotDatabase, "it was not changed"},
		// A SQLite header followed by garbage SQLite does not take for a
		// database (its schema format is not one it knows)...
		{"corrupt.db", append(slices.Clone(header), junk(1, 4000)...), ErrNotDatabase, "it was not changed"},
		// ...and garbage it takes for a damaged one.
		{"malformed.db", append(slices.Clone(header), junk(190, 4000)...), ErrDamaged, "Nothing was changed"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.content, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path)
		if err == nil {
			s.Close()
			t.Errorf("%s: opened", c.name)
			continue
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.advice) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want %q, naming the file and saying %q", c.name, err, c.want, c.advice)
		}
		after, _ := os.ReadFile(path)
		if !bytes.Equal(after, c.content) {
			t.Errorf("%s was changed by the failed open", c.name)
		}
	}
	// A folder where the file should be.
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	task := wmTask(t, s, "keep me", Navigation, "http://a.test/")
	s.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, SchemaVersion+5))
	s.Close()
	before, _ := os.ReadFile(path)
	_, err = Open(path)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "update Waymark") {
		t.Fatalf("newer schema: %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a newer file was altered")
	}
	raw, _ := sql.Open("sqlite3", path)
	defer raw.Close()
	var goal string
	if err := raw.QueryRow(`SELECT goal FROM tasks WHERE id=?`, task.ID).Scan(&goal); err != nil || goal != "keep me" {
		t.Fatalf("task lost: %q %v", goal, err)
	}
}

func TestOpenUnwritableFolder(t *testing.T) {
	// A folder that cannot be created (its parent is a file).
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	_, err := Open(filepath.Join(file, "sub", "waymark.db"))
	if err == nil || !strings.Contains(err.Error(), "cannot create the folder") || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("folder under a file: %v", err)
	}
	// A read-only folder. root ignores permission bits, so as root use a
	// folder of a read-only file system.
	dir := "/sys/fs"
	if os.Geteuid() != 0 {
		dir = t.TempDir()
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
	}
	_, err = Open(filepath.Join(dir, "waymark.db"))
	if err == nil || !strings.Contains(err.Error(), "cannot write the database") || !strings.Contains(err.Error(), "permissions") {
		t.Fatalf("read-only folder: %v", err)
	}
}

func TestLockedDatabase(t *testing.T) {
	old := busyTimeoutMS
	busyTimeoutMS = 300
	defer func() { busyTimeoutMS = old }()
	path := filepath.Join(t.TempDir(), "w.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Another program writing: reads go on, writes fail with ErrLocked
	// after the busy timeout instead of hanging.
	release := wmHoldWriteLock(t, path)
	start := time.Now()
	_, err = s.AddTask(t.Context(), Task{Goal: "g", Category: Navigation, StartURL: "http://a.test/"})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("write while locked: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("waited %v", time.Since(start))
	}
	if _, err := s.ListTasks(t.Context(), TaskFilter{}); err != nil {
		t.Fatalf("reads must go on during another's write: %v", err)
	}
	release()
	if _, err := s.AddTask(t.Context(), Task{Goal: "g", Category: Navigation, StartURL: "http://a.test/"}); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
	s.Close()

	// A program holding an exclusive lock (locking_mode EXCLUSIVE): even
	// opening fails, with ErrLocked, in bounded time.
	db, _ := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=0")
	defer db.Close()
	conn, _ := db.Conn(context.Background())
	defer conn.Close()
	for _, q := range []string{`PRAGMA locking_mode = EXCLUSIVE`, `BEGIN EXCLUSIVE`, `INSERT INTO meta(key,value) VALUES('x','y')`, `COMMIT`} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(q, err)
		}
	}
	start = time.Now()
	s2, err := Open(path)
	if err == nil {
		s2.Close()
		t.Fatal("opened a database another program holds exclusively")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "close the other Waymark") {
		t.Fatalf("open while exclusively locked: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("waited %v", time.Since(start))
	}
}

// TestChildRecorder is not a test: it is the child process of the tests
// below (run with WAYMARK_TEST_CHILD set). It records an episode and prints
// "recorded N" after each step the recorder returned.
func TestChildRecorder(t *testing.T) {
	mode := os.Getenv("WAYMARK_TEST_CHILD")
	if mode == "" {
		t.Skip("helper process for TestSigkillMidRecording and TestOpenLeavesLiveRecordersAlone")
	}
	s, err := Open(os.Getenv("WAYMARK_TEST_DB"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	if mode == "openclose" {
		// Another program that opens the store and closes it again.
		s.Close()
		os.Exit(0)
	}
	task, _, _ := s.FindTask(t.Context(), "Record until killed", "http://shop.waymark.test/")
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "child"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("episode", rec.EpisodeID())
	fmt.Println("recorded 0")
	if mode == "hold" {
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent kills us
		os.Exit(0)
	}
	if mode == "lockdrop" || mode == "guarded" {
		lockDropChild(s, rec, mode)
	}
	for i := 1; ; i++ {
		if _, err := rec.Step(ctx, action.ClickAt(i%800, i%600)); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("recorded", i)
	}
}

// wmChild starts the helper process on the store at path.
func wmChild(t *testing.T, path, mode string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRecorder$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WAYMARK_TEST_CHILD="+mode, "WAYMARK_TEST_DB="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := cmd.StdinPipe()
	t.Cleanup(func() { stdin.Close() })
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func wmChildStore(t *testing.T) (string, *Store) {
	path := filepath.Join(t.TempDir(), "shared.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	wmTask(t, s, "Record until killed", Navigation, "http://shop.waymark.test/")
	return path, s
}

func TestSigkillMidRecording(t *testing.T) {
	path, s := wmChildStore(t)
	cmd, out := wmChild(t, path, "record")
	var episode string
	last := -1
	// The recording phase lasts 40 steps or 2 s from the child's first
	// step, whichever comes first, and at least one step: the child's own
	// start (a race-instrumented binary drawing its page pictures) can take
	// many seconds on a busy machine, and is not what is measured.
	var deadline time.Time
	for out.Scan() {
		line := out.Text()
		if id, ok := strings.CutPrefix(line, "episode "); ok {
			episode = id
			continue
		}
		n, ok := strings.CutPrefix(line, "recorded ")
		if !ok {
			t.Fatalf("child: %s", line)
		}
		last, _ = strconv.Atoi(n)
		if deadline.IsZero() {
			deadline = time.Now().Add(2 * time.Second)
		}
		if last >= 40 || last >= 1 && time.Now().After(deadline) {
			break
		}
	}
	// Kill it while it is writing the next steps.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if last < 1 {
		t.Fatalf("the child recorded nothing (last %d)", last)
	}
	if v, err := s.IntegrityCheck(t.Context()); err != nil || v != "ok" {
		t.Fatalf("integrity_check after SIGKILL: %q %v", v, err)
	}
	steps, err := s.Steps(t.Context(), episode)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < last+1 {
		t.Fatalf("the child reported %d steps recorded, the store holds %d", last+1, len(steps))
	}
	for i, st := range steps {
		if st.Index != i {
			t.Fatalf("step %d has index %d", i, st.Index)
		}
		if shot, err := s.Screenshot(t.Context(), episode, i); err != nil || len(shot) < 1000 {
			t.Fatalf("screenshot of step %d: %d bytes, %v", i, len(shot), err)
		}
	}
	// This store was open all along: it must not have touched the episode.
	// The next Open finds the recorder dead and marks it interrupted.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ep, _ := s2.GetEpisode(t.Context(), episode)
	if ep.Status != StatusInterrupted || ep.NumSteps != len(steps)-1 || ep.EndedAt == nil {
		t.Fatalf("after reopening: %+v (stored %d steps)", ep, len(steps))
	}
	t.Logf("child reported %d steps, store holds %d", last+1, len(steps))
}

func TestOpenLeavesLiveRecordersAlone(t *testing.T) {
	path, s := wmChildStore(t)
	cmd, out := wmChild(t, path, "hold")
	var episode string
	for out.Scan() {
		if id, ok := strings.CutPrefix(out.Text(), "episode "); ok {
			episode = id
		}
		if out.Text() == "recorded 0" {
			break
		}
	}
	if episode == "" {
		t.Fatal("the child did not start recording")
	}
	// The GUI opens the same file while `serve --record` records.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := s2.GetEpisode(t.Context(), episode)
	s2.Close()
	if ep.Status != StatusRecording {
		t.Fatalf("a live recorder's episode became %s", ep.Status)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	s3, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if ep, _ = s3.GetEpisode(t.Context(), episode); ep.Status != StatusInterrupted {
		t.Fatalf("a dead recorder's episode stayed %s", ep.Status)
	}
	deadPid := cmd.Process.Pid

	// Owners written by hand: which ones count as alive.
	host, _ := os.Hostname()
	task, _, _ := s.FindTask(t.Context(), "Record until killed", "http://shop.waymark.test/")
	old := time.Now().Add(-48 * time.Hour)
	cases := []struct {
		name, owner string
		started     time.Time
		alive       bool
	}{
		{"this process", s.owner, time.Now(), true},
		{"this pid, another start token (pid reused)", host + "|" + strconv.Itoa(os.Getpid()) + "|boot:1", time.Now(), false},
		{"dead pid", host + "|" + strconv.Itoa(deadPid) + "|" + "x:1", time.Now(), false},
		{"no owner (older store)", "", time.Now(), false},
		{"garbage", "???", time.Now(), false},
		{"another host, recent", "elsewhere-host|42|t", time.Now(), true},
		{"another host, silent for 2 days", "elsewhere-host|42|t", old, false},
	}
	ids := map[string]string{}
	for _, c := range cases {
		e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "x", StartedAt: c.started})
		if err != nil {
			t.Fatal(err)
		}
		s.db.Exec(`UPDATE episodes SET owner=? WHERE id=?`, c.owner, e.ID)
		ids[c.name] = e.ID
	}
	s4, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s4.Close()
	for _, c := range cases {
		ep, _ := s4.GetEpisode(t.Context(), ids[c.name])
		if got := ep.Status == StatusRecording; got != c.alive {
			t.Errorf("%s: status %s, want alive=%v", c.name, ep.Status, c.alive)
		}
	}
}
