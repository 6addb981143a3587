package review

import (
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
)

// A long episode opens at once: its thumbnails are made for the rows in
// sight only, by the worker.

// TestOpenLongEpisode opens a 300-step episode and reports how long the
// first step takes to show; thumbnails are only requested for the rows the
// list shows, and made off the Fyne goroutine.
func TestOpenLongEpisode(t *testing.T) {
	e := newEnv(t)
	task, _ := fixture.Task(e.s, "Scroll through the catalogue", dataset.Navigation, "http://shop.test/all", nil)
	id, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(300), SharedShot: true})
	if err != nil {
		t.Fatal(err)
	}
	it, _ := e.findItem(id)
	// The real path: thumbnails go to the worker. Stop it first so the
	// requests stay queued and can be counted (and no goroutine touches
	// widgets during the test); the screen stays open.
	p := &e.tab.player
	p.thumbs.syncLoad = false
	p.thumbs.stop()
	p.thumbs.workers.Wait()
	start := time.Now()
	e.tab.openItem(it)
	took := time.Since(start)
	t.Logf("300-step episode: first step shown in %v", took)
	if p.view.Image() == nil || len(p.steps) != 301 {
		t.Fatal("first step not shown")
	}
	e.w.Canvas().Capture() // draw: the list asks for its visible rows
	t.Logf("thumbnails requested after opening: %d of 301", len(p.thumbs.pending))
	if len(p.thumbs.pending) == 0 || len(p.thumbs.pending) > 40 {
		t.Errorf("%d thumbnails requested: want only the visible rows", len(p.thumbs.pending))
	}
	var made int
	storetest.DB(t, e.s).QueryRow(`SELECT COUNT(*) FROM steps WHERE episode_id=? AND thumb IS NOT NULL`, id).Scan(&made)
	if made != 0 {
		t.Errorf("%d thumbnails made on the Fyne goroutine", made)
	}
}

// BenchmarkOpen300Steps measures the time to show the first step of a
// 300-step episode (metadata, step list, first screenshot decoded and set).
func BenchmarkOpen300Steps(b *testing.B) {
	test.NewTempApp(b)
	s, err := dataset.Open(filepath.Join(b.TempDir(), "w.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	task, _ := fixture.Task(s, "Long one", dataset.Navigation, "http://shop.test/", nil)
	id, err := fixture.Episode(s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(300)})
	if err != nil {
		b.Fatal(err)
	}
	tab := New(&ui.Context{Store: s, User: func() string { return "rita" }})
	defer tab.Close()
	w := test.NewWindow(tab.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1700, 1000))
	q, _ := s.ReviewQueue(b.Context(), dataset.QueueFilter{Reviewer: "rita"})
	var it dataset.QueueItem
	for _, x := range q.Items {
		if x.EpisodeID == id {
			it = x
		}
	}
	b.ResetTimer()
	for b.Loop() {
		tab.player.ep = nil
		tab.openItem(it)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/first-step")
}
