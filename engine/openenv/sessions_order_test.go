package openenv

import (
	"testing"
	"time"

	"waymark/engine/openenv/control"
)

// GET /sessions lists the live sessions oldest first: three agents that
// connect one after the other are listed in the order they came, and a
// session that ends leaves the others in their order.
func TestSessionsListedOldestFirst(t *testing.T) {
	hs, base, _ := sketchServer(t, 3)
	agents := []string{"first", "second", "third"}
	conns := make([]*raw, len(agents))
	for i, name := range agents {
		if i > 0 {
			waitPastLatest(t, base, i)
		}
		conns[i] = dialRaw(t, hs)
		conns[i].call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"` + name + `"}}`)
	}
	list, err := control.ListSessions(bg(), base)
	if err != nil {
		t.Fatal(err)
	}
	if got := agentsOf(list); len(got) != 3 || got[0] != "first" || got[1] != "second" || got[2] != "third" {
		t.Fatalf("GET /sessions listed the agents %v, want [first second third] (oldest first)", got)
	}
	for i := 1; i < len(list); i++ {
		if !list[i-1].CreatedAt.Before(list[i].CreatedAt) {
			t.Errorf("created_at out of order: %v then %v", list[i-1].CreatedAt, list[i].CreatedAt)
		}
	}

	// The second agent leaves: the first and third keep their order.
	_ = conns[1].c.CloseNow()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err = control.ListSessions(bg(), base)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := agentsOf(list); len(got) != 2 || got[0] != "first" || got[1] != "third" {
		t.Fatalf("after the second agent left, GET /sessions listed %v, want [first third]", got)
	}
}

// waitPastLatest waits until n sessions are listed and the clock has
// moved past the newest one's created_at, so that the next session is
// created strictly later (the order then never falls to the ids).
func waitPastLatest(t *testing.T, base string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := control.ListSessions(bg(), base)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == n {
			var latest time.Time
			for _, s := range list {
				if s.CreatedAt.After(latest) {
					latest = s.CreatedAt
				}
			}
			for !time.Now().After(latest) {
				time.Sleep(time.Millisecond)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions listed, want %d: %+v", len(list), n, list)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func agentsOf(list []control.SessionSummary) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Agent
	}
	return out
}
