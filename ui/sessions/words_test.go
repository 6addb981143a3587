package sessions

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/ui"
)

// textsOutside lists the texts drawn under o that run past the right edge
// of the area from left to right (absolute positions).
func textsOutside(o fyne.CanvasObject, right float32) []string {
	d := fyne.CurrentApp().Driver()
	var out []string
	for _, x := range test.LaidOutObjects(o) {
		tx, ok := x.(*canvas.Text)
		if !ok || !tx.Visible() || strings.TrimSpace(tx.Text) == "" {
			continue
		}
		end := d.AbsolutePositionForObject(tx).X + fyne.MeasureText(tx.Text, tx.TextSize, tx.TextStyle).Width
		if end > right+0.5 {
			out = append(out, tx.Text)
		}
	}
	return out
}

// The Sessions screen's own words, at the default window size: before
// connecting the live view does not say Record's "Choose a task and press
// Start"; the in-control banner wraps within its column instead of running
// over the timeline; a long session line ends in "…"; the line under the
// view says what the person can do now (hand back while in control, take
// over while watching).
func TestSessionsScreenWords(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	srv, err := openenv.NewServer(openenv.Options{Logf: t.Logf, NewEngine: func(context.Context) (engine.Engine, error) {
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
	agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := agent.ResetWith(ctx, engine.ResetOptions{StartURL: "http://shop.test/a/rather/long/path/to/the/catalogue/of/kettles"}, map[string]any{"agent": "a-rather-long-agent-name"}); err != nil {
		t.Fatal(err)
	}

	m := &mainLoop{ch: make(chan func(), 1024)}
	uctx := &ui.Context{Bridge: ui.NewBridgeWith(func(f func()) { m.ch <- f }), User: func() string { return "ann" }}
	tab := New(uctx)
	defer tab.Close()
	w := test.NewTempWindow(t, tab.Content())
	uctx.Window = w
	w.Resize(ui.DefaultWindowSize)

	if h := tab.View().HintText(); h == "" || strings.Contains(h, "Start") {
		t.Errorf("before connecting the live view says %q", h)
	}
	tab.server.SetText(hs.URL)
	tab.Connect()
	m.until(t, "the session listed", func() bool { return len(tab.Sessions()) == 1 })
	if h := tab.View().HintText(); !strings.Contains(h, "Choose a live session") {
		t.Errorf("connected, the live view says %q", h)
	}
	row := tab.list.CreateItem()
	tab.list.UpdateItem(0, row)
	if l := row.(*widget.Label); l.Truncation != fyne.TextTruncateEllipsis {
		t.Errorf("a session line too long for the list is cut without an ellipsis: %q", l.Text)
	}
	tab.list.Select(0)
	m.until(t, "the watch", func() bool { return len(tab.Steps()) == 1 && strings.Contains(tab.status.Text, "Watching") })
	if !strings.Contains(tab.status.Text, "Take over") {
		t.Errorf("while watching the line under the view says %q", tab.status.Text)
	}

	tab.TypedShortcut(takeKey)
	m.until(t, "the person in control", func() bool { return strings.Contains(tab.Banner(), "YOU ARE IN CONTROL") })
	if s := tab.status.Text; strings.Contains(s, "Take over") || !strings.Contains(s, "Hand back") {
		t.Errorf("in control, the line under the view says %q", s)
	}
	// One line under the view: a second fell below an 800-high window.
	if w, room := fyne.MeasureText(tab.status.Text, theme.TextSize(), fyne.TextStyle{}).Width, tab.status.Size().Width-2*theme.InnerPadding(); w > room {
		t.Errorf("the line under the view needs %.0f, has %.0f on one line: %q", w, room, tab.status.Text)
	}
	held := make(chan error, 1)
	go func() {
		_, err := agent.Step(ctx, action.ScrollBy(100))
		held <- err
	}()
	m.until(t, "the agent's step held", func() bool { return strings.Contains(tab.Banner(), "the agent's next step is held") })
	w.Content().Refresh()
	bannerRight := fyne.CurrentApp().Driver().AbsolutePositionForObject(tab.banner).X + tab.banner.Size().Width
	if out := textsOutside(tab.Content(), bannerRight); len(out) > 0 {
		// the banner's words run past its colour (over the timeline)
		for _, s := range out {
			if strings.Contains(tab.Banner(), s) {
				t.Errorf("the banner's text %q runs past the banner's right edge (%.0f)", s, bannerRight)
			}
		}
	}
	if bt := tab.bannerTx.MinSize().Height; tab.banner.Size().Height+0.5 < bt {
		t.Errorf("the banner is %.0f high, its text %.0f", tab.banner.Size().Height, bt)
	}

	tab.TypedShortcut(backKey)
	m.until(t, "the agent back in control", func() bool {
		return strings.Contains(tab.Banner(), "is in control") && !strings.Contains(tab.Banner(), "YOU")
	})
	if !strings.Contains(tab.status.Text, "Take over") {
		t.Errorf("after handing back the line under the view says %q", tab.status.Text)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
}
