package openenv

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv/control"
)

// sketchServer serves sketch engines and hands out each one it made.
func sketchServer(t *testing.T, max int) (*httptest.Server, string, <-chan *sketchEngine) {
	t.Helper()
	made := make(chan *sketchEngine, 8)
	srv, hs := testServer(t, Options{MaxSessions: max, NewEngine: func(context.Context) (engine.Engine, error) {
		e := newSketch()
		made <- e
		return e, nil
	}})
	_ = srv
	return hs, hs.URL, made
}

// waitWatch reads watch events until ok says so (each within 30 s).
func waitWatch(t *testing.T, w *control.WatchConn, what string, ok func(control.WatchEvent) bool) control.WatchEvent {
	t.Helper()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		ev, err := w.Next(ctx)
		cancel()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ev) {
			return ev
		}
		if ev.Error != nil && !strings.Contains(what, "error") {
			t.Fatalf("waiting for %s: error %v", what, ev.Error)
		}
	}
}

func watch(t *testing.T, base, id string) *control.WatchConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := control.Watch(ctx, base, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func bg() context.Context { return context.Background() }

// The whole shared-control exchange on the wire: the session is listed,
// a watcher sees its steps, takes over (a second person cannot), the
// agent's step is held while the person acts, and after the hand-back the
// agent gets the page as the person left it with the intervention
// metadata and action_not_executed — its click never reached the engine.
// The agent's next step runs as usual.
func TestTakeOverHoldsTheAgentAndAnswersWithTheIntervention(t *testing.T) {
	hs, base, made := sketchServer(t, 2)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	agent.call(`{"type":"step","data":{"op":"click","x":10,"y":10}}`)

	list, err := control.ListSessions(bg(), base)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("sessions %+v", list)
	}
	s := list[0]
	if s.Agent != "bot" || s.Control != "agent:bot" || s.Steps != 1 || s.URL != "http://shop.test/" || s.StartURL != "http://shop.test/" ||
		!s.AgentConnected || s.AgentWaiting || s.ID == "" || s.EpisodeID == "" {
		t.Fatalf("session %+v", s)
	}

	w := watch(t, base, s.ID)
	reset := waitWatch(t, w, "the episode's first step", func(ev control.WatchEvent) bool { return ev.Step != nil })
	if reset.Step.Step != 0 {
		t.Fatalf("first step seen %+v, want the reset", reset.Step)
	}
	first := waitWatch(t, w, "the latest step", func(ev control.WatchEvent) bool { return ev.Step != nil })
	if first.Step.Step != 1 || first.Step.Actor != "agent:bot" || len(first.Step.Screenshot) == 0 || !strings.Contains(string(first.Step.Action), `"click"`) {
		t.Fatalf("first step seen %+v", first.Step)
	}
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })

	other := watch(t, base, s.ID)
	if err := other.TakeOver(bg(), "bob"); err != nil {
		t.Fatal(err)
	}
	ev := waitWatch(t, other, "an error", func(ev control.WatchEvent) bool { return ev.Error != nil })
	if !strings.Contains(ev.Error.Message, "human:ann is in control") {
		t.Fatalf("a second person's take-over: %v", ev.Error)
	}
	if err := other.Step(bg(), action.ClickAt(1, 1)); err != nil {
		t.Fatal(err)
	}
	ev = waitWatch(t, other, "an error", func(ev control.WatchEvent) bool { return ev.Error != nil })
	if !strings.Contains(ev.Error.Message, "take over first") {
		t.Fatalf("a step from a watcher not in control: %v", ev.Error)
	}

	agent.send(`{"type":"step","data":{"op":"click","x":700,"y":500}}`)
	waitWatch(t, w, "the agent waiting", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })
	for i, a := range []action.Action{action.ClickAt(20, 30), action.TypeText("red")} {
		if err := w.Step(bg(), a); err != nil {
			t.Fatal(err)
		}
		ev := waitWatch(t, w, "the person's step", func(ev control.WatchEvent) bool { return ev.Step != nil })
		if ev.Step.Step != 2+i || ev.Step.Actor != "human:ann" {
			t.Fatalf("person's step %d: %+v", i+1, ev.Step)
		}
	}
	if got := eng.State().StepCount; got != 3 {
		t.Fatalf("the engine made %d steps before the hand-back, want 3 (the agent's held click not among them)", got)
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
				URL      string `json:"url"`
				Error    string `json:"error"`
				Metadata struct {
					Intervention struct {
						By    string `json:"by"`
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
	if reply.Type != "observation" || o.Error != ErrorNotExecuted || iv.By != "human:ann" || len(iv.Steps) != 2 || iv.Steps[0].Step != 2 ||
		!strings.Contains(string(iv.Steps[1].Action), `"red"`) || iv.Executed == nil || *iv.Executed || reply.Data.Done {
		t.Fatalf("the held step's answer: %s", data)
	}
	if got := eng.State().StepCount; got != 3 {
		t.Fatalf("the engine made %d steps: the agent's stale click was performed", got)
	}
	// The agent's next step is performed and carries no intervention.
	next := agent.call(`{"type":"step","data":{"op":"click","x":5,"y":5}}`)
	if strings.Contains(string(next), "intervention") || strings.Contains(string(next), ErrorNotExecuted) {
		t.Fatalf("the step after: %s", next)
	}
	if got := eng.State().StepCount; got != 4 {
		t.Fatalf("the engine made %d steps, want 4", got)
	}
	ev = waitWatch(t, w, "the agent's step", func(ev control.WatchEvent) bool { return ev.Step != nil })
	if ev.Step.Actor != "agent:bot" || ev.Step.Step != 4 {
		t.Fatalf("watcher saw %+v", ev.Step)
	}
}

// A person who takes over and hands back without acting leaves the agent's
// held step to run as sent; /sessions 404s an unknown session.
func TestHandBackWithoutActingRunsTheHeldStep(t *testing.T) {
	hs, base, made := sketchServer(t, 1)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	list, err := control.ListSessions(bg(), base)
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	w := watch(t, base, list[0].ID)
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	agent.send(`{"type":"step","data":{"op":"click","x":7,"y":7}}`)
	waitWatch(t, w, "the agent waiting", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })
	if err := w.HandBack(bg()); err != nil {
		t.Fatal(err)
	}
	data, err := agent.recv(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "intervention") || eng.State().StepCount != 1 {
		t.Fatalf("the held step after a hand-back with no person's step: %s (engine steps %d)", data, eng.State().StepCount)
	}

	resp, err := http.Get(base + "/sessions/nope/watch")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown session: HTTP %d", resp.StatusCode)
	}
	if _, err := control.Watch(bg(), base, "nope"); err == nil || !strings.Contains(err.Error(), "not live") {
		t.Fatalf("watching an unknown session: %v", err)
	}
}

// An agent that disconnects while a person holds control leaves the
// person in the episode: the session stays listed, the person's steps go
// on, and the session ends when the episode does.
func TestAgentLeavesWhileAPersonHoldsControl(t *testing.T) {
	hs, base, made := sketchServer(t, 1)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	list, _ := control.ListSessions(bg(), base)
	w := watch(t, base, list[0].ID)
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	_ = agent.c.CloseNow()
	waitWatch(t, w, "the agent gone", func(ev control.WatchEvent) bool { return ev.Session != nil && !ev.Session.AgentConnected })
	if list, _ := control.ListSessions(bg(), base); len(list) != 1 || list[0].AgentConnected {
		t.Fatalf("after the agent left: %+v", list)
	}
	for _, a := range []action.Action{action.ClickAt(3, 3), action.FinishWith("done")} {
		if err := w.Step(bg(), a); err != nil {
			t.Fatal(err)
		}
		waitWatch(t, w, "the person's step", func(ev control.WatchEvent) bool { return ev.Step != nil && ev.Step.Actor == "human:ann" })
	}
	waitWatch(t, w, "the end", func(ev control.WatchEvent) bool { return ev.Ended != "" })
	if !eng.closed.Load() || eng.State().StepCount != 2 || !eng.State().Done {
		t.Fatalf("engine closed %v, steps %d", eng.closed.Load(), eng.State().StepCount)
	}
}

// Many watchers and a person's steps race the agent's: the engine never
// runs two steps at once (the race detector and the sketch's own count
// would show it).
func TestSharedControlSerialisesTheEngine(t *testing.T) {
	hs, base, _ := sketchServer(t, 1)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	list, _ := control.ListSessions(bg(), base)
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := control.Watch(bg(), base, list[0].ID)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			ctx, cancel := context.WithTimeout(bg(), 30*time.Second)
			defer cancel()
			for {
				ev, err := w.Next(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if ev.Step != nil && ev.Step.Step == 5 {
					return
				}
			}
		}()
	}
	for i := 0; i < 5; i++ {
		agent.call(`{"type":"step","data":{"op":"wait"}}`)
	}
	wg.Wait()
}

// /sessions and the watch socket pass the same Host check as every
// endpoint: a page reaching the server under its own name is refused.
func TestSessionsAreLoopbackOnly(t *testing.T) {
	_, base, _ := sketchServer(t, 1)
	for _, path := range []string{"/sessions", "/sessions/x/watch"} {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Host = "evil.example:80"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host evil.example: HTTP %d, want 403", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /sessions: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// A person who finishes the episode while the agent's step is held: the
// agent's step is answered done, with the intervention, and its next step
// is refused as after any end.
func TestPersonFinishesWhileTheAgentWaits(t *testing.T) {
	hs, base, made := sketchServer(t, 1)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	eng := <-made
	list, _ := control.ListSessions(bg(), base)
	w := watch(t, base, list[0].ID)
	if err := w.Step(bg(), action.FinishWith("42")); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "an error", func(ev control.WatchEvent) bool { return ev.Error != nil })
	if err := w.TakeOver(bg(), "ann"); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "control by ann", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.Control == "human:ann" })
	agent.send(`{"type":"step","data":{"op":"click","x":7,"y":7}}`)
	waitWatch(t, w, "the agent waiting", func(ev control.WatchEvent) bool { return ev.Session != nil && ev.Session.AgentWaiting })
	if err := w.Step(bg(), action.FinishWith("42")); err != nil {
		t.Fatal(err)
	}
	waitWatch(t, w, "the person's finish", func(ev control.WatchEvent) bool {
		return ev.Step != nil && ev.Step.Done && ev.Step.Actor == "human:ann"
	})
	if err := w.Step(bg(), action.ClickAt(1, 1)); err != nil {
		t.Fatal(err)
	}
	if ev := waitWatch(t, w, "an error", func(ev control.WatchEvent) bool { return ev.Error != nil }); !strings.Contains(ev.Error.Message, "the episode is over") {
		t.Fatalf("a step after the end: %v", ev.Error)
	}
	if err := w.HandBack(bg()); err != nil {
		t.Fatal(err)
	}
	data, err := agent.recv(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"action_executed":false`) || !strings.Contains(string(data), `"done":true`) || eng.State().StepCount != 1 {
		t.Fatalf("the held step after the person finished: %s (engine steps %d)", data, eng.State().StepCount)
	}
	if code, msg := errCode(t, agent.call(`{"type":"step","data":{"op":"wait"}}`)); code != CodeExecution || !strings.Contains(msg, "reset") {
		t.Fatalf("a step after the end: %s %s", code, msg)
	}
}

// A watcher that connects mid-episode gets the episode's earlier steps, in
// order and without their screenshots, then the latest with its own; a new
// episode in the session starts the history again.
func TestWatchSendsTheEpisodeSoFar(t *testing.T) {
	hs, base, _ := sketchServer(t, 1)
	agent := dialRaw(t, hs)
	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	agent.call(`{"type":"step","data":{"op":"click","x":10,"y":10}}`)
	agent.call(`{"type":"step","data":{"op":"scroll","dy":100}}`)
	list, err := control.ListSessions(bg(), base)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %+v, %v", list, err)
	}
	seen := func(w *control.WatchConn, n int) []control.WatchStep {
		var out []control.WatchStep
		for len(out) < n {
			ev := waitWatch(t, w, "a step", func(ev control.WatchEvent) bool { return ev.Step != nil })
			out = append(out, *ev.Step)
		}
		return out
	}
	w := watch(t, base, list[0].ID)
	got := seen(w, 3)
	for i, st := range got {
		if st.Step != i || st.Actor != "agent:bot" {
			t.Fatalf("step %d seen as %+v", i, st)
		}
		if last := i == 2; (len(st.Screenshot) > 0) != last {
			t.Errorf("step %d: screenshot %d bytes; only the latest carries one", i, len(st.Screenshot))
		}
	}
	if !strings.Contains(string(got[1].Action), `"click"`) || !strings.Contains(string(got[2].Action), `"scroll"`) {
		t.Fatalf("actions %s, %s", got[1].Action, got[2].Action)
	}
	agent.call(`{"type":"step","data":{"op":"wait"}}`)
	if st := seen(w, 1)[0]; st.Step != 3 {
		t.Fatalf("the next live step %+v", st)
	}

	agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
	seen(w, 1)
	w2 := watch(t, base, list[0].ID)
	if st := seen(w2, 1)[0]; st.Step != 0 || len(st.Screenshot) == 0 {
		t.Fatalf("after a new reset a new watcher first sees %+v, want the new episode's start", st)
	}
}
