package chromium

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A run folder whose owner died without its reaper is removed by the next
// engine; a live one is left alone.
func TestStaleRunFoldersSwept(t *testing.T) {
	root := runRoot()
	os.MkdirAll(root, 0o700)
	dead := filepath.Join(root, "run-999999999-1")
	os.MkdirAll(filepath.Join(dead, "profile-1", "Default"), 0o700)
	os.WriteFile(filepath.Join(dead, "owner.lock"), nil, 0o600)
	os.WriteFile(filepath.Join(dead, "profile-1", "Default", "Cookies"), []byte("secret"), 0o600)
	live, err := newRunGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the dead owner's folder is still there: %v", err)
	}
	other, err := newRunGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	if _, err := os.Stat(live.dir); err != nil {
		t.Fatalf("a live engine's folder was swept: %v", err)
	}
	p, err := live.newProfile()
	if err != nil || !strings.HasPrefix(p, live.dir+"/") {
		t.Fatalf("profile %q %v", p, err)
	}
	live.close()
	if _, err := os.Stat(live.dir); !os.IsNotExist(err) {
		t.Fatalf("close left %s", live.dir)
	}
}

// A closed engine leaves no process behind: its reaper has ended too.
func TestCloseEndsTheReaper(t *testing.T) {
	g, err := newRunGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.done == nil {
		t.Fatal("no reaper started")
	}
	g.close()
	select {
	case <-g.done:
	default:
		t.Fatal("the reaper still runs after close")
	}
}

// A reaper that has not run by the time the engine closes (a starved
// process on a busy machine; here a stopped one) is ended, not left behind.
func TestCloseEndsAStalledReaper(t *testing.T) {
	g, err := newRunGuard(nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.done == nil || g.pid == 0 {
		t.Fatal("no reaper started")
	}
	if err := syscall.Kill(g.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	g.close()
	select {
	case <-g.done:
	default:
		syscall.Kill(g.pid, syscall.SIGKILL)
		t.Fatal("a stalled reaper still runs after close")
	}
}
