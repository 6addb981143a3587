package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/chromium"
	"waymark/engine/openenv"
)

// `serve --idle-timeout`: an agent that connects, resets and then sends
// nothing loses its session once the bound passes, though its connection
// stays open: its browser context closes, its episode is stored as
// interrupted with the end reason idle_timeout, its next message is told
// why, and the --max-sessions 1 slot serves the next agent. The bound is
// 10 minutes unless given; 0 turns it off.
func TestServeIdleTimeoutFreesTheSession(t *testing.T) {
	env := &Env{DBPath: filepath.Join(t.TempDir(), "w.db")}
	for _, c := range []struct {
		args []string
		want time.Duration
		err  string
	}{
		{nil, openenv.DefaultIdleTimeout, ""},
		{[]string{"--idle-timeout", "0"}, -1, ""},
		{[]string{"--idle-timeout", "-5s"}, 0, "--idle-timeout must be 0 (never) or a duration"},
	} {
		cfg, _, err := parseServe(env, c.args)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("serve %v: %v, want %q", c.args, err, c.err)
		} else if err == nil && cfg.IdleTimeout != c.want {
			t.Errorf("serve %v: idle timeout %v, want %v", c.args, cfg.IdleTimeout, c.want)
		}
	}
	cfg, _, err := parseServe(env, []string{"--record", "--idle-timeout", "1s"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Settings.Display, cfg.Logf = engine.DisplayHeadless, t.Logf
	sv, err := newServing(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() { sv.Close(); hs.Close() }()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<title>p</title>page")) }))
	defer site.Close()

	ctx := context.Background()
	silent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if _, err := silent.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })
	if n, err := chromium.SharedPool().OpenPages(ctx); err != nil || n != 0 {
		t.Errorf("open pages after the idle session ended: %d %v", n, err)
	}
	if _, err := silent.Step(ctx, engine.Action{Op: "wait"}); err == nil || !strings.Contains(err.Error(), "IDLE_TIMEOUT") ||
		!strings.Contains(err.Error(), "No reset or step for 1s") {
		t.Errorf("the silent agent's next step: %v", err)
	}
	next, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := next.Reset(ctx, engine.ResetOptions{StartURL: site.URL + "/"}); err != nil {
		t.Errorf("the next agent: %v", err)
	}
	eps, err := sv.store.ListEpisodes(ctx, dataset.EpisodeFilter{OldestFirst: true})
	if err != nil || len(eps) == 0 {
		t.Fatalf("episodes: %d %v", len(eps), err)
	}
	if ep := eps[0]; ep.Status != dataset.StatusInterrupted || ep.EndReason != "idle_timeout" {
		t.Errorf("the idle episode: %s, end reason %q", ep.Status, ep.EndReason)
	}
}
