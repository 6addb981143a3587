package openenv

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// secretSketch is sketchEngine with a password field: text typed that starts
// with "pw:" goes into it, and the observation says Redacted.
type secretSketch struct{ *sketchEngine }

func (e secretSketch) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	o, err := e.sketchEngine.Step(ctx, a)
	if err == nil && a.Op == action.Type && strings.HasPrefix(a.Text, "pw:") {
		o.Redacted = true
	}
	return o, err
}

// That a step typed into a password field reaches the client as
// observation.metadata.redacted (a key the Python Observation model
// accepts); other observations keep the Python server's exact keys.
func TestRedactedTravelsToTheClient(t *testing.T) {
	_, hs := testServer(t, Options{MaxSessions: 2, NewEngine: func(context.Context) (engine.Engine, error) { return secretSketch{newSketch()}, nil }})

	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	obsKeys := func(reply []byte) ([]string, json.RawMessage) {
		var f struct {
			Data struct {
				Observation json.RawMessage `json:"observation"`
			} `json:"data"`
		}
		if err := json.Unmarshal(reply, &f); err != nil {
			t.Fatal(err)
		}
		return keysOf(t, f.Data.Observation), f.Data.Observation
	}
	keys, _ := obsKeys(r.call(`{"type":"step","data":{"op":"type","text":"robin"}}`))
	if !slices.Equal(keys, []string{"screenshot", "url", "error"}) {
		t.Errorf("a plain step's observation keys: %v", keys)
	}
	keys, o := obsKeys(r.call(`{"type":"step","data":{"op":"type","text":"pw:hunter2"}}`))
	allowed := []string{"screenshot", "url", "error", "controls", "page_text", "done", "reward", "metadata"}
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			t.Errorf("key %q would be refused by the Python client", k)
		}
	}
	if !bytes.HasSuffix(o, []byte(`,"metadata":{"redacted":true}}`)) {
		t.Errorf("a redacted step's observation: %.200s…", o)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, hs.URL, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	for _, c2 := range []struct {
		text string
		want bool
	}{{"robin", false}, {"pw:hunter2", true}, {"more", false}} {
		obs, err := c.Step(ctx, action.TypeText(c2.text))
		if err != nil {
			t.Fatal(err)
		}
		if obs.Redacted != c2.want {
			t.Errorf("type %q: the client reads redacted %v", c2.text, obs.Redacted)
		}
	}
	// A server may put anything in metadata: only a true "redacted" counts.
	for _, md := range []string{`[]`, `"x"`, `{"redacted":"yes"}`, `{"redacted":false}`} {
		obs, err := c.observation(json.RawMessage(`{"observation":{"screenshot":"","url":"u","error":"","metadata":` + md + `},"reward":0,"done":false}`))
		if err != nil || obs.Redacted {
			t.Errorf("metadata %s: redacted %v, err %v", md, obs.Redacted, err)
		}
	}
}
