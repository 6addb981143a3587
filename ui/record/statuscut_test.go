package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
)

// A long status message (an error saying what to do) is shown in full in
// the status bar, on more lines, not cut off with an ellipsis.
func TestStatusBarShowsLongMessagesInFull(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	msg := "The step could not be saved, so recording stopped: disk I/O error (the database file is on a full disk). Free disk space or check the database, then start again."
	f.tab.status.setError(msg)
	for range 2 { // a wrapped label's height follows its width
		f.win.Resize(f.win.Canvas().Size().AddWidthHeight(1, 0))
		f.win.Resize(f.win.Canvas().Size().AddWidthHeight(-1, 0))
	}
	f.win.Canvas().Capture()
	var lines []string
	for _, o := range test.LaidOutObjects(f.tab.status.errLbl) {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() && tx.Text != "" {
			lines = append(lines, strings.TrimSpace(tx.Text))
		}
	}
	if got := strings.Join(lines, " "); got != msg {
		t.Errorf("the status bar shows %q\nwant %q", got, msg)
	}
	bottom := f.tab.status.errLbl.Position().Y + f.tab.status.errLbl.Size().Height
	if h := f.win.Canvas().Size().Height; bottom > h {
		t.Errorf("the message ends at %.0f, below the window (%.0f)", bottom, h)
	}
}

// In a window no taller than the Record screen needs, a status message
// that wraps onto a second line shows both: the bar keeps room for two
// lines, so the second does not make the screen taller than the window
// (the toolkit then lays it out past the window's bottom edge).
func TestStatusBarSecondLineAtTheWindowsEdge(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	f.tab.status.setError("")
	relayout := func() {
		for range 2 { // a wrapped label's height follows its width
			f.win.Resize(fyne.NewSize(1201, 800))
			f.win.Resize(fyne.NewSize(1200, 800))
		}
		f.win.Canvas().Capture()
	}
	relayout()
	need := f.tab.Content().MinSize().Height
	msg := "No step to write a note on yet: a note goes with a recorded step. Start an episode first, then press Ctrl+Shift+M again to write it on the latest step."
	f.tab.status.setError(msg)
	relayout()
	var lines []string
	for _, o := range test.LaidOutObjects(f.tab.status.errLbl) {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() && tx.Text != "" {
			lines = append(lines, strings.TrimSpace(tx.Text))
		}
	}
	if len(lines) != 2 {
		t.Fatalf("the message is on %d lines, this test needs two: %q", len(lines), lines)
	}
	if now := f.tab.Content().MinSize().Height; now > need {
		t.Errorf("a two-line message makes the screen need %.0f, not %.0f: in a window %.0f high its second line is past the bottom edge", now, need, need)
	}
}
