package app

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"waymark/dataset"
)

// windowSize is the app window's size on the screen.
func (g *guiRun) windowSize() (int, int) {
	g.t.Helper()
	out := g.xdo("search", "--name", "^Waymark", "getwindowgeometry")
	m := regexp.MustCompile(`Geometry: (\d+)x(\d+)`).FindStringSubmatch(out)
	if m == nil {
		g.t.Fatalf("window size not found in %q", out)
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	return w, h
}

// pressShortcut presses a Ctrl+Shift+KEY shortcut as a person does: the
// modifiers let go first, the key a moment later.
func (g *guiRun) pressShortcut(key string) {
	g.xdo("keydown", "ctrl+shift+"+key)
	g.xdo("keyup", "ctrl+shift")
	g.xdo("keyup", key)
}

// clickWindow clicks at x,y of the window (screen pixels from its corner).
func (g *guiRun) clickWindow(x, y int) {
	wx, wy := g.windowPos()
	g.xdo("mousemove", strconv.Itoa(wx+x), strconv.Itoa(wy+y), "click", "1")
}

// pageClicks waits until the page has reported n clicks.
func (g *guiRun) pageClicks(rs *reportServer, n int, what string) {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := 0
		for _, p := range rs.all() {
			if p.Kind == "click" {
				got++
			}
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			g.keepShot("e2e-dialogkeys-stuck.png")
			g.t.Fatalf("%s: the page saw %d clicks, want %d (a dialog still up takes them)", what, got, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Dialogs in the real window answer the keys a person presses (#51): the
// Finish dialog closes on Escape with the answer field focused and with
// the focus elsewhere in the dialog (the page then takes clicks again),
// and takes the answer typed at once with Enter; Tasks > Add... takes the
// goal typed at once, Tab to the start URL, Enter adds the task, and
// Escape cancels another, storing nothing.
func TestE2EDialogKeys(t *testing.T) {
	needTools(t)
	display := startXvfb(t)
	rs := newReportServer(t, 0)
	g := startGUI(t, display, rs.URL+"/", nil)

	g.pressShortcut("f")
	g.waitLine(`finish dialog open`, 30*time.Second)
	g.xdo("key", "Escape") // the answer field has the focus
	g.clickPage(200, 300)
	g.pageClicks(rs, 1, "after Escape in the answer field")

	g.pressShortcut("f")
	deadline := time.Now().Add(30 * time.Second)
	for len(g.matches(`finish dialog open`)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the Finish dialog did not open a second time")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A click on the dialog's "Answer" label takes the focus from the field.
	w, h := g.windowSize()
	g.clickWindow(w/2-176, h/2-11)
	g.keepShot("e2e-finish-unfocused.png")
	g.xdo("key", "Escape")
	g.clickPage(300, 300)
	g.pageClicks(rs, 2, "after Escape with the focus outside the answer field")

	g.pressShortcut("f")
	deadline = time.Now().Add(30 * time.Second)
	for len(g.matches(`finish dialog open`)) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("the Finish dialog did not open a third time")
		}
		time.Sleep(50 * time.Millisecond)
	}
	g.xdo("type", "--delay", "60", "42")
	g.xdo("key", "Return")
	g.waitLine(`ended reason=finished steps=3`, 30*time.Second)
	g.xdo("key", "Escape") // the end dialog

	// Tasks > Add...: the tab bar's "Tasks", then "Add..." at the bottom left.
	g.clickWindow(168, 21)
	time.Sleep(time.Second) // the tab is drawn
	g.clickWindow(42, h-19)
	time.Sleep(time.Second) // the dialog opens
	g.xdo("type", "--delay", "40", "E2E added task")
	g.xdo("key", "Tab")
	g.xdo("key", "Tab")
	g.xdo("type", "--delay", "20", "http://shop.waymark.test/e2e")
	g.keepShot("e2e-add-task.png")
	g.xdo("key", "Return")
	time.Sleep(time.Second)
	g.clickWindow(42, h-19)
	time.Sleep(time.Second)
	g.xdo("type", "--delay", "40", "never stored")
	g.xdo("key", "Escape")
	time.Sleep(time.Second)
	g.keepShot("e2e-add-cancelled.png")
	g.quit()

	store, ep := g.onlyEpisode(t)
	if ep.Status != dataset.StatusFinished || ep.FinalAnswer != "42" {
		t.Errorf("episode %q with answer %q, want finished with 42", ep.Status, ep.FinalAnswer)
	}
	steps, err := store.Steps(context.Background(), ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps[1:] {
		got = append(got, s.Action.String())
	}
	if want := []string{"click 200,300", "click 300,300", `finish "42"`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored actions %q, want %q", got, want)
	}
	tasks, err := store.ListTasks(context.Background(), dataset.TaskFilter{Search: "E2E added task"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].StartURL != "http://shop.waymark.test/e2e" || tasks[0].Category != dataset.Navigation {
		t.Errorf("tasks found for the goal typed: %+v", tasks)
	}
	if never, _ := store.ListTasks(context.Background(), dataset.TaskFilter{Search: "never stored"}); len(never) != 0 {
		t.Errorf("the cancelled Add stored %d tasks", len(never))
	}
}
