package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

// A raw OpenEnv client (no Waymark code on its side) resetting to a
// practice site on a serve without --task-pack reads in the observation
// itself what to do, not only Chromium's bare ERR_NAME_NOT_RESOLVED: over
// the WebSocket, in BrowserGym's last_action_error, and from the stateless
// HTTP /reset.
func TestServeExplainsPracticeHostsToEveryClient(t *testing.T) {
	const page = "http://shop.waymark.test/"
	explained := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, "ERR_NAME_NOT_RESOLVED") || !strings.Contains(msg, "shop.waymark.test is a built-in practice site") ||
			!strings.Contains(msg, "'waymark serve --task-pack'") {
			t.Errorf("%s: %q, want the error and what to do", what, msg)
		}
	}
	for _, gym := range []bool{false, true} {
		set := engine.DefaultSettings()
		set.Display = engine.DisplayHeadless
		cfg := serveConfig{MaxSessions: 1, ActionSet: action.SetDefault, Settings: set, Logf: t.Logf}
		if gym {
			cfg.BrowserGym, cfg.ActionSet = true, action.SetBrowserGym
		}
		sv, err := newServing(&Env{DBPath: filepath.Join(t.TempDir(), "w.db")}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(sv.srv)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(100 << 20)
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"reset","data":{"start_url":"`+page+`"}}`)); err != nil {
			t.Fatal(err)
		}
		_, raw, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Type string `json:"type"`
			Data struct {
				Observation map[string]any `json:"observation"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Type != "observation" {
			t.Fatalf("reset: %.300s %v", raw, err)
		}
		if gym {
			msg, _ := r.Data.Observation["last_action_error"].(string)
			explained("serve --obs browsergym, reset's last_action_error", msg)
		} else {
			msg, _ := r.Data.Observation["error"].(string)
			explained("serve, reset's observation error", msg)
			res, err := http.Post(hs.URL+"/reset", "application/json", strings.NewReader(`{"start_url":"`+page+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Observation struct {
					Error string `json:"error"`
				} `json:"observation"`
			}
			err = json.NewDecoder(res.Body).Decode(&body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			explained("stateless POST /reset", body.Observation.Error)
		}
		c.CloseNow()
		sv.Close()
		hs.Close()
		cancel()
	}
}
