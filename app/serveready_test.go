package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
	"waymark/engine/openenv"
)

// ready reads GET /ready: its status, ready flag and detail.
func ready(t *testing.T, base string) (int, bool, string) {
	t.Helper()
	res, err := http.Get(base + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Ready  bool   `json:"ready"`
		Detail string `json:"detail"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("/ready: %v", err)
	}
	return res.StatusCode, body.Ready, body.Detail
}

// /health answers as soon as serve listens; /ready says whether a session
// started now gets the warm browser: 503 while serve's Chromium starts,
// 200 once it runs, and the first reset then uses that Chromium instead of
// starting one. The Chromium here is held at its start by a wrapper until
// the test lets it go.
func TestServeReadyOnceTheBrowserIsWarm(t *testing.T) {
	real, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium")
	}
	dir := t.TempDir()
	gate := filepath.Join(dir, "go")
	wrapper := "#!/bin/sh\nwhile [ ! -e " + gate + " ]; do sleep 0.05; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "chromium"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	starts := chromium.SharedPool().Stats().Starts

	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	sv, err := newServing(&Env{DBPath: filepath.Join(t.TempDir(), "w.db")}, serveConfig{MaxSessions: 1,
		ActionSet: action.SetDefault, Settings: set, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()

	if res, err := http.Get(hs.URL + "/health"); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/health while the browser starts: %v %v", res, err)
	}
	if code, ok, why := ready(t, hs.URL); code != http.StatusServiceUnavailable || ok || why != "the browser is starting; a reset now waits for it" {
		t.Errorf("/ready while the browser starts: %d %v %q", code, ok, why)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { code, ok, _ := ready(t, hs.URL); return code == http.StatusOK && ok })
	if !chromium.SharedPool().Warm() {
		t.Error("/ready said ready with no warm browser")
	}
	started := chromium.SharedPool().Stats().Starts - starts
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<title>ok</title>")) }))
	defer site.Close()
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if o, err := c.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil || o.URL != site.URL+"/" || o.Error != "" {
		t.Fatalf("reset: %q %q %v", o.URL, o.Error, err)
	}
	if n := chromium.SharedPool().Stats().Starts - starts; n != started || started != 1 {
		t.Errorf("Chromium starts: %d before the reset (want 1, serve's), %d after it", started, n)
	}
}
