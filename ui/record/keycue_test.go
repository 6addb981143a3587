package record

import (
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
)

// The live view shows whether keystrokes go to the page: a ring around the
// picture and a line just above it, which follow the keyboard focus.
func TestLiveViewShowsWhereKeysGo(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Find it", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	v := f.tab.View()
	c := f.win.Canvas()
	ring := func() bool { return v.focusBox[0].Visible() && v.focusBox[3].Visible() }
	c.Unfocus()
	if v.KeyCue() != "" || ring() {
		t.Fatalf("before an episode, without the keyboard: cue %q, ring %v", v.KeyCue(), ring())
	}
	c.Focus(v)
	if v.KeyCue() != KeysToPageLater || !ring() {
		t.Fatalf("before an episode, with the keyboard: cue %q, ring %v", v.KeyCue(), ring())
	}

	f.tab.StartTask(f.task)
	f.loop.until(t, "the episode to record", func() bool { return f.tab.life.state == stRecording })
	if c.Focused() != v || v.KeyCue() != KeysToPage || !ring() {
		t.Fatalf("recording, after Start: focused %v, cue %q, ring %v", c.Focused() == v, v.KeyCue(), ring())
	}
	// The cue is drawn in the strip above the picture, not over the page.
	d := fyne.CurrentApp().Driver()
	cp, vp := d.AbsolutePositionForObject(v.keysTx), d.AbsolutePositionForObject(v)
	if !v.keysTx.Visible() || v.keysTx.Size().Width < 50 || cp.Y < 0 || cp.Y+v.keysTx.Size().Height > vp.Y {
		t.Fatalf("cue at %v size %v, picture from y %g", cp, v.keysTx.Size(), vp.Y)
	}

	c.Focus(f.tab.tools.waitBtn) // the keyboard goes elsewhere (Tab, a button)
	if v.KeyCue() != KeysElsewhere || ring() {
		t.Fatalf("recording, keyboard elsewhere: cue %q, ring %v", v.KeyCue(), ring())
	}
	click(v, fyne.NewPos(100, 100)) // a click on the picture gives it back
	if c.Focused() != v || v.KeyCue() != KeysToPage || !ring() {
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
	if v.KeyCue() != KeysToPage {
		t.Fatalf("back to live: cue %q", v.KeyCue())
	}
}
