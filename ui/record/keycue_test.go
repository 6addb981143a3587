package record

import (
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
	"waymark/ui"
)

// The live view shows whether keystrokes go to the page: a ring around the
// picture and a line just above it, which follow the keyboard focus.
func TestLiveViewShowsWhereKeysGo(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Find it", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	v := f.tab.View()
	c := f.win.Canvas()
	bars := v.FocusRing() // top, bottom, left, right
	ring := func() bool { return bars[0].Visible() && bars[3].Visible() }
	// The cue's text is the third object of the strip above the picture
	// (the banner's background and text come first).
	cue := v.Banner().(*fyne.Container).Objects[2]
	c.Unfocus()
	if v.KeyCue() != "" || ring() {
		t.Fatalf("before an episode, without the keyboard: cue %q, ring %v", v.KeyCue(), ring())
	}
	c.Focus(v)
	if v.KeyCue() != ui.KeysToPageLater || !ring() {
		t.Fatalf("before an episode, with the keyboard: cue %q, ring %v", v.KeyCue(), ring())
	}

	f.tab.StartTask(f.task)
	f.loop.until(t, "the episode to record", func() bool { return f.tab.life.state == stRecording })
	if c.Focused() != v || v.KeyCue() != ui.KeysToPage || !ring() {
		t.Fatalf("recording, after Start: focused %v, cue %q, ring %v", c.Focused() == v, v.KeyCue(), ring())
	}
	// The cue is drawn in the strip above the picture, not over the page.
	d := fyne.CurrentApp().Driver()
	cp, vp := d.AbsolutePositionForObject(cue), d.AbsolutePositionForObject(v)
	if !cue.Visible() || cue.Size().Width < 50 || cp.Y < 0 || cp.Y+cue.Size().Height > vp.Y {
		t.Fatalf("cue at %v size %v, picture from y %g", cp, cue.Size(), vp.Y)
	}

	c.Focus(f.tab.tools.waitBtn) // the keyboard goes elsewhere (Tab, a button)
	if v.KeyCue() != ui.KeysElsewhere || ring() {
		t.Fatalf("recording, keyboard elsewhere: cue %q, ring %v", v.KeyCue(), ring())
	}
	click(v, fyne.NewPos(100, 100)) // a click on the picture gives it back
	if c.Focused() != v || v.KeyCue() != ui.KeysToPage || !ring() {
		t.Fatalf("after a click on the picture: focused %v, cue %q, ring %v", c.Focused() == v, v.KeyCue(), ring())
	}

	// A recorded step shown in the strip's place hides the cue; back to
	// live shows it again.
	f.tab.steps.preview(0)
	f.loop.until(t, "the step shown", func() bool { return v.ShowingStill() })
	if v.KeyCue() != "" {
		t.Fatalf("cue %q over a step's banner", v.KeyCue())
	}
	v.ShowLive()
	if v.KeyCue() != ui.KeysToPage {
		t.Fatalf("back to live: cue %q", v.KeyCue())
	}
}
