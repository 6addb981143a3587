package app

// End-to-end test of the Review tab in the real binary: two episodes
// recorded for real (practice sites, headless Chromium, the dataset
// recorder) are labelled under Xvfb with keys sent by xdotool only, after
// one click on the tab's label, and the stored reviews are read back.

import (
	"context"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/ui/review/reviewtest"
)

// tabBar is what tabBarOf finds in a screenshot of the main window.
type tabBar struct {
	indicatorY            int // the row of the selected tab's underline
	indicatorFrom         int // its first and last screen x
	indicatorTo           int
	labels                [][2]int // screen x ranges of the tab labels, left to right
	labelTop, labelBottom int
}

func rgb8(img image.Image, x, y int) (int, int, int) {
	r, g, b, _ := img.At(x, y).RGBA()
	return int(r >> 8), int(g >> 8), int(b >> 8)
}

// tabBarOf finds the main window's tab bar (window top-left at wx,wy):
// the selected tab's underline is the topmost long run of the theme's blue
// in the first 80 rows, and the labels are the runs of columns above it
// that hold text (pixels far from the bar's background).
func tabBarOf(t *testing.T, img image.Image, wx, wy int) tabBar {
	t.Helper()
	tb, err := findTabBar(img, wx, wy)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// findTabBar is tabBarOf that returns an error when the window shows no
// tab bar (yet).
func findTabBar(img image.Image, wx, wy int) (tabBar, error) {
	blue := func(x, y int) bool {
		r, g, b := rgb8(img, x, y)
		return b > 150 && b > r+60 && b > g+30
	}
	tb := tabBar{indicatorY: -1}
	w := img.Bounds().Dx()
	for y := wy; y < wy+80 && tb.indicatorY < 0; y++ {
		run := 0
		for x := wx; x < w; x++ {
			if blue(x, y) {
				run++
				if run >= 24 {
					tb.indicatorY, tb.indicatorTo = y, x
					for tb.indicatorTo+1 < w && blue(tb.indicatorTo+1, y) {
						tb.indicatorTo++
					}
					tb.indicatorFrom = tb.indicatorTo
					for blue(tb.indicatorFrom-1, y) {
						tb.indicatorFrom--
					}
					break
				}
			} else {
				run = 0
			}
		}
	}
	if tb.indicatorY < 0 {
		return tb, errors.New("no selected-tab underline in the first 80 rows of the window")
	}
	tb.labelTop, tb.labelBottom = wy+2, tb.indicatorY-3
	br, bg, bb := rgb8(img, w-2, (tb.labelTop+tb.labelBottom)/2) // the bar's background, right of every label
	ink := func(x int) bool {
		for y := tb.labelTop; y <= tb.labelBottom; y++ {
			r, g, b := rgb8(img, x, y)
			if abs(r-br)+abs(g-bg)+abs(b-bb) > 150 {
				return true
			}
		}
		return false
	}
	const gap = 10 // blank columns between two labels (more than between letters)
	start, last := -1, -gap-1
	for x := wx; x < w; x++ {
		if !ink(x) {
			continue
		}
		if x-last > gap {
			if start >= 0 {
				tb.labels = append(tb.labels, [2]int{start, last})
			}
			start = x
		}
		last = x
	}
	if start >= 0 {
		tb.labels = append(tb.labels, [2]int{start, last})
	}
	if len(tb.labels) < 2 {
		return tb, fmt.Errorf("%d tab labels in the bar, want at least 2", len(tb.labels))
	}
	return tb, nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestE2EReviewTwoEpisodesKeyboardOnly records two real episodes into a
// fresh database, opens it in the real binary on Xvfb, clicks the Review
// tab's label, then labels both episodes with xdotool keys only (N, arrows,
// 2, T, M, Ctrl+S, 1), takes screenshots and checks the stored reviews.
func TestE2EReviewTwoEpisodesKeyboardOnly(t *testing.T) {
	needTools(t)
	buildBinary(t) // before the clock of the recording starts
	db := filepath.Join(t.TempDir(), "review.db")
	s, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	ids, err := reviewtest.Record(ctx, s, reviewtest.Scripts)
	cancel()
	s.Close()
	if err != nil || len(ids) != 2 {
		t.Fatalf("recording the two episodes: %v (%d recorded)", err, len(ids))
	}
	wiki, shop := ids[0], ids[1] // the queue shows the newest (shop) first

	// Room for the window's full size (the player shows 800×600).
	display := startXvfbSized(t, "1600x1200x24")
	g := launchGUI(t, display, guiOptions{dbPath: db})
	g.waitLine(`tab Review min size`, 60*time.Second)
	wx, wy := g.waitWindow(30 * time.Second)

	// The one click: the Review tab's label (the second in the bar), once
	// the window has drawn its tab bar (a starved window draws late).
	var tb tabBar
	if err := g.shotUntil("review-e2e-start.png", 30*time.Second, func(img image.Image) (err error) {
		tb, err = findTabBar(img, wx, wy)
		return err
	}); err != nil {
		t.Fatalf("30 s after the window mapped: %v", err)
	}
	if len(tb.labels) < 2 || tb.labels[0][0] > tb.indicatorTo || tb.labels[0][1] < tb.indicatorFrom {
		t.Fatalf("tab bar not as expected (want the first tab selected and a second label): %+v", tb)
	}
	cx, cy := (tb.labels[1][0]+tb.labels[1][1])/2, (tb.labelTop+tb.labelBottom)/2
	g.xdo("mousemove", strconv.Itoa(cx), strconv.Itoa(cy), "click", "1")
	// The underline slides under the label; a starved window draws it late
	// (a bound on hanging, not on speed).
	if err := g.shotUntil("review-e2e-tab.png", 30*time.Second, func(img image.Image) error {
		after := tabBarOf(t, img, wx, wy)
		if after.indicatorFrom > cx || after.indicatorTo < cx {
			return fmt.Errorf("30 s after clicking the second tab label at %d,%d the underline is at x %d..%d, not under it", cx, cy, after.indicatorFrom, after.indicatorTo)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// From here on, keys only.
	keys := func(ks ...string) {
		t.Helper()
		for _, k := range ks {
			g.xdo("key", k)
			if k == "n" {
				time.Sleep(1200 * time.Millisecond) // the episode and its screenshots load
			} else {
				time.Sleep(400 * time.Millisecond)
			}
		}
	}
	// Shop: N opens it at step 1, → → shows step 3, 2 = failure (the first
	// failing step follows the step shown), T T = the second failure type,
	// M flags step 3 as a mistake; the screenshot shows the filled form;
	// Ctrl+S saves.
	keys("n", "Right", "Right", "2", "t", "t", "m")
	failShot := g.keepShot("review-e2e-failure.png")
	keys("ctrl+s")
	// Wiki: N opens the next unreviewed, End shows the last step, 1 =
	// success, N saves it (and finds nothing left).
	keys("n", "End", "1", "n")
	// The keys queue up in order in the app; on a busy machine the last
	// ones may still be waiting: wait for both reviews before looking.
	s, err = dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		a, errA := s.CurrentReviews(t.Context(), shop)
		b, errB := s.CurrentReviews(t.Context(), wiki)
		if errA == nil && errB == nil && len(a) > 0 && len(b) > 0 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // the status line after the last N is drawn
	doneShot := g.keepShot("review-e2e-done.png")
	t.Logf("screenshots: %s, %s", failShot, doneShot)
	g.quit()

	review := func(ep string) dataset.Review {
		t.Helper()
		rs, err := s.CurrentReviews(t.Context(), ep)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 1 {
			t.Fatalf("episode %s has %d reviews, want 1: %+v", ep, len(rs), rs)
		}
		if rs[0].Reviewer != e2eAnnotator {
			t.Errorf("episode %s reviewed by %q, want the name from the preferences %q", ep, rs[0].Reviewer, e2eAnnotator)
		}
		return rs[0]
	}
	r := review(shop)
	if r.Outcome != dataset.OutcomeFailure || r.FailureStep == nil || *r.FailureStep != 3 ||
		r.FailureType != dataset.FailureTypes[1] || !slices.Equal(r.StepFlags[3], []string{dataset.FlagMistake}) || len(r.StepFlags) != 1 {
		t.Errorf("shop episode: outcome %q, failing step %s, type %q, flags %v; want failure at step 3, %q, step 3 flagged %q",
			r.Outcome, stepText(r.FailureStep), r.FailureType, r.StepFlags, dataset.FailureTypes[1], dataset.FlagMistake)
	}
	r = review(wiki)
	if r.Outcome != dataset.OutcomeSuccess || r.FailureStep != nil || r.FailureType != "" || len(r.StepFlags) != 0 {
		t.Errorf("wiki episode: outcome %q, failing step %s, type %q, flags %v; want success with no failure fields",
			r.Outcome, stepText(r.FailureStep), r.FailureType, r.StepFlags)
	}
}

func stepText(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
