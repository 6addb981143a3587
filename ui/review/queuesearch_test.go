package review

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/ui/review/internal/fixture"
	"waymark/ui/uitest"
)

// The queue's "Task goal contains…" filters as the goal is typed, without
// Enter (it filtered only on Enter, and said nothing of it); in the app,
// once typing pauses, so a long queue is not read at every key. A whole
// date filters too.
func TestQueueSearchFiltersAsTyped(t *testing.T) {
	e := newEnv(t)
	task, err := fixture.Task(e.s, "Find the opening hours", dataset.Information, "http://shop.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(2)}); err != nil {
		t.Fatal(err)
	}
	q := &e.tab.queue
	q.stateSel.SetSelectedIndex(len(q.stateKeys()) - 1) // every episode
	all := len(q.items)
	if all != 4 {
		t.Fatalf("queue of %d, want 4", all)
	}
	test.Type(q.search, "opening")
	if len(q.items) != 1 {
		t.Fatalf("typing %q left %d items, want 1", q.search.Text, len(q.items))
	}
	q.stateSel.SetSelectedIndex(0) // unreviewed by me
	q.search.SetText("zzz")
	if len(q.items) != 0 || !strings.Contains(q.summary.Text, "No episode matches") {
		t.Errorf("a goal nothing matches: %d items, the queue says %q", len(q.items), q.summary.Text)
	}
	q.stateSel.SetSelectedIndex(len(q.stateKeys()) - 1)
	q.search.SetText("")
	if len(q.items) != all {
		t.Fatalf("clearing the search left %d items", len(q.items))
	}
	q.to.SetText("2000-01-0") // not whole yet: no filter
	if len(q.items) != all {
		t.Fatalf("half a date filtered: %d items", len(q.items))
	}
	q.to.SetText("2000-01-01")
	if len(q.items) != 0 {
		t.Fatalf("to 2000-01-01 left %d items", len(q.items))
	}
	q.to.SetText("")

	// In the app the filter waits for typing to pause.
	loop := &uitest.Loop{}
	e.tab.ctx.Bridge = loop.Bridge()
	test.Type(q.search, "shoes")
	if len(q.items) != all {
		t.Fatalf("the queue was read again before typing paused: %d items", len(q.items))
	}
	deadline := time.Now().Add(time.Minute)
	for loop.Queued() < len("shoes") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	loop.Run()
	if len(q.items) != 3 {
		t.Fatalf("after typing paused the queue has %d items, want the 3 shoe episodes", len(q.items))
	}
}
