package sessions

import (
	"context"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/engine"
	"waymark/engine/openenv"
	"waymark/engine/openenv/control"
	"waymark/ui"
)

// The Sessions screen lists the live sessions as a person reads them, top
// to bottom, oldest first: three agents that connect one after the other
// are shown in the order they came, and the first row is the one the
// screen watches for gui --watch.
func TestSessionsScreenListsOldestFirst(t *testing.T) {
	test.NewTempApp(t)
	srv, err := openenv.NewServer(openenv.Options{Logf: t.Logf, MaxSessions: 3, NewEngine: func(context.Context) (engine.Engine, error) {
		return newPageEngine(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close()
		hs.Close()
	}()
	ctx := context.Background()
	for i, name := range []string{"first", "second", "third"} {
		if i > 0 {
			waitPastNewest(t, hs.URL, i)
		}
		agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer agent.Close()
		if _, err := agent.ResetWith(ctx, engine.ResetOptions{StartURL: "http://shop.test/" + name}, map[string]any{"agent": name}); err != nil {
			t.Fatal(err)
		}
	}

	m := &mainLoop{ch: make(chan func(), 1024)}
	uctx := &ui.Context{Bridge: ui.NewBridgeWith(func(f func()) { m.ch <- f }), User: func() string { return "ann" }}
	tab := New(uctx)
	defer tab.Close()
	w := test.NewTempWindow(t, tab.Content())
	uctx.Window = w
	w.Resize(fyne.NewSize(1500, 900))
	tab.WatchFirst(hs.URL)
	m.until(t, "three sessions listed", func() bool { return len(tab.Sessions()) == 3 })

	want := []string{"agent:first", "agent:second", "agent:third"}
	if got := shownRows(tab); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the Sessions screen shows, top to bottom, %q; want %q (oldest first)", got, want)
	}
	m.until(t, "the first row watched", func() bool { return tab.watchID != "" })
	if tab.watchID != tab.Sessions()[0].ID || tab.Sessions()[0].Agent != "first" {
		t.Fatalf("gui --watch watches %s, not the oldest session (first): %+v", tab.watchID, tab.Sessions())
	}
}

// shownRows is each row of the session list the window shows, top to
// bottom: the control part of its text.
func shownRows(tab *Tab) []string {
	type row struct {
		y    float32
		text string
	}
	var rows []row
	d := fyne.CurrentApp().Driver()
	for _, o := range test.LaidOutObjects(tab.list) {
		l, ok := o.(*widget.Label)
		if !ok || !l.Visible() || !strings.HasPrefix(l.Text, "agent:") {
			continue
		}
		rows = append(rows, row{d.AbsolutePositionForObject(l).Y, strings.SplitN(l.Text, " · ", 2)[0]})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].y < rows[j].y })
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.text
	}
	return out
}

// waitPastNewest waits until n sessions are listed and the clock has moved
// past the newest one's created_at, so the next session is created
// strictly later.
func waitPastNewest(t *testing.T, base string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := control.ListSessions(context.Background(), base)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == n {
			var newest time.Time
			for _, s := range list {
				if s.CreatedAt.After(newest) {
					newest = s.CreatedAt
				}
			}
			for !time.Now().After(newest) {
				time.Sleep(time.Millisecond)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions listed, want %d", len(list), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
