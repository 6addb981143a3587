package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine/browser/browsertest"
	"waymark/ui/review/reviewtest"
)

// runDemoEnv, when set, makes the test binary run the demo program itself.
const runDemoEnv = "WAYMARK_RUN_REVIEW_DEMO"

// TestMain runs the demo instead of the tests when runDemoEnv is set. It
// runs on the main thread, which Fyne's window needs (the GL bindings lock
// it to the main goroutine at start-up).
func TestMain(m *testing.M) {
	if os.Getenv(runDemoEnv) != "" {
		main()
		return
	}
	os.Exit(m.Run())
}

// startXvfb starts a private X display and returns its name (":N").
func startXvfb(t *testing.T) string {
	t.Helper()
	return browsertest.StartXvfb(t, "1920x1080x24")
}

// TestLabelTwoRecordedEpisodesWithTheKeyboard records two real episodes
// (practice sites, headless Chromium, the dataset recorder), runs the Review
// tab in a real Fyne window on Xvfb, labels both episodes with keys sent by
// xdotool only, takes a screenshot, and checks the stored reviews.
func TestLabelTwoRecordedEpisodesWithTheKeyboard(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test (builds a GUI program, runs Chromium and Xvfb)")
	}
	for _, bin := range []string{"Xvfb", "xdotool", "import", "chromium"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", bin)
		}
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "review.db")
	s, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	ids, err := reviewtest.Record(ctx, s, reviewtest.Scripts)
	cancel()
	s.Close()
	if err != nil || len(ids) != 2 {
		t.Fatalf("recording the episodes: %v (%d recorded)", err, len(ids))
	}
	wiki, shop := ids[0], ids[1] // the queue shows the newest (shop) first

	// The program is this test binary run again as the demo (TestMain): no
	// go build of a second Fyne program (48 s on a loaded machine).
	display := startXvfb(t)
	cmd := exec.Command(os.Args[0], "-db", db, "-user", "rita", "-echo")
	cmd.Env = append(os.Environ(), runDemoEnv+"=1", "DISPLAY="+display, "LANG=en_US.UTF-8", "FYNE_SCALE=1")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The program prints "ready" before its window opens, then a line for
	// each key ("key N") and shortcut ("shortcut …") after the tab has
	// handled it. The test waits for those lines, not for the clock: a
	// loaded machine can take seconds to map the window or handle a key.
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
	}()
	waitLine := func(what string, want func(string) bool, within time.Duration) bool {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the review program ended while waiting for %s", what)
				}
				if want(l) {
					return true
				}
			case <-deadline:
				return false
			}
		}
	}
	if !waitLine(`"ready"`, func(l string) bool { return l == "ready" }, 60*time.Second) {
		t.Fatal("the review window did not start")
	}
	run := func(args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "xdotool", args...)
		c.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, out)
		}
	}
	// The window takes keys once it is mapped and has focus: F12 (no
	// review key) is sent until the program says it saw one.
	run("search", "--sync", "--onlyvisible", "--name", "^Waymark.*Review$") // WM_NAME drops the dash in some locales
	taking := false
	for i := 0; i < 120 && !taking; i++ {
		run("key", "F12")
		taking = waitLine("F12", func(l string) bool { return l == "key F12" }, 500*time.Millisecond)
	}
	if !taking {
		t.Fatal("the review window took no key in 60 s")
	}
	// xdo sends one key and waits until the program has handled it.
	xdo := func(key string) {
		t.Helper()
		run("key", key)
		want := func(l string) bool { return strings.EqualFold(l, "key "+key) }
		if strings.HasPrefix(key, "ctrl+") {
			want = func(l string) bool { return strings.HasPrefix(l, "shortcut ") }
		}
		if !waitLine("key "+key, want, 60*time.Second) {
			t.Fatalf("the review program did not handle the key %q in 60 s", key)
		}
	}
	// Shop episode: N opens it at step 1; → → to step 3; 2 = failure (first
	// failing step = the step shown); T = first failure type; M flags the
	// step as a mistake; Ctrl+S saves; N goes to the wiki episode; 1 =
	// success; N saves it.
	screenshot := func(name string) {
		t.Helper()
		shot := filepath.Join(dir, name)
		imp := exec.Command("import", "-window", "root", shot)
		imp.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := imp.CombinedOutput(); err != nil {
			t.Errorf("screenshot: %v %s", err, out)
			return
		}
		keep := filepath.Join(os.TempDir(), "waymark-"+name)
		if b, err := os.ReadFile(shot); err == nil && os.WriteFile(keep, b, 0o644) == nil {
			t.Logf("screenshot: %s", keep)
		}
	}
	for _, k := range []string{"n", "Right", "Right", "2", "t", "m", "ctrl+s"} {
		xdo(k)
	}
	screenshot("review-e2e-failure.png")
	for _, k := range []string{"n", "1", "End", "space", "n"} {
		xdo(k)
	}
	screenshot("review-e2e-done.png")

	s, err = dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(ep string, want func(dataset.Review) error) {
		t.Helper()
		rs, err := s.CurrentReviews(t.Context(), ep)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("episode %s has %d reviews, want 1", ep, len(rs))
		}
		if err := want(rs[0]); err != nil {
			t.Errorf("episode %s: %v (review %+v)", ep, err, rs[0])
		}
	}
	check(shop, func(r dataset.Review) error {
		if r.Reviewer != "rita" || r.Outcome != dataset.OutcomeFailure || r.FailureStep == nil || *r.FailureStep != 3 ||
			r.FailureType != dataset.FailureTypes[0] || len(r.StepFlags[3]) != 1 {
			return fmt.Errorf("want rita's failure at step 3, %s, flagged", dataset.FailureTypes[0])
		}
		return nil
	})
	check(wiki, func(r dataset.Review) error {
		if r.Outcome != dataset.OutcomeSuccess {
			return fmt.Errorf("want success")
		}
		return nil
	})
}
