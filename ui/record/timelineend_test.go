package record

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"waymark/dataset"
)

// When the episode ends the task list unfolds and the step list gets less
// room; its last steps must stay in view (not cut off below the list).
func TestTimelineKeepsTheLastStepsInViewAfterTheEnd(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	r := f.tab
	const steps = 12
	for k := 1; k <= steps; k++ {
		test.Tap(r.tools.waitBtn)
		f.eng.gate <- struct{}{}
		f.loop.until(t, "the step", func() bool { return len(r.steps.rows) == k+1 })
	}
	if err := r.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return r.life.state == stEnded })
	if r.endDialog != nil {
		r.endDialog.Hide()
	}
	f.win.Canvas().Capture()
	rowH := r.steps.list.CreateItem().MinSize().Height + theme.SeparatorThicknessSize()
	content := float32(len(r.steps.rows))*rowH - theme.SeparatorThicknessSize()
	view := r.steps.list.Size().Height
	off := r.steps.list.GetScrollOffset()
	if view >= content {
		t.Fatalf("the list (%.0f) holds every row (%.0f): the test needs more steps", view, content)
	}
	if off+view < content-rowH/2 {
		t.Errorf("after the end the step list shows %.0f–%.0f of %.0f: the last step is cut off", off, off+view, content)
	}
}
