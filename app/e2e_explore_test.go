package app

// End-to-end test of explore first, name the tasks after, in the real
// binary under Xvfb, as a person does it: an exploration of two practice
// sites (the shop, then the settings site reached by typing its address
// in Go to…, where the person reads a help article and signs in) recorded
// with clicks and typing sent by xdotool; four tasks cut out of it with
// the Cut a task… button under the timeline, then its key Ctrl+Shift+X,
// and the dialog (typed, its choices moved with the arrow keys), each
// checked by replaying it from its start state: three replay to their
// end, the one after the sign-in does not (the password typed before it
// was never stored, so its start state cannot be brought back) and says
// so; then a cut found in the Review tab's queue, opened with N and replayed again
// with R from Review's Replay panel. Screenshots are kept.

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine/action"
)

// waitNth waits for the nth log line matching re and returns its
// submatches.
func (g *guiRun) waitNth(re string, n int, d time.Duration) []string {
	g.t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if m := g.matches(re); len(m) >= n {
			return m[n-1]
		}
		select {
		case <-g.exited:
			g.t.Fatalf("the app exited while waiting for line %d matching %q", n, re)
		default:
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("no line %d matching %q within %v", n, re, d)
		}
	}
}

// floats parses the numbers of a log line's submatches.
func floats(m []string) []float64 {
	out := make([]float64, len(m))
	for i, v := range m {
		out[i], _ = strconv.ParseFloat(v, 64)
	}
	return out
}

// e2eCut is one task cut in the end-to-end test: its span, what is typed
// in the dialog, and how many Left (-) or Right (+) presses move the
// category from navigation.
type e2eCut struct {
	from, to    int
	instruction string
	category    int
	keyPoint    string
	answer      string
}

// fill types c into the open cut dialog, whose span is def[0]–def[1] and
// whose instruction has the focus, and confirms it.
func (g *guiRun) fillCut(c e2eCut, def []float64) {
	g.t.Helper()
	arrows := func(n int) {
		key := "Right"
		if n < 0 {
			key, n = "Left", -n
		}
		for range n {
			g.xdo("key", key)
		}
	}
	g.xdo("key", "shift+Tab", "shift+Tab") // the first step
	arrows(c.from - int(def[0]))           // every kept action is a choice
	g.xdo("key", "Tab")                    // the last step
	arrows(c.to - int(def[1]))
	g.xdo("key", "Tab") // the instruction
	g.xdo("type", "--delay", "15", c.instruction)
	g.xdo("key", "Tab") // the category
	arrows(c.category)
	g.xdo("key", "Tab") // the key points
	g.xdo("type", "--delay", "15", c.keyPoint)
	if c.answer != "" {
		g.xdo("key", "Tab")
		g.xdo("type", "--delay", "15", c.answer)
	}
}

func TestE2EExploreCutReview(t *testing.T) {
	needTools(t)
	buildBinary(t)
	display := startXvfbSized(t, "1600x1200x24")
	// The X pointer starts at the screen's centre, over the page once the
	// window shows: resting there, it would be recorded as a move (the
	// extended set's hover). A person's hand is off the page at first.
	mv := exec.Command("xdotool", "mousemove", "1599", "1199")
	mv.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := mv.CombinedOutput(); err != nil {
		t.Fatalf("xdotool mousemove: %v\n%s", err, out)
	}
	g := launchGUI(t, display, guiOptions{prefs: map[string]any{"action_set": "extended"}, args: []string{"--explore", "http://shop.waymark.test/"}})
	m := g.waitLine(`liveview at ([\d.]+),([\d.]+) size 800x600 scale ([\d.]+) episode (\S+)`, 90*time.Second)
	wx, wy := g.windowPos()
	vx, _ := strconv.ParseFloat(m[1], 64)
	vy, _ := strconv.ParseFloat(m[2], 64)
	g.viewX, g.viewY = float64(wx)+vx, float64(wy)+vy
	expl := m[4]

	// Explore the shop: a category, a product, its size 42, Add to cart.
	// Each action is waited for by its own log line. The extended set
	// also records a move where the pointer rests on the page (seen once
	// before the first click): the actions' step numbers are read from
	// the store once the exploration has ended (at).
	clicks, gotos := 0, 0
	click := func(x, y int) {
		t.Helper()
		g.clickPage(x, y)
		clicks++
		g.waitNth(`step \d+ recorded: click → `, clicks, 30*time.Second)
	}
	click(91, 221)
	click(300, 330)
	click(542, 364)
	click(397, 466)
	// The settings site, by its address typed in Go to…: its help centre,
	// an article, then its sign-in page, where an email and a password
	// are typed (the password is not stored), then a page after it.
	gb := floats(g.waitLine(`goto button at ([\d.]+),([\d.]+) size ([\d.]+)x([\d.]+)$`, 30*time.Second)[1:])
	goTo := func(u string) {
		t.Helper()
		g.clickWindow(int(gb[0]+gb[2]/2), int(gb[1]+gb[3]/2))
		time.Sleep(700 * time.Millisecond) // the dialog opens with its address focused
		g.xdo("type", "--delay", "15", u)
		g.xdo("key", "Return")
		gotos++
		if got := g.waitNth(`step \d+ recorded: goto → (.*)$`, gotos, 30*time.Second)[1]; got != u {
			t.Fatalf("Go to %s led to %s", u, got)
		}
	}
	goTo("http://forms.waymark.test/help")
	click(325, 214) // Cancelling a workshop booking
	g.keepShot("explore-e2e-second-site.png")
	goTo("http://forms.waymark.test/signin")
	click(398, 210)
	g.xdo("type", "--delay", "15", "robin@example.com")
	click(398, 266) // the email typed is sent first
	g.xdo("type", "--delay", "15", "correct horse battery")
	click(549, 340) // Sign in; the password typed is sent first
	click(85, 301)  // Book a workshop
	g.keepShot("explore-e2e-explored.png")
	g.pressShortcut("f")
	g.waitLine(`finish dialog open`, 30*time.Second)
	g.xdo("key", "Return") // an exploration has no answer
	g.waitLine(`ended reason=finished steps=\d+`, 30*time.Second)
	s, err := dataset.Open(g.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// at[k] is the step of the exploration's kth action (moves left out).
	steps, err := s.Steps(t.Context(), expl)
	if err != nil {
		t.Fatal(err)
	}
	at := []int{0}
	for _, st := range steps[1:] {
		if st.Action == nil || st.Action.Op == action.Finish {
			continue
		}
		if st.Action.Op == action.Move {
			t.Logf("step %d is a move where the pointer rested: %s", st.Index, st.ActionJSON)
			continue
		}
		at = append(at, st.Index)
	}
	if len(at) != 14 {
		t.Fatalf("the exploration has %d actions besides moves, want 13 (clicks, addresses and typing): %d steps", len(at)-1, len(steps))
	}
	time.Sleep(time.Second)
	g.keepShot("explore-e2e-ended.png")

	cuts := []e2eCut{
		{from: 1, to: 2, instruction: "Open the Trail Runner X product page", keyPoint: "url: /product/trail-runner-x"},
		{from: 3, to: 4, instruction: "Add the Trail Runner X in size 42 to the cart", category: +1, keyPoint: "text: to your cart"},
		{from: 5, to: 6, instruction: "How many days before a workshop can a booking be cancelled for a full refund?", category: -1,
			keyPoint: "text: up to 7 days before the workshop", answer: "7 days"},
		{from: 13, to: 13, instruction: "Open the workshop booking page", keyPoint: "url: /book"},
	}
	for i := range cuts {
		cuts[i].from, cuts[i].to = at[cuts[i].from], at[cuts[i].to]
	}
	ids := make([]string, len(cuts))
	for i, c := range cuts {
		if i == 0 {
			// The end dialog says what became of the exploration; Escape
			// stays (its Enter is Cut a task…, as ui/record's test shows).
			g.xdo("key", "Escape")
			time.Sleep(500 * time.Millisecond) // the dialog goes
			// The button under the timeline, where it was when the
			// exploration ended (the list of cuts under it moves it).
			b := floats(g.waitLine(`cut button at ([\d.]+),([\d.]+) size ([\d.]+)x([\d.]+) episode `+expl, 30*time.Second)[1:])
			g.clickWindow(int(b[0]+b[2]/2), int(b[1]+b[3]/2))
		} else {
			g.pressShortcut("x")
		}
		def := floats(g.waitNth(`cut dialog open: steps (\d+)–(\d+)$`, i+1, 30*time.Second)[1:])
		time.Sleep(500 * time.Millisecond) // the instruction takes the focus
		g.fillCut(c, def)
		g.keepShot(fmt.Sprintf("explore-e2e-cut%d-typed.png", i+1))
		g.xdo("key", "Return")
		l := g.waitNth(`cut (\S+) checked: (.*) \(err (.*)\)$`, i+1, 120*time.Second)
		if l[3] != "<nil>" {
			t.Fatalf("the Record screen's check of cut %d: %q, error %s", i+1, l[2], l[3])
		}
		ids[i] = l[1]
		t.Logf("cut %d (steps %d–%d): %s", i+1, c.from, c.to, l[2])
	}
	time.Sleep(500 * time.Millisecond)
	recShot := g.keepShot("explore-e2e-record.png")

	// The exploration went over two sites; its password was not stored.
	if a, b := steps[at[4]].URL, steps[at[5]].URL; !strings.HasPrefix(a, "http://shop.waymark.test/") || !strings.HasPrefix(b, "http://forms.waymark.test/help") {
		t.Fatalf("the 4th action ended on %s, the 5th on %s: not two sites", a, b)
	}
	if st := steps[at[11]]; st.Action == nil || !st.Action.IsRedacted() || strings.Contains(st.ActionJSON, "correct horse") {
		t.Fatalf("the password's step is stored as %s", st.ActionJSON)
	}
	for i, c := range cuts {
		e, err := s.GetEpisode(t.Context(), ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if e.Intent != dataset.IntentHindsight || e.ExplorationID != expl || e.SpanFrom != c.from || e.SpanTo != c.to || e.Goal != c.instruction || e.FinalAnswer != c.answer {
			t.Fatalf("cut %d: intent %s, exploration %s, span %d–%d, goal %q, answer %q", i+1, e.Intent, e.ExplorationID, e.SpanFrom, e.SpanTo, e.Goal, e.FinalAnswer)
		}
		task, err := s.GetTask(t.Context(), e.TaskID)
		if err != nil || task.Goal != c.instruction || task.Source != dataset.SourceHindsight {
			t.Fatalf("cut %d's task: %+v, %v", i+1, task, err)
		}
		cs, err := s.Steps(t.Context(), ids[i])
		if err != nil || len(cs) != c.to-c.from+3 || cs[0].URL != steps[c.from-1].URL {
			t.Fatalf("cut %d has %d steps (%v), its start %s (want %d, starting at %s)", i+1, len(cs), err, cs[0].URL, c.to-c.from+3, steps[c.from-1].URL)
		}
		h, err := s.HindsightCheckOf(t.Context(), ids[i])
		if err != nil || h == nil || h.Replay == nil {
			t.Fatalf("cut %d has no check: %+v %v", i+1, h, err)
		}
		if i < 3 {
			// Replayed to its end: the start state and every step of the
			// span matched, and its key point passed.
			if n := c.to - c.from + 2; !h.Replayable() || !h.Replay.Offline || h.Replay.Matched != n || h.Replay.Compared != n {
				t.Errorf("cut %d does not replay to its end: %s", i+1, h.Summary())
			}
			if len(h.KeyPoints) != 1 || !h.KeyPoints[0].Checked || !h.KeyPoints[0].Passed {
				t.Errorf("cut %d's key point: %+v", i+1, h.KeyPoints)
			}
			continue
		}
		// The span after the sign-in: its start state no longer replays.
		if h.Replayable() || !strings.Contains(h.Replay.Why, "the start state no longer replays") || !strings.Contains(h.Replay.Why, fmt.Sprintf("step %d", at[11])) || !strings.Contains(h.Replay.Why, "secret") {
			t.Errorf("the cut after the sign-in: %s (why: %s)", h.Summary(), h.Replay.Why)
		}
		if l := g.waitNth(`cut (\S+) checked: (.*) \(err`, 4, time.Second); !strings.HasPrefix(l[2], "NOT replayable") {
			t.Errorf("the Record screen says of the cut after the sign-in: %q", l[2])
		}
	}

	// Review: N opens the first cut to label, R replays it from its start
	// state.
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
	var cutID string
	var runs []dataset.ReplayRun
	for deadline := time.Now().Add(120 * time.Second); cutID == "" && time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		for _, id := range ids {
			if r, err := s.ReplayRuns(t.Context(), id); err == nil && len(r) >= 2 {
				cutID, runs = id, r
			}
		}
	}
	time.Sleep(time.Second) // the panel draws the result
	replayShot := g.keepShot("explore-e2e-review-replay.png")
	t.Logf("screenshots: %s %s %s", recShot, openShot, replayShot)
	if cutID == "" {
		t.Fatal("no cut got a second replay run (Review's R) within 120 s")
	}
	h, err := s.HindsightCheckOf(t.Context(), cutID)
	if err != nil || h == nil || h.Replay == nil || h.Replay.RunID != runs[0].ID {
		t.Fatalf("the cut's check is not Review's run: %+v %v", h, err)
	}
	if want := cutID != ids[3]; h.Replayable() != want {
		t.Fatalf("Review's replay of cut %s from its start state: %s", cutID, h.Summary())
	}
	q, err := s.ReviewQueue(t.Context(), dataset.QueueFilter{Reviewer: e2eAnnotator})
	if err != nil || q.Counts[dataset.QueueUnreviewed] != 4 || q.Counts[dataset.QueueExplorations] != 1 || q.Intents.Replayable != 3 || q.Intents.NotReplayable != 1 {
		t.Fatalf("the review queue's counts %v, intents %+v, %v", q.Counts, q.Intents, err)
	}
}
