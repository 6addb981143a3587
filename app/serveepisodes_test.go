package app

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/dataset"
	"waymark/engine/action"
)

// serve --episodes all --offline: a stored demonstration is an environment
// an agent starts from. reset(task_id="EPISODE:1") starts where the person
// was after step 1, served from the recording with the site stopped; the
// agent's "load more" gets what the recording got at step 2; a link the
// person never followed is refused, and the observation says off_archive.
func TestServeEpisodesOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	addr, stop := volatileSite(t)
	load, ping := action.ClickAt(200, 450), action.ClickAt(600, 450)
	db, id := recordCaptured(t, "http://"+addr+"/", load, load, ping, action.FinishWith("done"))
	stop()
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[int]string{}
	for s, err := range st.EpisodeSteps(t.Context(), id) {
		if err != nil {
			t.Fatal(err)
		}
		titles[s.Index] = s.Title
	}
	st.Close()

	cfg, _, err := parseServe(&Env{DBPath: db}, []string{"--episodes", "all", "--offline", "--display", "headless"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logf = t.Logf
	sv, err := newServing(&Env{DBPath: db}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sv.srv)
	defer func() {
		sv.Close()
		hs.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(32 << 20)
	call := func(msg string) map[string]any {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		if m["type"] != "observation" {
			t.Fatalf("%s → %.400s", msg, data)
		}
		return m
	}
	meta := func(m map[string]any) map[string]any {
		d, _ := m["data"].(map[string]any)
		o, _ := d["observation"].(map[string]any)
		md, _ := o["metadata"].(map[string]any)
		return md
	}
	r := call(`{"type":"reset","data":{"task_id":"` + id + `:1","agent":"bot","metadata":{"details":true}}}`)
	if md := meta(r); md["title"] != titles[1] || md["off_archive"] != nil {
		t.Fatalf("the reset at step 1 shows %v, the person saw %q", md, titles[1])
	}
	s := call(`{"type":"step","data":{"op":"click","x":200,"y":450}}`)
	if md := meta(s); md["title"] != titles[2] || md["off_archive"] != nil {
		t.Errorf("the agent's load more shows %v, the person's step 2 showed %q", md, titles[2])
	}
	s = call(`{"type":"step","data":{"op":"click","x":400,"y":550}}`)
	if md := meta(s); md["off_archive"] != 1.0 {
		t.Errorf("a link the person never followed: metadata %v", md)
	}
}
