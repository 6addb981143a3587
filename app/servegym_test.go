package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// `serve --obs browsergym --record`: an agent written for BrowserGym resets
// with a goal, reads bids from BrowserGym observations and sends
// BrowserGym action strings as {"action": "..."} over the OpenEnv
// WebSocket; a bad string is a step with last_action_error, a bad message
// a VALIDATION_ERROR; the episode is recorded step by step like any other,
// the BrowserGym actions as the Waymark actions that performed them.
func TestServeBrowserGym(t *testing.T) {
	env := &Env{DBPath: filepath.Join(t.TempDir(), "w.db")}
	cfg, _, err := parseServe(env, []string{"--obs", "browsergym", "--record"})
	if err != nil || !cfg.BrowserGym || cfg.ActionSet != action.SetBrowserGym {
		t.Fatalf("--obs browsergym: BrowserGym %v, action set %v, %v", cfg.BrowserGym, cfg.ActionSet, err)
	}
	if _, _, err := parseServe(env, []string{"--obs", "gym"}); err == nil || !strings.Contains(err.Error(), "use waymark or browsergym") {
		t.Errorf("--obs gym: %v", err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>form</title><body style="margin:0">
<input id="d" type="date" aria-label="Day" onchange="document.title = 'day ' + this.value">
<select aria-label="Size" onchange="document.title += ' size ' + this.value"><option>S</option><option>M</option><option>L</option></select></body>`)
	}))
	defer site.Close()
	set := engine.DefaultSettings()
	set.Display = "headless"
	cfg.Settings, cfg.Logf, cfg.MaxSessions = set, t.Logf, 1
	sv, err := newServing(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	// /schema describes the BrowserGym wire.
	res, err := http.Get(hs.URL + "/schema")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Action struct {
			Required []string `json:"required"`
		} `json:"action"`
		Observation struct {
			Title string `json:"title"`
		} `json:"observation"`
	}
	err = json.NewDecoder(res.Body).Decode(&schema)
	res.Body.Close()
	if err != nil || fmt.Sprint(schema.Action.Required) != "[action]" || schema.Observation.Title != "BrowserGymObservation" {
		t.Errorf("/schema: %+v %v", schema, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(100 << 20)
	defer c.CloseNow()
	type reply struct {
		Type string `json:"type"`
		Data struct {
			Observation map[string]any `json:"observation"`
			Reward      any            `json:"reward"`
			Done        bool           `json:"done"`
			Code        string         `json:"code"`
			Errors      []struct {
				Loc []any  `json:"loc"`
				Msg string `json:"msg"`
			} `json:"errors"`
		} `json:"data"`
	}
	send := func(msg map[string]any) reply {
		t.Helper()
		b, _ := json.Marshal(msg)
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r reply
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%.300s: %v", data, err)
		}
		return r
	}
	step := func(s string) map[string]any {
		t.Helper()
		r := send(map[string]any{"type": "step", "data": map[string]any{"action": s, "metadata": map[string]any{"agent": "gym-bot"}}})
		if r.Type != "observation" {
			t.Fatalf("%s: %+v", s, r.Data)
		}
		return r.Data.Observation
	}

	r := send(map[string]any{"type": "reset", "data": map[string]any{"start_url": site.URL + "/", "goal": "Pick the 5th of May and size M"}})
	o := r.Data.Observation
	if r.Type != "observation" || o["goal"] != "Pick the 5th of May and size M" || o["url"] != site.URL+"/" || o["axtree_object"] == nil || r.Data.Done {
		t.Fatalf("reset: %s %v", r.Type, o)
	}
	day, size := bidNamed(t, o, "Day"), bidNamed(t, o, "Size")
	if o = step(fmt.Sprintf("fill('%s', '2024-05-05')", day)); o["last_action_error"] != "" || gymInfo(o, "title") != "day 2024-05-05" {
		t.Errorf("fill: error %q, title %v", o["last_action_error"], gymInfo(o, "title"))
	}
	if o = step("go_sideways()"); !strings.HasPrefix(o["last_action_error"].(string), "NameError: Invalid action type 'go_sideways'") {
		t.Errorf("unknown action: %q", o["last_action_error"])
	}
	if o = step(fmt.Sprintf("select_option('%s', 'M')", size)); o["last_action_error"] != "" || gymInfo(o, "title") != "day 2024-05-05 size M" {
		t.Errorf("select_option: error %q, title %v", o["last_action_error"], gymInfo(o, "title"))
	}
	for _, bad := range []map[string]any{{"op": "click", "x": 1, "y": 2}, {"action": 42}, {}} {
		if r := send(map[string]any{"type": "step", "data": bad}); r.Type != "error" || r.Data.Code != "VALIDATION_ERROR" || len(r.Data.Errors) == 0 {
			t.Errorf("step %v: %s %+v", bad, r.Type, r.Data)
		}
	}
	r = send(map[string]any{"type": "step", "data": map[string]any{"action": "send_msg_to_user('done')"}})
	if o = r.Data.Observation; !r.Data.Done || o["terminated"] != true || r.Data.Reward != 0.0 {
		t.Errorf("answer: done %v terminated %v reward %v", r.Data.Done, o["terminated"], r.Data.Reward)
	}
	// multiaction, asked for at the reset: several calls in one string.
	r = send(map[string]any{"type": "reset", "data": map[string]any{"start_url": site.URL + "/", "multiaction": true}})
	if r.Type != "observation" || r.Data.Observation["goal"] != "" {
		t.Fatalf("second reset: %s %+v", r.Type, r.Data)
	}
	o = r.Data.Observation
	two := fmt.Sprintf("fill('%s', '2024-06-01') select_option('%s', 'L')", bidNamed(t, o, "Day"), bidNamed(t, o, "Size"))
	if o = step(two); o["last_action_error"] != "" || gymInfo(o, "title") != "day 2024-06-01 size L" || o["last_action"] != two {
		t.Errorf("two calls: error %q, title %v, last_action %q", o["last_action_error"], gymInfo(o, "title"), o["last_action"])
	}
	c.Close(websocket.StatusNormalClosure, "")
	waitUntil(t, func() bool { return sv.srv.ActiveSessions() == 0 })

	st, err := dataset.Open(env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eps, err := st.ListEpisodes(ctx, dataset.EpisodeFilter{OldestFirst: true})
	if err != nil || len(eps) != 2 {
		t.Fatalf("%d episodes (%v), want 2", len(eps), err)
	}
	ep := eps[0]
	if ep.Annotator != "agent:gym-bot" || ep.Status != dataset.StatusFinished || ep.FinalAnswer != "done" {
		t.Errorf("episode: %+v", ep)
	}
	steps, err := st.Steps(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, s := range steps[1:] {
		ops = append(ops, s.Action.String())
	}
	if len(ops) != 3 || !strings.HasPrefix(ops[0], "set_value ") || !strings.HasSuffix(ops[0], ` "2024-05-05"`) ||
		!strings.HasPrefix(ops[1], "select ") || !strings.HasSuffix(ops[1], ` ["M"]`) || ops[2] != `finish "done"` {
		t.Errorf("recorded steps: %q", ops)
	}
	// The recorded episode replays in a fresh browser, step for step.
	code, stdout, stderr := runMain("--db", env.DBPath, "replay", "--display", "headless", ep.ID)
	if code != 0 || !strings.Contains(stdout, "OK: all 4 steps matched") {
		t.Errorf("replay: exit %d\n%s%s", code, stdout, stderr)
	}
}
