package record

import (
	"context"
	"testing"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// slowStart is an engine whose Reset waits for its gate (a page slow to
// open).
type slowStart struct {
	*shotEngine
	resetGate chan struct{}
}

func (e *slowStart) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	<-e.resetGate
	return e.shotEngine.Reset(ctx, o)
}

// While the next episode starts, the status bar says what is happening
// (the browser starting, then the page opening), not the last episode's
// page.
func TestStatusBarSaysWhatTheStartIsDoing(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{
		{Goal: "Open page a", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/a", Source: "test"},
		{Goal: "Open page b", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"},
	})
	f.tab.StartTask(f.task)
	f.loop.until(t, "the first episode", func() bool { return f.tab.life.state == stRecording })
	if f.tab.status.urlLbl.Text != "http://127.0.0.1:9/a" {
		t.Fatalf("url %q", f.tab.status.urlLbl.Text)
	}
	f.tab.life.discard()
	f.loop.until(t, "the discard", func() bool { return f.tab.life.state == stEnded })

	tasks, err := f.store.ListTasks(t.Context(), dataset.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var b dataset.Task
	for _, it := range tasks {
		if it.Goal == "Open page b" {
			b = it.Task
		}
	}
	openGate, resetGate := make(chan struct{}), make(chan struct{})
	f.tab.opts.Open = func(ctx context.Context, t dataset.Task, s ui.Settings) (*Opened, error) {
		<-openGate
		eng := &slowStart{shotEngine: f.eng, resetGate: resetGate}
		return &Opened{Engine: dataset.NewRecorder(f.store, eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})}, nil
	}
	f.tab.StartTask(b)
	if f.tab.status.urlLbl.Text != "Starting the browser…" {
		t.Errorf("while the browser starts the status bar says %q", f.tab.status.urlLbl.Text)
	}
	close(openGate)
	f.loop.until(t, "the page opening", func() bool { return f.tab.status.urlLbl.Text == "Opening http://127.0.0.1:9/b…" })
	close(resetGate)
	f.loop.until(t, "the page", func() bool {
		return f.tab.life.state == stRecording && f.tab.status.urlLbl.Text == "http://127.0.0.1:9/b"
	})
}
