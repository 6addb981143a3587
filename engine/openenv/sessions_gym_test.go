package openenv

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv/control"
)

// A BrowserGym agent (serve --obs browsergym) is under shared control like
// any other: its step waits while a person holds control, and after the
// person's steps it is answered with the page as the person left it,
// last_action_error saying the action was not performed and who acted —
// its click never reaches the engine. Its next step runs, and watchers see
// it as the agent's.
func TestTakeOverHoldsABrowserGymAgent(t *testing.T) {
	made := make(chan *sketchEngine, 8)
	_, hs := testServer(t, Options{MaxSessions: 1, BrowserGym: true, NewEngine: func(context.Context) (engine.Engine, error) {
		e := newSketch()
		made <- e
		return e, nil
	}})
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	agent.call(`{"type":"step","data":{"action":"mouse_click(10, 10)"}}`)
	list, err := control.ListSessions(bg(), hs.URL)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	w := watch(t, hs.URL, list[0].ID)
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	agent.send(`{"type":"step","data":{"action":"mouse_click(700, 500)"}}`)
	waitWatch(t, w, "the agent waiting", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })
	if err := w.Step(bg(), action.ClickAt(20, 30)); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "the person's step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Actor == "human:ann" })
	if got := eng.State().StepCount; got != 2 {
		t.Fatalf("the engine made %d steps before the hand-back, want 2 (the agent's held click not among them)", got)
	}
	if err := w.HandBack(bg()); err != nil {
		t.Fatal(err)
	}
	data, err := agent.recv(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Type string `json:"type"`
		Data struct {
			Observation struct {
				LastAction      string `json:"last_action"`
				LastActionError string `json:"last_action_error"`
			} `json:"observation"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		t.Fatal(err)
	}
	o := reply.Data.Observation
	if reply.Type != "observation" || !strings.HasPrefix(o.LastActionError, ErrorNotExecuted) || !strings.Contains(o.LastActionError, "human:ann") ||
		o.LastAction != "mouse_click(700, 500)" {
		t.Fatalf("the held step's answer: %.400s", data)
	}
	if got := eng.State().StepCount; got != 2 {
		t.Fatalf("the engine made %d steps: the agent's stale click was performed", got)
	}
	next := agent.call(`{"type":"step","data":{"action":"mouse_click(5, 5)"}}`)
	if strings.Contains(string(next), ErrorNotExecuted) {
		t.Fatalf("the step after: %.400s", next)
	}
	if got := eng.State().StepCount; got != 3 {
		t.Fatalf("the engine made %d steps, want 3", got)
	}
	ev := waitWatch(t, w, "the agent's step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Actor == "agent:bot" })
	if !strings.Contains(string(ev.Step.Action), "mouse_click(5, 5)") {
		t.Fatalf("watcher saw %+v", ev.Step)
	}
}

// A BrowserGym agent's text typed into a password field leaves the engine
// only as the store keeps it: watchers see the step's action string and
// the agent's own observation (last_action, info) with action.RedactedText
// in place of the text, and info says redacted.
func TestBrowserGymSecretsStayRedacted(t *testing.T) {
	_, hs := testServer(t, Options{MaxSessions: 1, BrowserGym: true, NewEngine: func(context.Context) (engine.Engine, error) {
		return secretSketch{newSketch()}, nil
	}})
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	list, err := control.ListSessions(bg(), hs.URL)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v %v", list, err)
	}
	w := watch(t, hs.URL, list[0].ID)
	waitWatch(t, w, "the reset", func(ev control.WatchEvent) bool { return ev.Step != nil })
	reply := agent.call(`{"type":"step","data":{"action":"keyboard_type('pw:hunter2')"}}`)
	ev := waitWatch(t, w, "the secret step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Step == 1 })
	if a := string(ev.Step.Action); strings.Contains(a, "hunter2") || !strings.Contains(a, action.RedactedText) {
		t.Errorf("the watcher saw the step as %s", a)
	}
	if strings.Contains(string(reply), "hunter2") || !strings.Contains(string(reply), `"redacted":true`) {
		t.Errorf("the agent's observation: %.600s", reply)
	}
	reply = agent.call(`{"type":"step","data":{"action":"keyboard_type('plain words')"}}`)
	ev = waitWatch(t, w, "the plain step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Step == 2 })
	if a := string(ev.Step.Action); !strings.Contains(a, "plain words") || !strings.Contains(string(reply), `"last_action":"keyboard_type('plain words')"`) {
		t.Errorf("a plain step: the watcher saw %s, the agent %.600s", a, reply)
	}
}
