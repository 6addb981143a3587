package app

// End-to-end test of explore first, name the tasks after, in the real
// binary under Xvfb: an exploration of a practice site recorded with
// clicks sent by xdotool, a task cut out of it with the Cut a task…
// button and the dialog (typed), checked by replaying it from its start
// state, then found in the Review tab's queue, opened with N and replayed
// again with R from Review's Replay panel. Screenshots are kept.

import (
	"fmt"
	"image"
	"strconv"
	"testing"
	"time"

	"waymark/dataset"
)

func TestE2EExploreCutReview(t *testing.T) {
	needTools(t)
	buildBinary(t)
	display := startXvfbSized(t, "1600x1200x24")
	g := launchGUI(t, display, guiOptions{args: []string{"--explore", "http://shop.waymark.test/"}})
	m := g.waitLine(`liveview at ([\d.]+),([\d.]+) size 800x600 scale ([\d.]+) episode (\S+)`, 90*time.Second)
	wx, wy := g.windowPos()
	vx, _ := strconv.ParseFloat(m[1], 64)
	vy, _ := strconv.ParseFloat(m[2], 64)
	g.viewX, g.viewY = float64(wx)+vx, float64(wy)+vy
	expl := m[4]

	// Explore: three clicks on the shop (a category, then the page).
	for i, c := range [][2]int{{91, 221}, {300, 330}, {400, 200}} {
		g.clickPage(c[0], c[1])
		g.waitLine(fmt.Sprintf(`click→timeline \d+ ms \(step %d:`, i+1), 30*time.Second)
	}
	g.pressShortcut("f")
	g.waitLine(`finish dialog open`, 30*time.Second)
	g.xdo("key", "Return") // an exploration has no answer
	g.waitLine(`ended reason=finished steps=4`, 30*time.Second)
	// The "Episode ended" dialog offers the next task: Escape stays here.
	time.Sleep(time.Second)
	g.keepShot("explore-e2e-ended.png")
	g.xdo("key", "Escape")
	time.Sleep(500 * time.Millisecond)

	// Cut a task…: the button under the timeline, then the dialog's
	// instruction (focused) and Enter. The span is the default, steps 1–3.
	b := g.waitLine(`cut button at ([\d.]+),([\d.]+) size ([\d.]+)x([\d.]+) episode `+expl, 30*time.Second)
	bx, _ := strconv.ParseFloat(b[1], 64)
	by, _ := strconv.ParseFloat(b[2], 64)
	bw, _ := strconv.ParseFloat(b[3], 64)
	bh, _ := strconv.ParseFloat(b[4], 64)
	g.clickWindow(int(bx+bw/2), int(by+bh/2))
	time.Sleep(time.Second) // the dialog opens and focuses the instruction
	g.keepShot("explore-e2e-cut-dialog.png")
	g.xdo("type", "--delay", "40", "Open a product page of the shop")
	g.xdo("key", "Tab", "Tab") // past the category (navigation) to the key points
	g.xdo("type", "--delay", "40", "url: shop.waymark.test")
	g.keepShot("explore-e2e-cut-typed.png")
	g.xdo("key", "Return")
	c := g.waitLine(`cut (\S+) checked: (.*) \(err (.*)\)$`, 120*time.Second)
	cutID := c[1]
	if c[3] != "<nil>" || c[2] == "" {
		t.Fatalf("the Record screen's check of the cut: %q, error %s", c[2], c[3])
	}
	time.Sleep(500 * time.Millisecond)
	recShot := g.keepShot("explore-e2e-record.png")

	// Review: the cut is the one task to label; N opens it, R replays it
	// from its start state.
	var tb tabBar
	if err := g.shotUntil("explore-e2e-tabs.png", 30*time.Second, func(img image.Image) (err error) {
		tb, err = findTabBar(img, wx, wy)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	g.xdo("mousemove", strconv.Itoa((tb.labels[1][0]+tb.labels[1][1])/2), strconv.Itoa((tb.labelTop+tb.labelBottom)/2), "click", "1")
	time.Sleep(time.Second)
	g.xdo("key", "n")
	time.Sleep(1500 * time.Millisecond)
	openShot := g.keepShot("explore-e2e-review.png")
	g.xdo("key", "r")

	s, err := dataset.Open(g.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var runs []dataset.ReplayRun
	for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		runs, err = s.ReplayRuns(t.Context(), cutID)
		if err == nil && len(runs) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(time.Second) // the panel draws the result
	replayShot := g.keepShot("explore-e2e-review-replay.png")
	t.Logf("screenshots: %s %s %s", recShot, openShot, replayShot)
	if len(runs) != 2 {
		t.Fatalf("the cut has %d replay runs, want 2 (the Record screen's check, then Review's R): %v", len(runs), err)
	}

	cut, err := s.GetEpisode(t.Context(), cutID)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Intent != dataset.IntentHindsight || cut.ExplorationID != expl || cut.SpanFrom != 1 || cut.SpanTo != 3 || cut.Goal != "Open a product page of the shop" {
		t.Fatalf("the cut: intent %s, exploration %s, span %d–%d, goal %q", cut.Intent, cut.ExplorationID, cut.SpanFrom, cut.SpanTo, cut.Goal)
	}
	h, err := s.HindsightCheckOf(t.Context(), cutID)
	if err != nil || h == nil || h.Replay == nil || h.Replay.RunID != runs[0].ID {
		t.Fatalf("the cut's check is not Review's run: %+v %v", h, err)
	}
	if len(h.KeyPoints) != 1 || !h.KeyPoints[0].Checked || !h.KeyPoints[0].Passed || h.KeyPoints[0].KeyPoint != "url: shop.waymark.test" {
		t.Errorf("the cut's key points: %+v", h.KeyPoints)
	}
	if !h.Replayable() || !h.Replay.Offline {
		t.Fatalf("Review's replay of the cut from its start state: %s", h.Summary())
	}
	q, err := s.ReviewQueue(t.Context(), dataset.QueueFilter{Reviewer: e2eAnnotator})
	if err != nil || q.Counts[dataset.QueueUnreviewed] != 1 || q.Counts[dataset.QueueExplorations] != 1 || q.Intents.Replayable != 1 {
		t.Fatalf("the review queue's counts %v, intents %+v, %v", q.Counts, q.Intents, err)
	}
}
