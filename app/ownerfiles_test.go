package app

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"waymark/engine/action"
)

// withUmask022 runs the test under the common umask 022, with which a
// file made 0666 or a folder made 0777 is readable by everyone.
func withUmask022(t *testing.T) {
	t.Helper()
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

// wantMode fails the test unless path has the permission bits want.
func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s is %04o, want %04o", path, got, want)
	}
}

// The files gif -o and endpoints -o write hold recorded data (every
// step's screenshot; sample values of the site's API calls) and are the
// owner's only, like the store: 0600 under umask 022, and a file that was
// there before (0644) is made 0600 too. Before, both were 0644.
func TestRecordedFilesAreOwnerOnly(t *testing.T) {
	withUmask022(t)
	dir := t.TempDir()

	gifDB := exportFixture(t)
	for _, pre := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("ep-%v.gif", pre))
		if pre {
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code, stdout, stderr := runMain("--db", gifDB, "gif", "e1", "-o", out); code != 0 {
			t.Fatalf("gif: exit %d\n%s%s", code, stdout, stderr)
		}
		wantMode(t, out, 0o600)
	}

	epDB, task, _ := endpointsStore(t)
	for _, pre := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("shop-%v.yaml", pre))
		if pre {
			if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code, stdout, stderr := runMain("--db", epDB, "endpoints", "--task", task, "-o", out); code != 0 {
			t.Fatalf("endpoints: exit %d\n%s%s", code, stdout, stderr)
		}
		wantMode(t, out, 0o600)
		if b, _ := os.ReadFile(out); !bytes.HasPrefix(b, []byte("openapi: 3.1.0\n")) {
			t.Errorf("%s holds %.40q", out, b)
		}
	}
}

// play --shots makes its folder 0700 and each screenshot 0600, under
// umask 022, with the observations as actions (default) and as BrowserGym
// observations; replay --report writes its report (the episode's URLs and
// verdicts) 0600. Before: a 0755 folder of 0644 screenshots, a 0644 report.
func TestPlayShotsAreOwnerOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	withUmask022(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>start</title><body><p>a page</p></body>`)
	}))
	defer site.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		args  []string
		input string
	}{
		{"actions", nil, `{"op":"scroll","dy":100}` + "\n" + `{"op":"finish","text":"x"}` + "\n"},
		{"browsergym", []string{"--obs", "browsergym", "--goal", "Read the page"}, "scroll(0, 100)\nsend_msg_to_user('x')\n"},
	} {
		shots := filepath.Join(dir, c.name, "shots")
		args := append([]string{"play", "--start-url", site.URL + "/", "--display", "headless", "--shots", shots}, c.args...)
		var stdout, stderr bytes.Buffer
		if code := Main(args, strings.NewReader(c.input), &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.name, code, stdout.String(), stderr.String())
		}
		wantMode(t, shots, 0o700)
		pics, _ := filepath.Glob(filepath.Join(shots, "*.png"))
		if len(pics) < 2 {
			t.Errorf("%s: %d screenshots in %s", c.name, len(pics), shots)
		}
		for _, p := range pics {
			wantMode(t, p, 0o600)
		}
	}

	db, id := recordHeadless(t, "", site.URL+"/", action.ScrollBy(100), action.FinishWith("x"))
	report := filepath.Join(dir, "replay.json")
	if code, stdout, stderr := runMain("--db", db, "replay", id, "--display", "headless", "--report", report); code != 0 {
		t.Fatalf("replay: exit %d\n%s%s", code, stdout, stderr)
	}
	wantMode(t, report, 0o600)
}
