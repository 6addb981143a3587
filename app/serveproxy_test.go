package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// ownLoopbackListeners lists the ports this process listens on at
// 127.0.0.1, found as any local program finds them (/proc/net/tcp; the
// socket inodes matched to this process's descriptors).
func ownLoopbackListeners(t *testing.T) []int {
	t.Helper()
	inodes := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	raw, err := os.ReadFile("/proc/self/net/tcp")
	if err != nil {
		t.Skip("no /proc/self/net/tcp")
	}
	var ports []int
	for _, line := range strings.Split(string(raw), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: LISTEN
			continue
		}
		addr, port, _ := strings.Cut(f[1], ":")
		if addr != "0100007F" { // 127.0.0.1
			continue
		}
		n, _ := strconv.ParseUint(port, 16, 16)
		ports = append(ports, int(n))
	}
	return ports
}

// relay asks the listener at port to relay a GET of target, as
// `curl -x http://127.0.0.1:PORT TARGET` does; 0 when it is no HTTP server.
func relay(port int, target string) (int, string) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		return 0, ""
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	host := strings.TrimPrefix(target, "http://")
	host, _, _ = strings.Cut(host, "/")
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	return res.StatusCode, string(b)
}

// While `serve --task-pack` runs an episode on a practice site, no local
// program can use serve's host-mapping proxy: every loopback port the
// process listens on, asked to relay a request to serve's own /sessions
// (or to the practice site), refuses or does not relay; the proxy answers
// 407. The episode's page loaded through that proxy all the same.
func TestServeHostProxyIsNoOpenProxy(t *testing.T) {
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	sv, err := newServing(&Env{DBPath: filepath.Join(t.TempDir(), "w.db")}, serveConfig{MaxSessions: 1, TaskPack: true,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{StepDetails: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	o, err := c.ResetWith(ctx, engine.ResetOptions{}, map[string]any{"task_id": "shop-search-red-shoes"})
	if err != nil || o.Error != "" || !strings.HasPrefix(o.URL, "http://shop.waymark.test/") {
		t.Fatalf("the practice task's page: %q %q %v", o.URL, o.Error, err)
	}
	serveAddr := strings.TrimPrefix(hs.URL, "http://")
	proxies := 0
	for _, port := range ownLoopbackListeners(t) {
		if "127.0.0.1:"+strconv.Itoa(port) == serveAddr {
			continue
		}
		code, body := relay(port, hs.URL+"/sessions")
		if code == http.StatusOK && strings.Contains(body, `"sessions"`) {
			t.Errorf("127.0.0.1:%d relayed GET %s/sessions: %d %.200q", port, hs.URL, code, body)
		}
		if code != http.StatusProxyAuthRequired {
			continue // another server of the process (the practice sites')
		}
		proxies++
		if code, body := relay(port, "http://shop.waymark.test/"); code != http.StatusProxyAuthRequired {
			t.Errorf("the proxy at 127.0.0.1:%d relayed a practice page to a local program: %d %.200q", port, code, body)
		}
	}
	if proxies == 0 {
		t.Error("no listener answered as the host-mapping proxy (407): the scan did not find it")
	}
}
