package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// A start page that fails is said as such: no action was taken at step 0,
// so neither the timeline nor the status bar says "The action did not work
// on the page".
func TestRecordTabStartPageErrorWords(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the page", Category: dataset.Navigation, StartURL: "http://nothing.invalid/", Source: "test"}})
	f.eng.resetErr = "net::ERR_NAME_NOT_RESOLVED"
	f.tab.StartTask(f.task)
	f.loop.until(t, "the start page", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
	for what, said := range map[string]string{"timeline": f.tab.steps.rows[0].err, "status bar": f.tab.status.errLbl.Text} {
		if strings.Contains(said, "action") || !strings.Contains(said, "start page") || !strings.Contains(said, "ERR_NAME_NOT_RESOLVED") {
			t.Errorf("the %s says %q about a start page that failed", what, said)
		}
	}
}

// After Discard the recording light does not say a green "Saved": it says
// the episode was discarded; a finished one is saved.
func TestRecordTabLightAfterDiscard(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	f.tab.life.discard()
	f.loop.until(t, "the discard", func() bool { return f.tab.life.state == stEnded })
	if got := f.tab.tools.recLbl.Text; got != "Discarded" {
		t.Errorf("after Discard the light says %q", got)
	}
	f = newRecordFixture(t, dataset.Navigation)
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the finish", func() bool { return f.tab.life.state == stEnded })
	if got := f.tab.tools.recLbl.Text; got != "Saved" {
		t.Errorf("after Finish the light says %q", got)
	}
	_ = action.EndFinished
}

// After an episode ends at the default window size, the timeline beside
// the queue shows its steps whole (up to three), so one can be selected to
// continue from: the queue took the column and left the list no height.
func TestRecordTabTimelineRoomAfterTheEnd(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	f.win.Resize(ui.DefaultWindowSize)
	for range 2 {
		f.tab.life.act(action.Action{Op: action.Wait})
		f.eng.gate <- struct{}{}
	}
	f.loop.until(t, "two steps", func() bool { return len(f.tab.steps.rows) == 3 })
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return f.tab.life.state == stEnded })
	if f.tab.endDialog != nil {
		f.tab.endDialog.Hide()
	}
	want := 3*f.tab.steps.rowPitch() - theme.Padding()
	if h := f.tab.steps.list.Size().Height; h+0.5 < want {
		t.Errorf("after the end the timeline is %.0f high, three steps need %.0f", h, want)
	}
	if h, row := f.tab.panel.queue.Size().Height, f.tab.panel.queue.CreateItem().MinSize().Height; h < 3*row {
		t.Errorf("the queue kept %.0f, less than three tasks (%.0f each)", h, row)
	}
}

// A long message in the status bar (three lines at its width) shows whole
// in the app's window at the default size, under its tab bar: its third
// line fell past the window's bottom edge.
func TestRecordTabLongStatusFits(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	ui.NewMainWindow(&ui.Context{Window: f.win}, f.tab)
	f.win.Resize(ui.DefaultWindowSize)
	msg := "The step could not be saved, so recording stopped: disk I/O error: the file /home/annotator/.local/share/waymark/waymark.db could not be written (no space left on device, 0 bytes free of 120 GB). Free disk space or check the database, then start again."
	f.tab.status.setError(msg)
	// The message shows in a box hidden before: its wrapped height is known
	// once it has a width. The app lays out again when a minimum size
	// changes; the test driver does so when asked.
	f.win.Content().Refresh()
	f.win.Content().Refresh()
	l := f.tab.status.errLbl
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(l)
	if bottom, room := pos.Y+l.MinSize().Height, f.win.Canvas().Size().Height; bottom > room+0.5 || lines(l) < 3 {
		t.Errorf("the message's %d lines end at %.0f, below the window's %.0f", lines(l), bottom, room)
	}
}

// lines is how many lines a wrapping label takes at its width.
func lines(l *widget.Label) int {
	h := fyne.MeasureText("X", theme.TextSize(), l.TextStyle).Height
	return int(l.MinSize().Height / (h + theme.LineSpacing()))
}

// A timeline row cut at the column's edge ends in "…": a step's error was
// cut mid-word ("⚠ The action did not work on the pa").
func TestRecordTabTimelineRowsEndInAnEllipsis(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	row := f.tab.steps.list.CreateItem()
	var cut []string
	for _, o := range test.LaidOutObjects(row) {
		if l, ok := o.(*widget.Label); ok && l.Truncation != fyne.TextTruncateEllipsis {
			cut = append(cut, l.Text)
		}
	}
	if len(cut) > 0 {
		t.Errorf("%d of a timeline row's lines are cut without an ellipsis", len(cut))
	}
}

// The page's address has the status bar's width while there is no
// message (it was cut at a third of it), and shares it with a message.
func TestRecordTabAddressTakesTheBarWithoutAMessage(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	f.win.Resize(ui.DefaultWindowSize)
	f.tab.status.setError("")
	f.win.Content().Refresh()
	alone := f.tab.status.urlLbl.Size().Width
	f.tab.status.setError("The page took too long to load; the episode goes on with what is shown.")
	f.win.Content().Refresh()
	shared := f.tab.status.urlLbl.Size().Width
	if alone < 2*shared {
		t.Errorf("the address is %.0f wide without a message and %.0f with one", alone, shared)
	}
}

// A task list that cannot be read says why where the list is, not only in
// the status bar, whose next message replaced it and left an empty list
// with no word.
func TestRecordTabUnreadableTaskListSaysWhy(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}
	f.tab.panel.refresh()
	f.tab.status.setError("Choose a task first.")
	if got := f.tab.panel.goal.Text; !strings.Contains(got, "Cannot read the task list") {
		t.Errorf("with the store unreadable the panel says %q", got)
	}
}
