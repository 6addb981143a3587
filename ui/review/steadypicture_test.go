package review

import (
	"testing"

	"fyne.io/fyne/v2"

	"waymark/ui"
)

// The picture keeps its size from step to step at the default window
// size: the step's text under it (two lines more on the step that ended
// the episode, with a note) took its height, so the picture and the
// buttons under it moved (618 → 597 px wide).
func TestPlayerPictureKeepsItsSize(t *testing.T) {
	e := newEnv(t)
	e.w.Resize(ui.DefaultWindowSize)
	p := &e.tab.player
	if err := e.s.SetStepNote(t.Context(), e.eps[2], 4, "the page took long to answer"); err != nil {
		t.Fatal(err)
	}
	e.key(fyne.KeyN) // the newest episode
	last := len(p.steps) - 1
	if p.ep.ID != e.eps[2] || p.steps[last].Note == "" {
		t.Fatalf("opened %s (note %q), want %s with its note", p.ep.ID, p.steps[last].Note, e.eps[2])
	}
	var sizes []fyne.Size
	for _, k := range []int{1, last} {
		p.show(k, false)
		e.w.Content().Refresh()
		sizes = append(sizes, p.view.Size())
	}
	if sizes[0] != sizes[1] {
		t.Errorf("the picture is %v on step 1 and %v on step %d (info %q)", sizes[0], sizes[1], last, p.info.Text)
	}
}
