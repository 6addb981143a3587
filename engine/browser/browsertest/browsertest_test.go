package browsertest

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestStartRemote starts a remote Chromium, reads its DevTools version
// endpoint at the address the kit gives, and kills it.
func TestStartRemote(t *testing.T) {
	path := LookChromium()
	if path == "" {
		t.Skip("no Chromium on PATH")
	}
	r := StartRemote(t, RemoteOptions{Path: path, NoSandbox: os.Geteuid() == 0})
	resp, err := http.Get(r.HTTP + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if v.WS != r.WS || !strings.HasPrefix(r.WS, "ws://127.0.0.1:") {
		t.Fatalf("DevTools says %q, the kit %q", v.WS, r.WS)
	}
	if err := r.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("signal to a live Chromium: %v", err)
	}
	r.Kill()
	if _, err := http.Get(r.HTTP + "/json/version"); err == nil {
		t.Fatal("the Chromium still answers after Kill")
	}
	if err := r.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("signal to a gone Chromium: %v (want no error)", err)
	}
	r.Kill() // twice is no error
}

// TestStartXvfb starts a display and finds its X socket.
func TestStartXvfb(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb on PATH")
	}
	d := StartXvfb(t, "640x480x24")
	if !strings.HasPrefix(d, ":") {
		t.Fatalf("display %q", d)
	}
	if _, err := os.Stat("/tmp/.X11-unix/X" + d[1:]); err != nil {
		t.Fatalf("display %s has no socket: %v", d, err)
	}
}
