package control

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"waymark/engine/action"
)

func controlFor(agent string) *Session {
	c := NewSession(Info{ID: "s1", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ActionSet: action.SetExtended}, nil, func() {})
	c.agent = agent
	return c
}

// annStepping is a session of the agent "bot" where ann has taken over
// and has a step under way (she uses the engine).
func annStepping(t *testing.T) *Session {
	t.Helper()
	c := controlFor("bot")
	if err := c.takeOver("human:ann"); err != nil {
		t.Fatal(err)
	}
	if err := c.acquireHuman(t.Context(), "human:ann"); err != nil {
		t.Fatal(err)
	}
	return c
}

// GET /sessions' summary, field by field: before any step, and after one
// (URL, steps and done from the latest step), with a person in control.
func TestSessionSummaryEachField(t *testing.T) {
	c := controlFor("bot")
	c.episodeID, c.startURL = "ep1", "http://shop.test/"
	want := SessionSummary{ID: "s1", Agent: "bot", EpisodeID: "ep1", StartURL: "http://shop.test/", URL: "", Steps: 0, Done: false,
		Control: "agent:bot", AgentConnected: true, AgentWaiting: false, Watchers: 0,
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ActionSet: action.SetExtended}
	if got := c.Summary(); got != want {
		t.Errorf("summary before a step:\n got %+v\nwant %+v", got, want)
	}
	c.recordLocked(WatchStep{Step: 4, Actor: "human:ann", URL: "http://shop.test/cart", Done: true})
	if err := c.takeOver("human:ann"); err != nil {
		t.Fatal(err)
	}
	c.agentConnected = false
	want.URL, want.Steps, want.Done, want.Control, want.AgentConnected = "http://shop.test/cart", 4, true, "human:ann", false
	if got := c.Summary(); got != want {
		t.Errorf("summary after a step:\n got %+v\nwant %+v", got, want)
	}
}

// Control passes only as the rules say, each answer literal: a person
// takes over from the agent; the same person again is no error; another
// person is refused while the first holds it; only the holder hands back;
// after the session ended nobody takes over; only the holder may step.
func TestTakeOverAndHandBackRules(t *testing.T) {
	c := controlFor("bot")
	if err := c.takeOver("human:ann"); err != nil || c.holder != "human:ann" {
		t.Fatalf("ann takes over: %v, holder %q", err, c.holder)
	}
	if err := c.takeOver("human:ann"); err != nil {
		t.Errorf("ann again: %v", err)
	}
	if err := c.takeOver("human:bob"); err == nil || err.Error() != "human:ann is in control: wait until they hand back" || c.holder != "human:ann" {
		t.Errorf("bob while ann holds control: %v, holder %q", err, c.holder)
	}
	if err := c.acquireHuman(context.Background(), "human:bob"); err == nil || err.Error() != "you are not in control: take over first" {
		t.Errorf("bob steps: %v", err)
	}
	c.handBack("human:bob")
	if c.holder != "human:ann" {
		t.Errorf("bob's hand-back moved control to %q", c.holder)
	}
	c.handBack("human:ann")
	if c.holder != "" || c.Summary().Control != "agent:bot" {
		t.Errorf("after ann hands back: holder %q, control %q", c.holder, c.Summary().Control)
	}
	if err := c.acquireHuman(context.Background(), "human:ann"); err == nil {
		t.Error("ann stepped after handing back")
	}
	c.End(End{Reason: EndClientClosed})
	if err := c.takeOver("human:ann"); err == nil || err.Error() != "the session has ended" || c.holder != "" {
		t.Errorf("take-over after the end: %v, holder %q", err, c.holder)
	}
}

// The agent waits while a person holds control or the engine is busy, and
// is shown waiting only while a person holds it; it gets the engine the
// moment both are over.
func TestAgentWaitsForControlAndEngine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := annStepping(t)
		got := make(chan error, 1)
		go func() { got <- c.acquireAgent(t.Context()) }()
		synctest.Wait()
		if s := c.Summary(); !s.AgentWaiting || len(got) != 0 {
			t.Fatalf("with ann in control: waiting %v, acquired %d", s.AgentWaiting, len(got))
		}
		c.handBack("human:ann") // ann's step is still running
		synctest.Wait()
		if len(got) != 0 {
			t.Fatal("the agent took the engine during the person's step")
		}
		c.release()
		synctest.Wait()
		if len(got) != 1 || <-got != nil {
			t.Fatal("the agent did not get the engine once the step ended")
		}
		if s := c.Summary(); s.AgentWaiting || !c.busy {
			t.Errorf("after acquiring: waiting %v, busy %v", s.AgentWaiting, c.busy)
		}
		c.release()
		// Busy without a person in control: the agent waits, but is not
		// shown waiting for a person.
		c.busy = true
		go func() { got <- c.acquireAgent(t.Context()) }()
		synctest.Wait()
		if c.Summary().AgentWaiting || len(got) != 0 {
			t.Errorf("engine busy, nobody in control: waiting %v, acquired %d", c.Summary().AgentWaiting, len(got))
		}
		c.release()
		synctest.Wait()
		if len(got) != 1 || <-got != nil {
			t.Error("the agent did not get the engine")
		}
	})
}

// When the server stops while a person's step runs after the agent left,
// AgentLeft gives control back and waits, blocked, for the step to end,
// then returns. (It used to go round its loop without blocking until the
// step ended: synctest.Wait below never returned.)
func TestAgentLeftStopWaitsForTheStepBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := annStepping(t)
		stop, cancel := context.WithCancel(t.Context())
		returned := make(chan struct{})
		go func() { c.AgentLeft(stop); close(returned) }()
		synctest.Wait()
		if len(returned) != 0 || c.Summary().AgentConnected {
			t.Fatal("AgentLeft returned while ann held control, or the agent is still shown connected")
		}
		cancel()
		synctest.Wait() // AgentLeft must be blocked again, not running
		select {
		case <-returned:
			t.Fatal("AgentLeft returned during ann's step")
		default:
		}
		if c.PersonHolds() {
			t.Error("ann still holds control after the server stopped")
		}
		c.release()
		synctest.Wait()
		select {
		case <-returned:
		default:
			t.Error("AgentLeft did not return once ann's step ended")
		}
	})
}
