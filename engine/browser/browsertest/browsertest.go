// Package browsertest starts the real programs tests drive a browser
// with: a private Xvfb display, and a Chromium as its own process with a
// DevTools port on 127.0.0.1, as a browser farm runs it. Tests that use
// it must hold the machine's Chromium lock (they start Chromium or Xvfb).
//
// It imports nothing of waymark, so engine/browser's own tests can use it.
package browsertest

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartXvfb starts a private X display of the given screen (e.g.
// "1280x900x24"), stopped when the test ends, and returns its name (":N").
// The display does not repeat held keys (-r): tests press keys with
// xdotool, and a loaded machine can stall xdotool between a key's press
// and its release for longer than the repeat delay (660 ms), which turned
// one press of Ctrl+Shift+F into the shortcut and two more f's typed into
// the dialog it opened.
func StartXvfb(t testing.TB, screen string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-r")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
		r.Close()
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatal("Xvfb gave no display number")
		}
		return ":" + n
	case <-time.After(10 * time.Second):
		t.Fatal("Xvfb did not start in 10 s")
	}
	return ""
}

// ChromiumNames are the programs LookChromium looks for on PATH, in order.
var ChromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// LookChromium returns the first of ChromiumNames on PATH, or "".
func LookChromium() string {
	for _, name := range ChromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// RemoteOptions say how to start a remote Chromium.
type RemoteOptions struct {
	// Path is the Chromium to run (required: LookChromium finds one).
	Path string
	// NoSandbox adds --no-sandbox (needed when running as root).
	NoSandbox bool
	// StartWait bounds the wait for its DevTools port (0: 15 s).
	StartWait time.Duration
	// Defaults starts it with Chromium's own features, as a farm that
	// knows nothing of Waymark runs it. Without it, what the engine turns
	// off in its own Chromium is off there too: the omnibox WebUI popups
	// every window preloads and the spare renderer process.
	Defaults bool
}

// Remote is a Chromium started as its own process (in its own process
// group) with a DevTools port on 127.0.0.1.
type Remote struct {
	cmd  *exec.Cmd
	HTTP string // http://127.0.0.1:PORT
	WS   string // ws://127.0.0.1:PORT/devtools/browser/…
	done chan struct{}
}

// StartRemote starts a remote Chromium, killed when the test ends (or
// before, by Kill).
func StartRemote(t testing.TB, o RemoteOptions) *Remote {
	t.Helper()
	wait := o.StartWait
	if wait <= 0 {
		wait = 15 * time.Second
	}
	dir := t.TempDir()
	args := []string{"--headless=new", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir=" + dir, "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage", "about:blank"}
	if !o.Defaults {
		// What the engine turns off in its own Chromium, so each browser
		// context the tests open costs the same CPU: the omnibox WebUI
		// popups every window preloads and the spare renderer process.
		args = append(args, "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,SpareRendererForSitePerProcess")
	}
	if o.NoSandbox {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(o.Path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &Remote{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(r.done) }()
	t.Cleanup(r.Kill)
	for deadline := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			r.HTTP = "http://127.0.0.1:" + lines[0]
			r.WS = "ws://127.0.0.1:" + lines[0] + lines[1]
			return r
		}
		select {
		case <-r.done:
			t.Fatal("the remote Chromium exited at start")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the remote Chromium wrote no DevToolsActivePort within %s", wait)
		}
	}
}

// PID is the Chromium's process id (also its process group's).
func (r *Remote) PID() int { return r.cmd.Process.Pid }

// Kill stops the Chromium and its helpers at once, as a crash would, and
// waits for it. Killing twice is no error.
func (r *Remote) Kill() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
}

// Signal sends sig to the Chromium and its helpers (SIGSTOP freezes a
// farm without closing its connections); one already gone is no error.
func (r *Remote) Signal(sig syscall.Signal) error {
	if err := syscall.Kill(-r.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
