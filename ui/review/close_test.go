package review

import (
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
	"waymark/ui/uitest"
)

// Closing the screen while thumbnails are being made stops the worker: a
// thumbnail it handed over before Close is not shown, and none is made
// afterwards.
func TestCloseStopsTheThumbnailWorker(t *testing.T) {
	test.NewTempApp(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	task, err := fixture.Task(s, "Scroll through the catalogue", dataset.Navigation, "http://shop.test/all", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := fixture.Episode(s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(300), SharedShot: true})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.ReviewQueue(t.Context(), dataset.QueueFilter{Reviewer: "rita"})
	if err != nil || len(q.Items) != 1 || q.Items[0].EpisodeID != id {
		t.Fatalf("queue %+v %v", q.Items, err)
	}
	loop := &uitest.Loop{}
	tab := New(&ui.Context{Store: s, User: func() string { return "rita" }, Bridge: loop.Bridge()})
	t.Cleanup(tab.Close)
	w := test.NewTempWindow(t, tab.Content())
	w.Resize(fyne.NewSize(1700, 1000))
	p := &tab.player
	tab.openItem(q.Items[0])
	w.Canvas().Capture() // draw: the list asks for its visible rows
	asked := len(p.thumbs.pending)
	if asked < 2 {
		t.Fatalf("%d thumbnails asked for", asked)
	}
	// The worker works: it hands a thumbnail over. Close before the Fyne
	// goroutine (the test) has run the hand-off.
	deadline := time.Now().Add(30 * time.Second)
	for loop.Queued() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if loop.Queued() == 0 {
		t.Fatal("no thumbnail handed over within 30 s")
	}
	tab.Close()
	stopped := make(chan struct{})
	go func() { p.thumbs.workers.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Fatal("the thumbnail worker did not stop after Close")
	}
	// Rows asked for now are never served: the worker is gone.
	for i := 200; i < 210; i++ {
		p.thumbs.request(i)
	}
	handed := loop.Run()
	if len(p.thumbs.images) != 0 {
		t.Errorf("%d thumbnails shown after Close (%d handed over)", len(p.thumbs.images), handed)
	}
}
