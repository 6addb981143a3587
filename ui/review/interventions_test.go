package review

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/ui/review/internal/fixture"
)

// An agent's episode in which a person took over for steps 2 and 3: the
// queue's "With interventions" filter lists only it and says how many, and
// the player badges the person's steps with who acted.
func TestInterventionsInTheQueueAndThePlayer(t *testing.T) {
	e := newEnv(t)
	task, _ := fixture.Task(e.s, "Find the opening hours", dataset.Information, "http://shop.test/hours", nil)
	id, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "agent:bot", Actions: fixture.Clicks(4)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.DB(t, e.s).Exec(`UPDATE steps SET actor='human:ann' WHERE episode_id=? AND idx IN (2, 3)`, id); err != nil {
		t.Fatal(err)
	}
	q := &e.tab.queue
	e.tab.Shown()
	if len(q.items) != 4 {
		t.Fatalf("queue %d items, want 4", len(q.items))
	}
	q.interv.SetChecked(true)
	if len(q.items) != 1 || q.items[0].EpisodeID != id {
		t.Fatalf("with interventions: %d items", len(q.items))
	}
	if meta := rowMeta(q.items[0]); !strings.Contains(meta, "1 intervention") {
		t.Fatalf("row says %q", meta)
	}
	e.tab.openItem(q.items[0])
	p := &e.tab.player
	row := p.stepList.CreateItem()
	label := func(k int) (string, string, widget.Importance) {
		p.updateStepRow(k, row)
		var texts *fyne.Container
		for _, o := range row.(*fyne.Container).Objects {
			if c, ok := o.(*fyne.Container); ok {
				texts = c
			}
		}
		title := texts.Objects[0].(*widget.Label)
		return title.Text, texts.Objects[1].(*widget.Label).Text, title.Importance
	}
	for k, want := range map[int]bool{1: false, 2: true, 3: true, 4: false} {
		_, sub, imp := label(k)
		if got := strings.Contains(sub, "by human:ann"); got != want || (imp == widget.WarningImportance) != want {
			t.Errorf("step %d: row %q importance %v; want the person's badge %v", k, sub, imp, want)
		}
	}
	if h := p.stepHeader(2); !strings.Contains(h, "Acted by human:ann") {
		t.Errorf("step 2's header %q", h)
	}
	if h := p.stepHeader(1); strings.Contains(h, "Acted by") {
		t.Errorf("step 1 (the annotator's own) has the header %q", h)
	}
}

// "Agent from here" asks the app for a serve that continues the open
// episode from the step shown and says where an agent connects; without
// the app's hook the button is off.
func TestAgentFromHere(t *testing.T) {
	e := newEnv(t)
	it, _ := e.findItem(e.eps[0])
	e.tab.openItem(it)
	p := &e.tab.player
	if !p.edits.agentBtn.Disabled() {
		t.Fatal("the button is on without the app's hook")
	}
	got := make(chan string, 1)
	e.tab.ctx.AgentContinue = func(id string, k int) (string, error) {
		got <- fmt.Sprintf("%s:%d", id, k)
		return "http://127.0.0.1:4242", nil
	}
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)
	if p.edits.agentBtn.Disabled() {
		t.Fatal("the button is off with the hook")
	}
	k := p.steps[p.cur].Index
	p.edits.agentBtn.OnTapped()
	if g := <-got; g != fmt.Sprintf("%s:%d", e.eps[0], k) || k == 0 {
		t.Fatalf("asked to continue %s", g)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(e.tab.form.status.Text, "ws://127.0.0.1:4242/ws") {
		if time.Now().After(deadline) {
			t.Fatalf("status %q", e.tab.form.status.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
