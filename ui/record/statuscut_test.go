package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
)

// A long status message (an error saying what to do) is shown in full in
// the status bar, on more lines, not cut off with an ellipsis.
func TestStatusBarShowsLongMessagesInFull(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	msg := "The step could not be saved, so recording stopped: disk I/O error (the database file is on a full disk). Free disk space or check the database, then start again."
	f.tab.setError(msg)
	for range 2 { // a wrapped label's height follows its width
		f.win.Resize(f.win.Canvas().Size().AddWidthHeight(1, 0))
		f.win.Resize(f.win.Canvas().Size().AddWidthHeight(-1, 0))
	}
	f.win.Canvas().Capture()
	var lines []string
	for _, o := range test.LaidOutObjects(f.tab.errLbl) {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() && tx.Text != "" {
			lines = append(lines, strings.TrimSpace(tx.Text))
		}
	}
	if got := strings.Join(lines, " "); got != msg {
		t.Errorf("the status bar shows %q\nwant %q", got, msg)
	}
	bottom := f.tab.errLbl.Position().Y + f.tab.errLbl.Size().Height
	if h := f.win.Canvas().Size().Height; bottom > h {
		t.Errorf("the message ends at %.0f, below the window (%.0f)", bottom, h)
	}
}
