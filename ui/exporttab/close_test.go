package exporttab

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/dataset/hfexport"
	"waymark/ui"
	"waymark/ui/uitest"
)

// Closing the screen while an export runs cancels it: the export returns
// cancelled, leaves nothing in the folder, and no progress or end is shown
// after Close.
func TestCloseCancelsTheExport(t *testing.T) {
	s := store(t, 8, 40)
	test.NewTempApp(t)
	loop := &uitest.Loop{}
	n := &notes{}
	tab := New(&ui.Context{Store: s, Notify: n.add, Bridge: loop.Bridge()})
	test.NewTempWindow(t, tab.Content())
	ended := false
	tab.finished = func(hfexport.Result, error) { ended = true }
	returned := make(chan error, 1)
	tab.returned = func(err error) { returned <- err }
	dir := filepath.Join(t.TempDir(), "ds")
	tab.out.SetText(dir)
	tab.licence.SetText("other")
	test.Tap(tab.exportBtn)
	if !tab.Running() {
		t.Fatal("not running after Export")
	}
	deadline := time.Now().Add(30 * time.Second)
	for tab.Progress().Steps == 0 && time.Now().Before(deadline) {
		loop.Run()
		time.Sleep(time.Millisecond)
	}
	shown := tab.Progress()
	if shown.Steps == 0 {
		t.Fatal("no progress shown within 30 s")
	}
	if shown.Steps == shown.TotalSteps {
		t.Fatalf("the export was done before Close: %+v", shown)
	}
	status := tab.status.Text
	tab.Close()

	var err error
	select {
	case err = <-returned:
	case <-time.After(30 * time.Second):
		t.Fatal("the export did not stop after Close")
	}
	tab.runs.Wait()
	loop.Run() // whatever was handed over: none of it may show
	if !errors.Is(err, hfexport.ErrCancelled) {
		t.Fatalf("the export returned %v, want cancelled", err)
	}
	if got := tab.Progress(); got != shown {
		t.Errorf("progress shown after Close: %+v, was %+v", got, shown)
	}
	if ended || tab.status.Text != status || len(n.all()) != 0 {
		t.Errorf("the end was shown after Close: finished %v, status %q, notifications %v", ended, tab.status.Text, n.all())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the target exists after Close: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
