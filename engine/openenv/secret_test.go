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
	"waymark/engine/openenv/control"
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

// What a watcher and the agent on the other side of a takeover get carries
// only what the store keeps: the agent's text typed into a password field
// reaches the watchers as action.RedactedText, and so does a person's, in
// the agent's intervention. The person's one step leaves the episode open:
// the agent's held action is still not performed, and the intervention
// lists exactly that one step.
func TestSharedControlCarriesNoSecret(t *testing.T) {
	made := make(chan *sketchEngine, 2)
	_, hs := testServer(t, Options{MaxSessions: 1, NewEngine: func(context.Context) (engine.Engine, error) {
		e := newSketch()
		made <- e
		return secretSketch{e}, nil
	}})
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	list, err := control.ListSessions(bg(), hs.URL)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v %v", list, err)
	}
	w := watch(t, hs.URL, list[0].ID)
	waitWatch(t, w, "the reset", func(ev control.WatchEvent) bool { return ev.Step != nil })

	agent.call(`{"type":"step","data":{"op":"type","text":"pw:agent-hunter2"}}`)
	ev := waitWatch(t, w, "the agent's secret step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Step == 1 })
	if a := string(ev.Step.Action); strings.Contains(a, "hunter2") || !strings.Contains(a, action.RedactedText) {
		t.Errorf("the watcher saw the agent's secret step as %s", a)
	}
	agent.call(`{"type":"step","data":{"op":"type","text":"plain words"}}`)
	ev = waitWatch(t, w, "the agent's plain step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Step == 2 })
	if a := string(ev.Step.Action); !strings.Contains(a, "plain words") {
		t.Errorf("a plain step reached the watcher as %s", a)
	}

	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	agent.send(`{"type":"step","data":{"op":"click","x":7,"y":7}}`)
	waitWatch(t, w, "the agent waiting", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })
	if err := w.Step(bg(), action.TypeText("pw:person-s3cret")); err != nil {
		t.Fatal(err)
	}
	ev = waitWatch(t, w, "the person's step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Actor == "human:ann" })
	if a := string(ev.Step.Action); strings.Contains(a, "s3cret") || !strings.Contains(a, action.RedactedText) {
		t.Errorf("the watcher saw the person's secret step as %s", a)
	}
	if ev.Step.Done {
		t.Fatal("the person's step ended the episode: this test needs it open")
	}
	if err := w.HandBack(bg()); err != nil {
		t.Fatal(err)
	}
	data, err := agent.recv(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Data struct {
			Observation struct {
				Error    string `json:"error"`
				Metadata struct {
					Intervention struct {
						Steps []struct {
							Step   int             `json:"step"`
							Action json.RawMessage `json:"action"`
						} `json:"steps"`
						Executed *bool `json:"action_executed"`
					} `json:"intervention"`
				} `json:"metadata"`
			} `json:"observation"`
			Done bool `json:"done"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		t.Fatal(err)
	}
	o := reply.Data.Observation
	iv := o.Metadata.Intervention
	if o.Error != ErrorNotExecuted || len(iv.Steps) != 1 || iv.Steps[0].Step != 3 || iv.Executed == nil || *iv.Executed || reply.Data.Done {
		t.Fatalf("the held step's answer after one person step: %s", data)
	}
	if bytes.Contains(data, []byte("s3cret")) || !strings.Contains(string(iv.Steps[0].Action), action.RedactedText) {
		t.Errorf("the agent got the person's secret step as %s", iv.Steps[0].Action)
	}
	if got := eng.State().StepCount; got != 3 {
		t.Fatalf("the engine made %d steps, want 3: the agent's held click was performed", got)
	}
}
