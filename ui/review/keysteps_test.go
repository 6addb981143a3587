package review

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// shownRows is what the step list shows: the second line of each row it
// has drawn, by step (the first line starts "K · ").
func (e *env) shownRows() map[int]string {
	rows := map[int]string{}
	var title *widget.Label
	for _, o := range test.LaidOutObjects(e.tab.player.stepList) {
		l, ok := o.(*widget.Label)
		if !ok || !l.Visible() {
			continue
		}
		if l.TextStyle.Bold {
			title = l
			continue
		}
		if title != nil {
			if k, err := strconv.Atoi(strings.SplitN(title.Text, " · ", 2)[0]); err == nil {
				rows[k] = l.Text
			}
			title = nil
		}
	}
	return rows
}

// A step the reviewer marks as a key screenshot (K) says so in its row of
// the Review player's step list, as the step's label and flags do; K again
// takes the mark away, and a saved review's key steps are marked when the
// episode is opened again.
func TestKeyStepsMarkedInStepList(t *testing.T) {
	e := newEnv(t)
	p := &e.tab.player
	e.key(fyne.KeyN) // the newest episode, at step 1
	ep := p.ep.ID
	e.key(fyne.Key1)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyK) // step 2 is key
	rows := e.shownRows()
	if len(rows) < 4 {
		t.Fatalf("the step list shows %d rows: %v", len(rows), rows)
	}
	if !strings.Contains(rows[2], "key screenshot") {
		t.Errorf("step 2's row %q does not say it is a key screenshot", rows[2])
	}
	for _, k := range []int{0, 1, 3} {
		if strings.Contains(rows[k], "key screenshot") {
			t.Errorf("step %d's row %q says key screenshot", k, rows[k])
		}
	}
	e.key(fyne.KeyK)
	if row := e.shownRows()[2]; strings.Contains(row, "key screenshot") {
		t.Errorf("after K again step 2's row still says %q", row)
	}
	e.key(fyne.KeyRight)
	e.key(fyne.KeyK) // step 3 is key
	e.ctrlS()
	e.key(fyne.KeyN) // another episode: no key step
	for k, row := range e.shownRows() {
		if strings.Contains(row, "key screenshot") {
			t.Errorf("another episode's step %d row says %q", k, row)
		}
	}
	e.openEpisode(ep)
	rows = e.shownRows()
	if !strings.Contains(rows[3], "key screenshot") || strings.Contains(rows[2], "key screenshot") {
		t.Errorf("reopened: step 2's row %q, step 3's row %q; want only step 3 marked", rows[2], rows[3])
	}
}
