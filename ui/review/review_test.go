package review

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/engine/action"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
)

type env struct {
	t   *testing.T
	s   *dataset.Store
	tab *Tab
	w   fyne.Window
	eps []string // oldest first
}

// newEnv makes a store with three finished episodes (4 actions each, real
// PNGs) and one still recording, and opens the tab as reviewer "rita".
func newEnv(t *testing.T) *env {
	t.Helper()
	test.NewTempApp(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	task, err := fixture.Task(s, "Buy the red shoes", dataset.Interaction, "http://shop.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, s: s}
	t0 := time.Now().Add(-3 * time.Hour)
	for i := range 3 {
		id, err := fixture.Episode(s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(4), Answer: "done", Started: t0.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		e.eps = append(e.eps, id)
	}
	if _, err := s.CreateEpisode(t.Context(), dataset.Episode{TaskID: task, Annotator: "ann"}); err != nil {
		t.Fatal(err)
	}
	e.tab = New(&ui.Context{Store: s, User: func() string { return "rita" }})
	e.tab.player.thumbs.syncLoad = true
	t.Cleanup(e.tab.Close)
	e.w = test.NewTempWindow(t, e.tab.Content())
	e.w.Resize(fyne.NewSize(1700, 1000))
	return e
}

func (e *env) key(name fyne.KeyName) {
	e.t.Helper()
	if !e.tab.TypedKey(&fyne.KeyEvent{Name: name}) {
		e.t.Fatalf("key %s not handled", name)
	}
}

func (e *env) ctrlS() {
	e.t.Helper()
	if !e.tab.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault}) {
		e.t.Fatal("Ctrl+S not handled")
	}
}

func (e *env) shot(idx int) image.Image {
	e.t.Helper()
	b, err := e.s.Screenshot(context.Background(), e.tab.player.ep.ID, idx)
	if err != nil {
		e.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		e.t.Fatal(err)
	}
	return img
}

func sameImage(a, b image.Image) bool {
	if a == nil || b == nil || a.Bounds() != b.Bounds() {
		return false
	}
	for _, p := range []image.Point{{10, 10}, {400, 30}, {300, 300}, {700, 550}, {150, 170}, {555, 444}} {
		r1, g1, b1, _ := a.At(p.X, p.Y).RGBA()
		r2, g2, b2, _ := b.At(p.X, p.Y).RGBA()
		if r1 != r2 || g1 != g2 || b1 != b2 {
			return false
		}
	}
	return true
}

func (e *env) reviews(ep string) []dataset.Review {
	e.t.Helper()
	rs, err := e.s.CurrentReviews(context.Background(), ep)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

func TestKeyboardFlow(t *testing.T) {
	e := newEnv(t)
	p, f := &e.tab.player, &e.tab.form
	// The queue opens on "unreviewed by me": the three finished episodes.
	if n := len(e.tab.queue.items); n != 3 {
		t.Fatalf("queue has %d items, want the 3 finished episodes", n)
	}
	if c := e.tab.queue.counts[dataset.QueueUnreviewed]; c != 3 {
		t.Errorf("unreviewed count = %d", c)
	}

	// N with nothing open opens the first unreviewed (newest first).
	e.key(fyne.KeyN)
	if p.ep == nil || p.ep.ID != e.eps[2] {
		t.Fatalf("N opened %v, want the newest episode", p.ep)
	}
	if p.cur != 1 || p.after {
		t.Fatalf("opened at step %d after=%v, want step 1 before", p.cur, p.after)
	}
	// Step 1 is drawn on the reset screenshot with its action.
	if !sameImage(p.view.Image(), e.shot(0)) || p.view.Action() == nil || p.view.Action().Op != action.Click {
		t.Errorf("step 1 should show screenshot 0 with the click")
	}

	// → moves to the next step.
	e.key(fyne.KeyRight)
	if p.cur != 2 {
		t.Fatalf("after → at step %d, want 2", p.cur)
	}
	if !sameImage(p.view.Image(), e.shot(1)) || p.view.Action().Op != action.Type {
		t.Errorf("step 2 should show screenshot 1 with the typing")
	}
	// Space shows the result, Space again the action.
	e.key(fyne.KeySpace)
	if !p.after || !sameImage(p.view.Image(), e.shot(2)) || p.view.Action() != nil {
		t.Errorf("Space should show screenshot 2 without an action")
	}
	e.key(fyne.KeySpace)
	if p.after || !sameImage(p.view.Image(), e.shot(1)) {
		t.Errorf("Space again should go back to the action")
	}
	e.key(fyne.KeyEnd)
	if p.cur != 4 {
		t.Errorf("End: step %d", p.cur)
	}
	e.key(fyne.KeyHome)
	if p.cur != 0 {
		t.Errorf("Home: step %d", p.cur)
	}
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)

	// Ctrl+S with no outcome saves nothing and says why.
	e.ctrlS()
	if len(e.reviews(p.ep.ID)) != 0 {
		t.Fatal("saved without an outcome")
	}
	if f.status.Importance != widget.DangerImportance || !strings.Contains(f.status.Text, "outcome") {
		t.Errorf("no clear message for a save without an outcome: %q", f.status.Text)
	}
	// 2 picks failure; the failing step defaults to the step shown.
	e.key(fyne.Key2)
	if f.outcome != dataset.OutcomeFailure || f.failStep == nil || *f.failStep != 2 {
		t.Fatalf("after 2: outcome %q step %v", f.outcome, f.failStep)
	}
	if f.outcomeRadio.Selected != outcomeLabels[1] {
		t.Errorf("radio shows %q", f.outcomeRadio.Selected)
	}
	// A failure needs a type: Ctrl+S refuses, T picks the first type.
	e.ctrlS()
	if len(e.reviews(p.ep.ID)) != 0 {
		t.Fatal("saved a failure without a type")
	}
	if f.status.Importance != widget.DangerImportance {
		t.Errorf("refusal not shown as a problem: %q", f.status.Text)
	}
	e.key(fyne.KeyT)
	if f.failType != dataset.FailureTypes[0] {
		t.Errorf("T picked %q", f.failType)
	}
	e.key(fyne.KeyM) // flag step 2 as a mistake
	e.ctrlS()
	rs := e.reviews(p.ep.ID)
	if len(rs) != 1 {
		t.Fatalf("after Ctrl+S: %d reviews", len(rs))
	}
	r := rs[0]
	if r.Reviewer != "rita" || r.Outcome != dataset.OutcomeFailure || r.FailureStep == nil || *r.FailureStep != 2 ||
		r.FailureType != dataset.FailureTypes[0] || len(r.StepFlags[2]) != 1 || r.StepFlags[2][0] != dataset.FlagMistake {
		t.Errorf("stored review = %+v", r)
	}
	// The failing step stays where it was saved when moving on.
	e.key(fyne.KeyRight)
	if *f.failStep != 2 {
		t.Errorf("failing step moved to %d after saving", *f.failStep)
	}
	e.key(fyne.KeyLeft)

	// N saves (nothing changed: no new version) and opens the next unreviewed.
	first := p.ep.ID
	e.key(fyne.KeyN)
	if p.ep.ID != e.eps[1] {
		t.Fatalf("N opened %s, want the next unreviewed %s", p.ep.ID, e.eps[1])
	}
	if h, _ := e.s.ReviewHistory(t.Context(), first, "rita"); len(h) != 1 {
		t.Errorf("an unchanged review was saved again: %d versions", len(h))
	}
	if f.outcome != "" || len(f.stepFlags.byStep) != 0 {
		t.Errorf("form not cleared for a new episode: %q %v", f.outcome, f.stepFlags.byStep)
	}
	// 1 then N: success saved, next one opened.
	e.key(fyne.Key1)
	e.key(fyne.KeyN)
	if rs := e.reviews(e.eps[1]); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeSuccess {
		t.Errorf("episode 2 reviews = %+v", rs)
	}
	if p.ep.ID != e.eps[0] {
		t.Fatalf("second N opened %s, want %s", p.ep.ID, e.eps[0])
	}
	e.key(fyne.Key3)
	e.key(fyne.KeyN)
	if rs := e.reviews(e.eps[0]); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeNotExecutable {
		t.Errorf("episode 3 reviews = %+v", rs)
	}
	// Everything reviewed: N stays and says so.
	if p.ep.ID != e.eps[0] {
		t.Errorf("N moved with nothing left: %s", p.ep.ID)
	}
	if e.tab.queue.counts[dataset.QueueUnreviewed] != 0 || e.tab.queue.counts[dataset.QueueMine] != 3 {
		t.Errorf("counts after reviewing all = %v", e.tab.queue.counts)
	}

	// Editing my review keeps the history: reopen the first episode and
	// change the outcome.
	it, _ := e.findItem(first)
	e.tab.queue.state = ""
	e.tab.openItem(it)
	if f.outcome != dataset.OutcomeFailure || *f.failStep != 2 {
		t.Fatalf("my review was not loaded: %q %v", f.outcome, f.failStep)
	}
	e.key(fyne.Key1)
	e.ctrlS()
	if h, _ := e.s.ReviewHistory(t.Context(), first, "rita"); len(h) != 2 || h[0].Outcome != dataset.OutcomeSuccess || h[1].SupersededBy != h[0].ID {
		t.Errorf("history after an edit = %+v", h)
	}
}

func (e *env) findItem(id string) (dataset.QueueItem, bool) {
	q, err := e.s.ReviewQueue(context.Background(), dataset.QueueFilter{Reviewer: "rita"})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, it := range q.Items {
		if it.EpisodeID == id {
			return it, true
		}
	}
	e.t.Fatalf("episode %s not in the queue", id)
	return dataset.QueueItem{}, false
}

func TestSettleAConflict(t *testing.T) {
	e := newEnv(t)
	ep, other := e.eps[1], e.eps[0]
	for _, id := range []string{ep, other} {
		for _, r := range []dataset.Review{
			{EpisodeID: id, Reviewer: "ann2", Outcome: dataset.OutcomeSuccess},
			{EpisodeID: id, Reviewer: "bo", Outcome: dataset.OutcomeInvalidTask},
		} {
			if _, err := e.s.SaveReview(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := &e.tab.queue
	q.stateSel.SetSelectedIndex(2) // In conflict
	if q.state != dataset.QueueConflict || len(q.items) != 2 || q.items[0].EpisodeID != ep {
		t.Fatalf("conflict queue: state %q items %d", q.state, len(q.items))
	}
	q.list.Select(0)
	f := &e.tab.form
	if e.tab.player.ep == nil || e.tab.player.ep.ID != ep {
		t.Fatal("selecting the row did not open the episode")
	}
	if f.othersBox.Hidden || !f.settle.Checked {
		t.Fatal("settling mode not offered for a conflict")
	}
	if f.others.Text == "" {
		t.Error("the other reviews are not shown")
	}
	e.key(fyne.KeyRight)
	e.key(fyne.KeyT) // picks failure and the first type
	e.key(fyne.KeyN) // settles and opens the next conflict
	if e.tab.player.ep.ID != other || !f.settle.Checked {
		t.Errorf("N after settling opened %s (settling %v), want the other conflict", e.tab.player.ep.ID, f.settle.Checked)
	}
	var out dataset.Outcome
	var settled bool
	if err := storetest.DB(t, e.s).QueryRow(`SELECT outcome, settled FROM episode_outcomes WHERE episode_id=?`, ep).Scan(&out, &settled); err != nil {
		t.Fatal(err)
	}
	if out != dataset.OutcomeFailure || !settled {
		t.Errorf("after settling: outcome %q settled %v", out, settled)
	}
	if q.counts[dataset.QueueConflict] != 1 || q.counts[dataset.QueueSettled] != 1 {
		t.Errorf("counts after settling = %v", q.counts)
	}
	if q.agreement.Text == "" || q.agreement.Text[0] != '2' {
		t.Errorf("agreement text = %q", q.agreement.Text)
	}
}

func TestGuidelinesEditable(t *testing.T) {
	e := newEnv(t)
	f := &e.tab.form
	f.guides.btn.OnTapped()
	if f.guides.edit.Text != dataset.DefaultGuidelines {
		t.Fatal("editor does not start from the stored guidelines")
	}
	f.guides.edit.SetText("# House rules\nAlways give a reason.")
	f.guides.btn.OnTapped()
	if g, _ := e.s.Guidelines(t.Context()); g != "# House rules\nAlways give a reason." {
		t.Errorf("stored guidelines = %q", g)
	}
	if len(f.guides.view.Segments) == 0 {
		t.Error("guidelines not rendered")
	}
}

// TestReasonFieldKeepsCtrlS: while the reason field has the focus, Ctrl+S
// still saves (the window sends it to the focused widget) and Escape gives
// the keys back to the tab.
func TestReasonFieldKeepsCtrlS(t *testing.T) {
	e := newEnv(t)
	e.key(fyne.KeyN)
	e.key(fyne.Key4)
	c := e.w.Canvas()
	c.Focus(e.tab.form.reason)
	test.Type(e.tab.form.reason, "goal names a product that does not exist")
	focused, ok := c.Focused().(fyne.Shortcutable)
	if !ok {
		t.Fatal("the reason field is not focused")
	}
	focused.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault})
	rs := e.reviews(e.tab.player.ep.ID)
	if len(rs) != 1 || rs[0].Outcome != dataset.OutcomeInvalidTask || rs[0].Reason != "goal names a product that does not exist" {
		t.Fatalf("reviews after Ctrl+S in the reason field: %+v", rs)
	}
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Focused() != nil {
		t.Error("Escape did not give the keys back")
	}
}

// TestNoPeekingOutsideTheConflictQueue: reviewing a disputed episode from
// the ordinary queue shows no other reviewer's label.
func TestNoPeekingOutsideTheConflictQueue(t *testing.T) {
	e := newEnv(t)
	for _, r := range []dataset.Review{
		{EpisodeID: e.eps[2], Reviewer: "ann2", Outcome: dataset.OutcomeSuccess},
		{EpisodeID: e.eps[2], Reviewer: "bo", Outcome: dataset.OutcomeInvalidTask},
	} {
		if _, err := e.s.SaveReview(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	e.tab.Shown()
	e.key(fyne.KeyN)
	if e.tab.player.ep.ID != e.eps[2] {
		t.Fatal("N did not open the disputed episode")
	}
	if !e.tab.form.othersBox.Hidden {
		t.Error("other reviews shown in the unreviewed queue")
	}
	e.key(fyne.Key1)
	e.ctrlS()
	var settles int
	storetest.DB(t, e.s).QueryRow(`SELECT COUNT(*) FROM reviews WHERE settles=1`).Scan(&settles)
	if settles != 0 {
		t.Error("an ordinary review was stored as a settling label")
	}
}

// TestCtrlSFromTheWindow: Ctrl+S typed in the window reaches the tab while
// it shows (the tab registers it on the canvas), and not when it is hidden.
func TestCtrlSFromTheWindow(t *testing.T) {
	test.NewTempApp(t)
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, _ := fixture.Task(s, "Buy the red shoes", dataset.Interaction, "http://shop.test/", nil)
	ep, err := fixture.Episode(s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(2)})
	if err != nil {
		t.Fatal(err)
	}
	w := test.NewTempWindow(t, nil)
	tab := New(&ui.Context{Store: s, Window: w, User: func() string { return "rita" }})
	// Thumbnails inline: the worker's hand-offs would run on the worker in
	// the test driver, beside this goroutine's widget calls (a data race).
	tab.player.thumbs.syncLoad = true
	defer tab.Close()
	w.SetContent(tab.Content())
	tab.TypedKey(&fyne.KeyEvent{Name: fyne.KeyN})
	tab.TypedKey(&fyne.KeyEvent{Name: fyne.Key1})
	ctrlS := &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault}
	tab.Content().Hide()
	w.Canvas().(fyne.Shortcutable).TypedShortcut(ctrlS)
	if rs, _ := s.CurrentReviews(t.Context(), ep); len(rs) != 0 {
		t.Fatal("Ctrl+S saved while the tab was hidden")
	}
	tab.Content().Show()
	w.Canvas().(fyne.Shortcutable).TypedShortcut(ctrlS)
	if rs, _ := s.CurrentReviews(t.Context(), ep); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeSuccess {
		t.Fatalf("Ctrl+S from the window: reviews %+v", rs)
	}
}

// TestQueueFiltersInTheTab: the filter widgets narrow the queue and the
// state list shows counts.
func TestQueueFiltersInTheTab(t *testing.T) {
	e := newEnv(t)
	task, _ := fixture.Task(e.s, "Find the opening hours", dataset.Information, "http://shop.test/hours", nil)
	agentEp, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "agent:bot", Actions: fixture.Clicks(2)})
	if err != nil {
		t.Fatal(err)
	}
	q := &e.tab.queue
	e.tab.Shown()
	if len(q.items) != 4 || q.stateSel.Options[0] != "Unreviewed by me (4)" {
		t.Fatalf("queue %d items, states %v", len(q.items), q.stateSel.Options)
	}
	if !slices.Contains(q.annSel.Options, "agent:bot") {
		t.Errorf("annotator choices %v lack agent:bot", q.annSel.Options)
	}
	q.annSel.SetSelected(onlyAgents)
	if len(q.items) != 1 || q.items[0].EpisodeID != agentEp {
		t.Errorf("agents only: %d items", len(q.items))
	}
	q.annSel.SetSelected(anyAnnotator)
	q.catSel.SetSelected(dataset.Interaction)
	if len(q.items) != 3 {
		t.Errorf("interaction: %d items, want 3", len(q.items))
	}
	q.catSel.SetSelected(anyCategory)
	q.search.SetText("opening")
	q.search.OnSubmitted(q.search.Text)
	if len(q.items) != 1 {
		t.Errorf("search: %d items, want 1", len(q.items))
	}
	q.search.SetText("")
	q.from.SetText("not a date")
	q.from.OnSubmitted(q.from.Text)
	if e.tab.form.status.Importance != widget.DangerImportance {
		t.Errorf("a bad date is not reported: %q", e.tab.form.status.Text)
	}
}

// TestExpectedAnswerInWords: the header lists an answer check's
// alternatives, not the check's raw "a|b" form.
func TestExpectedAnswerInWords(t *testing.T) {
	reward := 0.0
	ep := dataset.Episode{FinalAnswer: "8", AutoReward: &reward}
	task := dataset.Task{Category: dataset.Information, Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "7|7 days|seven|seven days"}}
	got := answerText(ep, task)
	want := "Final answer: “8”   ·   Automatic check (a hint, not a label): failed   ·   expected: “7”, “7 days”, “seven” or “seven days”"
	if got != want {
		t.Errorf("answerText = %q\nwant          %q", got, want)
	}
}
