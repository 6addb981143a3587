package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/ui"
)

// The end dialog of an exploration says what became of it — saved, with
// its steps, and that tasks are cut out of it now or later in Review —
// not "You finished the task" (it had none); its highlighted button
// (Enter) opens the cut dialog, as Ctrl+Shift+X does.
func TestRecordTabExplorationEndDialog(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "A planned task", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	r, v := f.tab, f.tab.View()
	r.Explore("http://127.0.0.1:9/explore")
	f.loop.until(t, "the exploration to start", func() bool { return r.life.state == stRecording && len(r.steps.rows) == 1 })
	for i, x := range []float32{100, 200} {
		click(v, fyne.NewPos(x, 80))
		f.eng.gate <- struct{}{}
		f.loop.until(t, "the click's step", func() bool { return len(r.steps.rows) == i+2 })
	}
	if err := r.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end dialog", func() bool { return r.endDialog != nil && f.win.Canvas().Overlays().Top() != nil })
	top := f.win.Canvas().Overlays().Top()
	all := strings.Join(texts(top), "\n")
	if strings.Contains(all, "finished the task") || strings.Contains(all, "Next:") {
		t.Errorf("the end dialog of an exploration says:\n%s", all)
	}
	for _, want := range []string{"You ended the exploration.", "The exploration was saved with its 3 steps", "Cut a task…", "later in Review"} {
		if !strings.Contains(all, want) {
			t.Errorf("the end dialog of an exploration lacks %q:\n%s", want, all)
		}
	}
	var cut *ui.DialogButton
	for _, o := range test.LaidOutObjects(top) {
		if b, ok := o.(*ui.DialogButton); ok && b.Text == "Cut a task…" {
			cut = b
		}
	}
	if cut == nil {
		t.Fatal("the end dialog of an exploration has no Cut a task… button")
	}
	h := f.win.Canvas().OnTypedKey()
	if h == nil {
		t.Fatal("no key handler while the end dialog is up")
	}
	h(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if r.cuts.form == nil {
		t.Fatal("Enter in the end dialog of an exploration did not open the cut dialog")
	}
	if got := r.cuts.form.To.Options; len(got) != 2 {
		t.Errorf("the cut dialog offers %q, want the exploration's two clicks", got)
	}
	// Escape closes it; Ctrl+Shift+X opens it again, as the button does.
	f.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if r.cuts.form != nil {
		t.Fatal("Escape did not close the cut dialog")
	}
	r.TypedShortcut(ShortcutCut)
	if r.cuts.form == nil {
		t.Fatal("Ctrl+Shift+X did not open the cut dialog after the exploration")
	}
}
