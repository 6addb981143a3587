package browser

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/chromium"
)

// TestChildEngine is not a test: it is the program TestKilledOwnerLeavesNothing
// kills. It starts an engine on Xvfb, opens a page and waits.
func TestChildEngine(t *testing.T) {
	url := os.Getenv("WAYMARK_TEST_CHILD_URL")
	if url == "" {
		t.Skip("helper process")
	}
	e := newEngine(t, engine.DisplayXvfb, nil)
	reset(t, e, url)
	fmt.Printf("ready %s %d\n", filepath.Dir(e.Profile()), e.XvfbPID()) // the run folder holds the profile
	select {}
}

// When the program that owns a browser dies by SIGKILL, its Chromium (every
// helper process), its Xvfb and its profile folder (cookies included) must
// go at once, not seconds later or never.
func TestKilledOwnerLeavesNothing(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("Xvfb is not installed")
	}
	ts := newSite(t)
	for trial := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildEngine$", "-test.count=1")
		cmd.Env = append(os.Environ(), "WAYMARK_TEST_CHILD_URL="+ts.URL+"/")
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var dir string
		var xpid int
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "ready" {
				dir = f[1]
				xpid, _ = strconv.Atoi(f[2])
				break
			}
		}
		if dir == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child did not start its browser")
		}
		if n := len(procsWith(dir)); n < 3 {
			t.Fatalf("only %d processes use %s before the kill", n, dir)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		killed := time.Now()
		cmd.Wait()
		// 1.5 s on an idle machine; the reaper, a process that must be
		// scheduled to kill and remove, gets the page operations' patience
		// on a busy one (chromium.Patient).
		within := chromium.Patient(1500 * time.Millisecond)
		var left []string
		for time.Since(killed) < within {
			left = procsWith(dir)
			if xpid > 0 && alive(xpid) {
				left = append(left, fmt.Sprintf("Xvfb %d", xpid))
			}
			if _, err := os.Stat(dir); err == nil {
				left = append(left, "the folder "+dir)
			}
			if len(left) == 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if len(left) > 0 {
			t.Fatalf("trial %d: %v after the kill these remain: %v", trial, within.Round(100*time.Millisecond), left)
		}
		t.Logf("trial %d: everything gone %v after the kill", trial, time.Since(killed).Round(time.Millisecond))
	}
}

// Chromium leads a process group of its own and its helpers stay in it, so
// the reaper ends them all with one kill of the group when the owner dies.
func TestChromiumHelpersShareItsProcessGroup(t *testing.T) {
	ts := newSite(t)
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, ts.URL+"/")
	pid := e.BrowserPID()
	procs := chromium.ProcessesUsingDir(e.Profile())
	if pid == 0 || len(procs) < 3 {
		t.Fatalf("browser pid %d, %d processes with its profile", pid, len(procs))
	}
	for p, cmdline := range procs {
		if g, err := syscall.Getpgid(p); err == nil && g != pid {
			t.Errorf("process %d (%.80s) is in process group %d, not Chromium's (%d)", p, cmdline, g, pid)
		}
	}
}
