package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
)

// gymServed is a raw OpenEnv WebSocket client of a `serve --obs
// browsergym` started with args.
type gymServed struct {
	t   *testing.T
	ctx context.Context
	c   *websocket.Conn
}

func serveGym(t *testing.T, args ...string) *gymServed {
	t.Helper()
	env := &Env{DBPath: filepath.Join(t.TempDir(), "w.db")}
	cfg, _, err := parseServe(env, append([]string{"--obs", "browsergym"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	set := engine.DefaultSettings()
	set.Display = "headless"
	cfg.Settings, cfg.Logf, cfg.MaxSessions = set, t.Logf, 1
	sv, err := newServing(env, cfg)
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
	t.Cleanup(func() {
		c.CloseNow()
		sv.Close()
		hs.Close()
		cancel()
	})
	return &gymServed{t: t, ctx: ctx, c: c}
}

// call sends one message and returns the observation it is answered with.
func (g *gymServed) call(typ string, data map[string]any) map[string]any {
	g.t.Helper()
	b, _ := json.Marshal(map[string]any{"type": typ, "data": data})
	if err := g.c.Write(g.ctx, websocket.MessageText, b); err != nil {
		g.t.Fatal(err)
	}
	_, raw, err := g.c.Read(g.ctx)
	if err != nil {
		g.t.Fatal(err)
	}
	var r struct {
		Type string `json:"type"`
		Data struct {
			Observation map[string]any `json:"observation"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Type != "observation" {
		g.t.Fatalf("%s: %.400s (%v)", typ, raw, err)
	}
	return r.Data.Observation
}

const heldKeysPage = `<!doctype html><title>v=hello world</title><body style="margin:0">
<input aria-label="Query" value="hello world" style="width:300px;height:30px" oninput="document.title = 'v=' + this.value"></body>`

// `serve --obs browsergym` takes several calls per action string by
// default, as BrowserGym's HighLevelActionSet (multiaction=True) does, and
// a key held by keyboard_down modifies the keys pressed after it: BrowserGym's
// own keyboard_down_up_clear, as one action string, clears the field.
// --multiaction=false refuses a string of several calls, as BrowserGym
// with multiaction=False, unless the reset asks for multiaction.
func TestServeBrowserGymMultiactionByDefault(t *testing.T) {
	env := &Env{DBPath: filepath.Join(t.TempDir(), "w.db")}
	for _, c := range []struct {
		args   []string
		single bool
		err    string
	}{
		{[]string{"--obs", "browsergym"}, false, ""},
		{[]string{"--obs", "browsergym", "--multiaction=false"}, true, ""},
		{[]string{"--multiaction=false"}, false, "--multiaction is only for --obs browsergym"},
	} {
		cfg, _, err := parseServe(env, c.args)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("serve %v: %v, want %q", c.args, err, c.err)
		}
		if err == nil && cfg.SingleAction != c.single {
			t.Errorf("serve %v: one call per action string %v, want %v", c.args, cfg.SingleAction, c.single)
		}
	}
	site := pageServer(t, map[string]string{"/": heldKeysPage})
	clear := func(bid string) string {
		return fmt.Sprintf("click('%s')\nkeyboard_press('End')\nkeyboard_down('Control')\nkeyboard_press('a')\nkeyboard_up('Control')\nkeyboard_press('Backspace')", bid)
	}

	g := serveGym(t)
	o := g.call("reset", map[string]any{"start_url": site.URL + "/"})
	o = g.call("step", map[string]any{"action": clear(bidNamed(t, o, "Query"))})
	if o["last_action_error"] != "" || gymInfo(o, "title") != "v=" {
		t.Errorf("keyboard_down_up_clear: last_action_error %q, title %q (want the field cleared: \"v=\")", o["last_action_error"], gymInfo(o, "title"))
	}

	g = serveGym(t, "--multiaction=false")
	o = g.call("reset", map[string]any{"start_url": site.URL + "/"})
	bid := bidNamed(t, o, "Query")
	o = g.call("step", map[string]any{"action": clear(bid)})
	if err, _ := o["last_action_error"].(string); !strings.HasPrefix(err, "ValueError: Received a multi-action, only single-actions are allowed.") || gymInfo(o, "title") != "v=hello world" {
		t.Errorf("--multiaction=false, several calls: last_action_error %q, title %q", err, gymInfo(o, "title"))
	}
	o = g.call("reset", map[string]any{"start_url": site.URL + "/", "multiaction": true})
	o = g.call("step", map[string]any{"action": clear(bidNamed(t, o, "Query"))})
	if o["last_action_error"] != "" || gymInfo(o, "title") != "v=" {
		t.Errorf("--multiaction=false, reset(multiaction=True): last_action_error %q, title %q", o["last_action_error"], gymInfo(o, "title"))
	}
}
