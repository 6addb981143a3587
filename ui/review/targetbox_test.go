package review

import (
	"image"
	"math"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui/review/internal/fixture"
)

// targetEpisode stores an episode whose steps carry targets: 1 a click on
// a button, 2 a type into a field partly below the viewport, 3 a scroll
// without target, 4 a click on an element without a box.
func targetEpisode(t *testing.T, s *dataset.Store) string {
	t.Helper()
	task, err := fixture.Task(s, "Add the shoes to the cart", dataset.Interaction, "http://shop.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := s.CreateEpisode(t.Context(), dataset.Episode{TaskID: task, Annotator: "ann", StartedAt: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		a      action.Action
		target *action.Target
	}{
		{},
		{action.ClickAt(160, 168), &action.Target{Bid: "a51", Tag: "button", Role: "button", Name: "Add to cart", BBox: [4]float64{100, 150, 120, 36}, Selector: "#buy"}},
		{action.TypeText("red"), &action.Target{Bid: "a12", Tag: "input", Role: "textbox", BBox: [4]float64{700, 580, 200, 50}}},
		{action.ScrollBy(300), nil},
		{action.ClickAt(5, 5), &action.Target{Bid: "a3", Tag: "span"}},
	}
	for i, st := range steps {
		row := dataset.Step{EpisodeID: ep.ID, Index: i, URL: "http://shop.test/", Target: st.target,
			Screenshot: fixture.Page("Shop", uint8(30*i), 100, 150)}
		if i > 0 {
			a := st.a
			row.Action = &a
		}
		if err := s.AppendStep(t.Context(), row); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishEpisode(t.Context(), ep.ID, dataset.EpisodeEnd{At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return ep.ID
}

// "Show target" draws the box of the element acted on over the BEFORE
// picture, in viewport pixels scaled with the picture; not on the AFTER
// picture, nor when off.
func TestShowTarget(t *testing.T) {
	e := newEnv(t)
	e.openEpisode(targetEpisode(t, e.s))
	p := &e.tab.player
	b := &p.target
	if p.cur != 1 || p.after {
		t.Fatalf("opened at step %d after=%v", p.cur, p.after)
	}
	if b.check.Checked {
		t.Fatal("Show target is on by default")
	}
	if _, _, ok := b.drawn(); ok || b.line != "" {
		t.Fatalf("off, yet a box is drawn or the status says %q", b.line)
	}

	test.Tap(b.check)
	// The box lies over the picture, at the picture's size.
	if b.Size() != p.view.Size() || b.Position() != p.view.Position() {
		t.Fatalf("box widget %v at %v, picture %v at %v", b.Size(), b.Position(), p.view.Size(), p.view.Position())
	}
	wantBox := func(step string, x, y, w, h float32) {
		t.Helper()
		pos, size, ok := b.drawn()
		if !ok {
			t.Fatalf("%s: no box drawn (status %q)", step, b.line)
		}
		s := p.view.Size().Width / 800
		if math.Abs(float64(p.view.Size().Height/600-s)) > 1e-3 {
			t.Fatalf("the picture is not 4:3: %v", p.view.Size())
		}
		got := [4]float32{pos.X / s, pos.Y / s, size.Width / s, size.Height / s}
		for i, v := range [4]float32{x, y, w, h} {
			if math.Abs(float64(got[i]-v)) > 0.5 {
				t.Fatalf("%s: box %v in viewport pixels (picture %v), want %v", step, got, p.view.Size(), [4]float32{x, y, w, h})
			}
		}
	}
	wantBox("step 1", 100, 150, 120, 36)
	if b.line != "[a51] button “Add to cart” at 100,150 (120×36)" {
		t.Errorf("status %q", b.line)
	}
	// The step's details say it too, once.
	if !strings.HasSuffix(p.info.Text, "\nTarget: [a51] button “Add to cart” at 100,150 (120×36)") || strings.Count(p.info.Text, "Target:") != 1 {
		t.Errorf("details:\n%s", p.info.Text)
	}
	if b.label.Text != "[a51] button “Add to cart”" {
		t.Errorf("name tag %q", b.label.Text)
	}
	// It is really painted: the box's edge is blue on the captured window.
	img := e.w.Canvas().Capture()
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.rect)
	sc := e.w.Canvas().Scale()
	edge := image.Pt(int((abs.X+1)*sc), int((abs.Y+b.rect.Size().Height/2)*sc))
	r, g, bl, _ := img.At(edge.X, edge.Y).RGBA()
	if !(bl > 0xC000 && r < 0x4000 && g < 0xA000) {
		t.Errorf("pixel %v on the box's left edge is %x,%x,%x, want the box's blue", edge, r>>8, g>>8, bl>>8)
	}

	// A smaller window: the box follows the picture.
	e.w.Resize(fyne.NewSize(1100, 760))
	wantBox("step 1, smaller window", 100, 150, 120, 36)

	// The AFTER picture: no box, and the line says where it is drawn.
	e.key(fyne.KeySpace)
	if !p.after {
		t.Fatal("Space did not show the result")
	}
	if _, _, ok := b.drawn(); ok {
		t.Error("a box is drawn on the AFTER picture")
	}
	if b.line != "drawn on the BEFORE picture (Space)" {
		t.Errorf("after: status %q", b.line)
	}

	// Step 2: the part of the box inside the viewport.
	e.key(fyne.KeyRight)
	wantBox("step 2", 700, 580, 100, 20)
	if b.line != "[a12] textbox at 700,580 (200×50)" {
		t.Errorf("step 2 status %q", b.line)
	}
	// Step 3: no target.
	e.key(fyne.KeyRight)
	if _, _, ok := b.drawn(); ok || b.line != "none recorded for this step" {
		t.Errorf("step 3: drawn %v, status %q", ok, b.line)
	}
	// Step 4: a target without a box.
	e.key(fyne.KeyRight)
	if _, _, ok := b.drawn(); ok || b.line != "[a3] span · it has no box on the page" {
		t.Errorf("step 4: drawn %v, status %q", ok, b.line)
	}
	// Step 0, the start page: nothing.
	e.key(fyne.KeyHome)
	if _, _, ok := b.drawn(); ok || b.line != "" {
		t.Errorf("step 0: drawn %v, status %q", ok, b.line)
	}
	// Off again.
	e.key(fyne.KeyRight)
	wantBox("step 1 again", 100, 150, 120, 36)
	test.Tap(b.check)
	if _, _, ok := b.drawn(); ok || b.line != "" || strings.Contains(p.info.Text, "Target:") {
		t.Errorf("off: drawn %v, status %q, details\n%s", ok, b.line, p.info.Text)
	}
}

// Boxes past the viewport's edges are clipped to it; one wholly outside is
// not drawn.
func TestTargetRect(t *testing.T) {
	for _, c := range []struct {
		bbox [4]float64
		want [4]float32
		ok   bool
	}{
		{[4]float64{10, 20, 30, 40}, [4]float32{10, 20, 30, 40}, true},
		{[4]float64{-10, -20, 30, 40}, [4]float32{0, 0, 20, 20}, true},
		{[4]float64{790, 590, 30, 40}, [4]float32{790, 590, 10, 10}, true},
		{[4]float64{0, 0, 800, 600}, [4]float32{0, 0, 800, 600}, true},
		{[4]float64{0, 700, 100, 50}, [4]float32{}, false},   // below the fold
		{[4]float64{-100, 10, 100, 50}, [4]float32{}, false}, // left of the page
		{[4]float64{10, 10, 0, 50}, [4]float32{}, false},     // no width
	} {
		x, y, w, h, ok := targetRect(&action.Target{BBox: c.bbox})
		if ok != c.ok || (ok && [4]float32{x, y, w, h} != c.want) {
			t.Errorf("%v: %v %v %v %v %v, want %v %v", c.bbox, x, y, w, h, ok, c.want, c.ok)
		}
	}
}

// The target's line gives its box in whole pixels, as Chromium's fractions
// would clutter it.
func TestTargetBoxWordsRound(t *testing.T) {
	if got := boxWords([4]float64{152.78125, 10, 473.515625, 32}); got != " at 153,10 (474×32)" {
		t.Errorf("boxWords = %q", got)
	}
}
