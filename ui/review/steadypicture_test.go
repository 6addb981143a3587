package review

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

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

// At the default window size, under the main window's tab bar, the player
// fits the window: the step's text under the buttons was cut at the
// window's bottom once Show redaction stacked under Show target doubled
// the buttons' row.
func TestPlayerFitsTheDefaultWindow(t *testing.T) {
	e := newEnv(t)
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	w := test.NewTempWindow(t, nil)
	e.tab.ctx.Window = w
	ui.NewMainWindow(&ui.Context{Window: w}, e.tab)
	w.Resize(ui.DefaultWindowSize)
	e.key(fyne.KeyN)
	p := &e.tab.player
	w.Content().Refresh()
	d := fyne.CurrentApp().Driver()
	for _, o := range []fyne.CanvasObject{p.info, p.mode} {
		if bottom := d.AbsolutePositionForObject(o).Y + o.Size().Height; bottom > w.Canvas().Size().Height+0.5 {
			t.Errorf("%T ends at %.0f, below the %.0f-high window", o, bottom, w.Canvas().Size().Height)
		}
	}
	if h := p.mode.Size().Height; h > ui.LabelsHeight(1, 1)+0.5 {
		t.Errorf("the step line is %.0f high, want one line (%.0f)", h, ui.LabelsHeight(1, 1))
	}
}

// The label form's reason field shows its placeholder whole in the side
// panel, 330 wide less the form's padding and scroll bar (it was cut:
// "Reason: one sentence a second reviewer could ch").
func TestReasonPlaceholderFits(t *testing.T) {
	e := newEnv(t)
	fyne.CurrentApp().Settings().SetTheme(theme.DefaultTheme())
	r := e.tab.form.reason
	room := sidePanelWidth - 2*theme.Padding() - theme.ScrollBarSize() - 2*theme.InnerPadding()
	if need := fyne.MeasureText(r.PlaceHolder, theme.TextSize(), fyne.TextStyle{}).Width; need > room {
		t.Errorf("the reason's placeholder %q needs %.0f, the side panel leaves it %.0f", r.PlaceHolder, need, room)
	}
}
