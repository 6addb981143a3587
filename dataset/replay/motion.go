package replay

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"slices"
	"strings"
	"time"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// What only animates.
//
// A stored screenshot shows the page's endless animations (a spinner, a
// blinking banner, a carousel) at the moment it was taken; the replayed
// one shows them at another, so the two differ there although the page is
// the same. When a step's screenshot is all that diverges and the
// replaying engine can say what moves by itself (engine.Motion), the
// comparison is made again leaving out the regions of the replayed page
// that move by themselves:
//
//   - the regions endless CSS animations and Web Animations paint in over
//     a whole iteration (the engine samples each at 16 moments of it);
//   - where two captures of the replayed page, one after the other,
//     differ outside those regions (what scripts, canvases and videos
//     move): the box of the element painted there, widened to its nearest
//     ancestor that clips (a carousel's strip). Editable fields are never
//     left out, so a blinking caret does not hide typed text. Differences
//     inside an animation's swept box are that animation's: a round
//     spinner's corners would otherwise name what is painted below them,
//     a container that can cover most of the page.
//
// Everything else is compared as before, with the same measure and
// threshold (the share counts against the whole viewport), so a changed
// line of text outside these regions still diverges. The report lists
// every region left out and why; a step whose regions would cover more
// than MaxIgnoredShare of the viewport is compared whole.
//
// Why the replay alone decides: the recorded screenshot has the animation
// at a random phase and old recordings have nothing else, so freezing
// animations at replay cannot make the two agree, and freezing them at
// record time would change the page the person acts on (pausing and
// seeking animations fires events that pages listen to). Looking only at
// the replayed page keeps the stored episode untouched and works for every
// recording. Its limit: a change inside a region that moves is not seen,
// and something that moves rarely (a carousel that turns every 5 s)
// between the two captures, or an element moved by a script with no
// clipping ancestor, is not found, so such a step still diverges.

// MotionMeasure is the report's account of what is left out.
const MotionMeasure = "when a step's screenshot alone diverges, the regions of the replayed page that move by themselves (endless CSS animations and Web Animations over a whole iteration; " +
	"the element, or its clipping ancestor, where two captures of the replayed page differ; never an editable field) are left out and the rest compared again, " +
	"unless they cover more than a quarter of the viewport; each step lists the regions left out and why"

// MaxIgnoredShare is the largest share of the viewport that may be left
// out of a step's comparison.
const MaxIgnoredShare = 0.25

// motionCell is the side of the squares two captures are compared in;
// motionMinPixels the differing pixels a square needs to count.
const (
	motionCell      = 16
	motionMinPixels = 4
)

// compareStepIn is compareStep, with what only animates left out of the
// screenshot's comparison when the screenshot is all that diverges and
// eng can say what moves by itself; a step that still diverges on its
// screenshot alone in a replay in another display mode than rec's names
// both modes.
func compareStepIn(ctx context.Context, eng engine.Engine, rec *Recording, stored dataset.Step, obs action.Observation) StepResult {
	r := leaveOutMotion(ctx, eng, stored, obs)
	if r.Verdict == dataset.VerdictDiverged && r.shotOnly {
		if recorded, replaying := rec.Display(), eng.Info().Display; recorded != "" && replaying != "" && recorded != replaying {
			r.Why += fmt.Sprintf("; recorded on %s, replayed %s (see the warning)", recorded, replaying)
		}
	}
	return r
}

// leaveOutMotion is compareStep, with what only animates left out (see
// above).
func leaveOutMotion(ctx context.Context, eng engine.Engine, stored dataset.Step, obs action.Observation) StepResult {
	r := leaveOutRedacted(compareStep(stored, obs), stored, obs)
	mo, ok := motionOf(eng)
	if !ok || r.Verdict == dataset.VerdictMatch || !r.shotOnly {
		return r
	}
	a, err1 := pngImage(stored.Screenshot)
	b, err2 := pngImage(obs.Screenshot)
	if err1 != nil || err2 != nil {
		return r
	}
	ign, note := motionRegions(ctx, mo, b)
	if len(ign) == 0 {
		if note != "" {
			r.Why += "; " + note
		}
		return r
	}
	mask := make([]image.Rectangle, len(ign))
	area := 0
	for i, g := range ign {
		mask[i] = g.Rect()
		area += g.W * g.H
	}
	if float64(area) > MaxIgnoredShare*float64(b.Bounds().Dx()*b.Bounds().Dy()) {
		r.Why += fmt.Sprintf("; the replayed page moves by itself over %d pixels, more than the %.0f%% of the viewport that may be left out, so it was compared whole",
			area, 100*MaxIgnoredShare)
		return r
	}
	s, err := CompareMasked(a, b, mask)
	if err != nil {
		return r
	}
	before := *r.DiffPixels
	r.Score, r.DiffPixels, r.Ignored = &s.Score, &s.DiffPixels, ign
	list := describeIgnored(ign)
	if s.Same() {
		r.Verdict, r.Why = dataset.VerdictMatch, fmt.Sprintf("matched with %s ignored, where the replayed page moves by itself (with them, %d pixels differed): %s", plural(len(ign), "region"), before, list)
		return r
	}
	r.Why = fmt.Sprintf("screenshot: %d pixels differ (%.3f%%, more than the %.3f%% allowed)%s, outside %s ignored, where the replayed page moves by itself: %s",
		s.DiffPixels, 100*s.Share, 100*MaxDiffShare, s.whereText(), plural(len(ign), "region"), list)
	return r
}

// leaveOutRedacted compares a step whose screenshot alone diverged again
// without the boxes a redaction policy blacked out (the stored step's and
// the replayed one's): what a box hides is the same personal data, whose
// box differs in size when the page shows its placeholder.
func leaveOutRedacted(r StepResult, stored dataset.Step, obs action.Observation) StepResult {
	boxes := append(append([]action.RedactBox(nil), stored.Redaction...), obs.Redaction...)
	if r.Verdict == dataset.VerdictMatch || !r.shotOnly || len(boxes) == 0 {
		return r
	}
	a, err1 := pngImage(stored.Screenshot)
	b, err2 := pngImage(obs.Screenshot)
	if err1 != nil || err2 != nil {
		return r
	}
	mask := make([]image.Rectangle, len(boxes))
	for i, x := range boxes {
		mask[i] = image.Rect(x.X, x.Y, x.X+x.W, x.Y+x.H).Inset(-2) // and the box's edge
	}
	s, err := CompareMasked(a, b, mask)
	if err != nil || !s.Same() {
		return r
	}
	r.Verdict, r.Score, r.DiffPixels = dataset.VerdictMatch, &s.Score, &s.DiffPixels
	r.Why = fmt.Sprintf("matched with the %s a redaction policy blacked out left out", plural(len(boxes), "region"))
	return r
}

// motionOf is eng's engine.Motion, or that of the engine it wraps (a
// dataset.Recorder's, for a branch's replayed steps).
func motionOf(eng engine.Engine) (engine.Motion, bool) {
	for range 4 {
		if m, ok := eng.(engine.Motion); ok {
			return m, true
		}
		w, ok := eng.(interface{ Inner() engine.Engine })
		if !ok {
			return nil, false
		}
		eng = w.Inner()
	}
	return nil, false
}

// motionRegions asks the engine what on the replayed page (whose
// screenshot is shot) moves by itself. note says why nothing could be
// found, when an engine call failed.
func motionRegions(ctx context.Context, mo engine.Motion, shot image.Image) ([]Ignored, string) {
	anim, err := mo.Animated(ctx)
	if err != nil {
		return nil, "what moves on the page could not be read: " + err.Error()
	}
	var out []Ignored
	for _, g := range anim {
		out = append(out, Ignored{X: g.X, Y: g.Y, W: g.W, H: g.H, Why: g.Why})
	}
	t0 := time.Now()
	again, err := mo.Screenshot(ctx)
	if err != nil {
		return merge(out), ""
	}
	ms := time.Since(t0).Milliseconds()
	b, err := pngImage(again)
	if err != nil {
		return merge(out), ""
	}
	cells := movedCells(shot, b, out)
	if len(cells) > 0 {
		pts := make([]image.Point, len(cells))
		for i, c := range cells {
			pts[i] = image.Pt((c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2)
		}
		boxes, err := mo.BoxesAt(ctx, pts)
		if err == nil {
			for _, g := range boxes {
				if g.W > 0 && g.H > 0 {
					out = append(out, Ignored{X: g.X, Y: g.Y, W: g.W, H: g.H,
						Why: fmt.Sprintf("changed between two captures of the replayed page about %d ms apart: %s", max(ms, 1), g.Why)})
				}
			}
		}
	}
	return merge(out), ""
}

// movedCells are the motionCell squares in which the captures a and b
// differ in at least motionMinPixels pixels outside the regions known (the
// animations' swept boxes). A square whose differences all lie in those
// regions is already explained: asking what is painted at its middle,
// which can be off a round spinner, would name what lies below it (a
// container covering most of the page).
func movedCells(a, b image.Image, known []Ignored) []image.Rectangle {
	if len(known) > 0 {
		// b with a's pixels in the known regions: they differ nowhere there.
		c := image.NewRGBA(b.Bounds())
		draw.Draw(c, c.Rect, b, b.Bounds().Min, draw.Src)
		for _, g := range known {
			r := g.Rect().Add(b.Bounds().Min)
			draw.Draw(c, r, a, r.Min.Sub(b.Bounds().Min).Add(a.Bounds().Min), draw.Src)
		}
		b = c
	}
	return diffCells(a, b, motionCell, motionMinPixels)
}

// merge drops regions equal to or inside another.
func merge(in []Ignored) []Ignored {
	var out []Ignored
	for i, g := range in {
		r := g.Rect()
		inside := false
		for j, h := range in {
			if i == j {
				continue
			}
			// Equal regions: the first stays.
			if o := h.Rect(); r.In(o) && (r != o || j < i) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b Ignored) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
	return out
}

// describeIgnored lists the regions as people read them, the first four
// in full.
func describeIgnored(ign []Ignored) string {
	var parts []string
	for i, g := range ign {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ign)-4))
			break
		}
		parts = append(parts, fmt.Sprintf("%d×%d at %d,%d (%s)", g.W, g.H, g.X, g.Y, g.Why))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func pngImage(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
