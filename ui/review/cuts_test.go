package review

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui/review/internal/fixture"
)

// cutEnv is newEnv's store with an exploration of six clicks and two
// tasks cut from it: "cutA" (steps 2–3, one key point that passes and one
// that fails, not replayed yet) and "cutB" (steps 1–4, whose replay from
// its start state failed).
type cutEnv struct {
	*env
	expl, cutA, cutB string
}

func newCutEnv(t *testing.T) *cutEnv {
	t.Helper()
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	ctx := t.Context()
	task, err := e.s.ExploreTask(ctx, "http://shop.test/page/0")
	if err != nil {
		t.Fatal(err)
	}
	expl, err := fixture.Episode(e.s, task.ID, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(6), Intent: dataset.IntentExploration,
		Started: time.Now().Add(-30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.s.CutSpan(ctx, dataset.CutSpec{ExplorationID: expl, From: 2, To: 3, Instruction: "Search for query 2", Category: dataset.Navigation,
		KeyPoints: []string{"url: page/3", "url: checkout"}, Editor: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.s.CutSpan(ctx, dataset.CutSpec{ExplorationID: expl, From: 1, To: 4, Instruction: "Open the fourth page", Category: dataset.Navigation, Editor: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetHindsightCheck(ctx, b.ID, dataset.HindsightCheck{Replay: &dataset.CutReplay{At: time.Now(), Why: "the start state no longer replays: step 1 diverged", Compared: 1}}); err != nil {
		t.Fatal(err)
	}
	e.tab.queue.reload()
	return &cutEnv{env: e, expl: expl, cutA: a.ID, cutB: b.ID}
}

// item finds an episode among those the queue lists: its row and depth.
func (e *cutEnv) item(id string) (row, depth int, ok bool) {
	q := &e.tab.queue
	for i, it := range q.items {
		if it.EpisodeID == id {
			return i, q.depth[i], true
		}
	}
	return 0, 0, false
}

// rowTexts renders queue row i.
func (e *cutEnv) rowTexts(i int) (string, string) {
	q := &e.tab.queue
	o := q.createRow()
	q.updateRow(i, o)
	for _, c := range o.(*fyne.Container).Objects {
		if box, ok := c.(*fyne.Container); ok {
			return box.Objects[0].(*widget.Label).Text, box.Objects[1].(*widget.Label).Text
		}
	}
	e.t.Fatal("queue row has no texts")
	return "", ""
}

func second(_, b string) string { return b }

func (e *cutEnv) open(id string) {
	e.t.Helper()
	q, err := e.s.ReviewQueue(e.t.Context(), dataset.QueueFilter{Reviewer: "rita"})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, it := range q.Items {
		if it.EpisodeID == id {
			e.tab.openItem(it)
			return
		}
	}
	e.t.Fatalf("episode %s is not in the queue", id)
}

// Review's queue counts the tasks cut from explorations apart from the
// planned ones, each cut with what its check showed (a failed key point
// and a cut that does not replay are said, not hidden); an exploration is
// no task to label: it is left out of the unreviewed queue (listed under
// Explorations, its cuts under it), its label form has no outcome, and
// keys 1–4 and Ctrl+S label nothing.
func TestReviewQueueCountsCutsAndExplorations(t *testing.T) {
	e := newCutEnv(t)
	q := &e.tab.queue
	if _, _, ok := e.item(e.expl); ok {
		t.Fatal("the exploration is in the unreviewed queue as a task to label")
	}
	if q.counts[dataset.QueueUnreviewed] != 5 || q.counts[dataset.QueueExplorations] != 1 {
		t.Fatalf("counts %v: want 5 unreviewed (3 planned, 2 cut) and 1 exploration", q.counts)
	}
	sum := q.summary.Text
	for _, want := range []string{"Planned: 3 episodes (1 task)", "cut from explorations: 2 tasks (0 replayable, 1 NOT replayable, 1 not replayed yet; 1 with a FAILED key point)", "1 exploration, not labelled"} {
		if !strings.Contains(sum, want) {
			t.Fatalf("the queue's summary lacks %q:\n%s", want, sum)
		}
	}
	i, _, _ := e.item(e.cutA)
	goal, meta := e.rowTexts(i)
	if goal != "✂ steps 2–3 · Search for query 2" || !strings.Contains(meta, "cut · not replayed yet · 1 key point FAILED") {
		t.Fatalf("cut A's row: %q / %q", goal, meta)
	}
	if i, _, _ := e.item(e.cutB); !strings.Contains(second(e.rowTexts(i)), "cut · NOT replayable") {
		t.Fatalf("cut B's row: %q", second(e.rowTexts(i)))
	}

	// Explorations: the exploration, its two cuts nested under it.
	q.stateSel.SetSelectedIndex(len(dataset.QueueStates)) // "All"
	if _, d, ok := e.item(e.cutA); !ok || d != 1 {
		t.Fatalf("in All, cut A is listed %v at depth %d, not under its exploration", ok, d)
	}
	q.stateSel.SetSelectedIndex(len(dataset.QueueStates) - 1)
	if q.state != dataset.QueueExplorations || len(q.items) != 1 || q.items[0].EpisodeID != e.expl {
		t.Fatalf("the Explorations queue (%s) lists %d items", q.state, len(q.items))
	}
	if _, meta := e.rowTexts(0); !strings.HasPrefix(meta, "exploration (no outcome to label)") {
		t.Fatalf("the exploration's row: %q", meta)
	}

	// The exploration open: no outcome to pick or save.
	e.open(e.expl)
	f := &e.tab.form
	if f.labelFields.Visible() || !strings.Contains(f.origin.detail.Text, "2 tasks cut from it") || !strings.Contains(f.origin.detail.Text, "steps 1–4 · navigation: Open the fourth page — NOT replayable") {
		t.Fatalf("the exploration's form: outcome shown %v, origin %q", f.labelFields.Visible(), f.origin.detail.Text)
	}
	e.key(fyne.Key1)
	e.ctrlS()
	if f.outcome != "" || !strings.Contains(f.status.Text, "no outcome to label") {
		t.Fatalf("key 1 and Ctrl+S on an exploration: outcome %q, status %q", f.outcome, f.status.Text)
	}
	if revs, _ := e.s.CurrentReviews(t.Context(), e.expl); len(revs) != 0 {
		t.Fatalf("the exploration got a review: %+v", revs)
	}
	// N goes on to a task to label.
	e.key(fyne.KeyN)
	if ep := e.tab.player.ep; ep == nil || ep.Intent == dataset.IntentExploration || !f.labelFields.Visible() {
		t.Fatalf("N from the exploration opened %+v", ep)
	}
}

// A cut opened in Review says what was checked (a failed key point as
// FAILED, in red); Change the span… asks for the new span and why, makes
// the new cut (the old one discarded, both audit logs saying so, shown in
// the Edits tab) and opens it. A planned episode keeps what was actually
// done, shown in its queue row.
func TestReviewCutSpanAndActualTask(t *testing.T) {
	e := newCutEnv(t)
	e.open(e.cutA)
	o := &e.tab.form.origin
	if !o.cutBox.Visible() || o.title.Text != "A task cut from an exploration, its steps 2–3" {
		t.Fatalf("cut A's origin: buttons shown %v, title %q", o.cutBox.Visible(), o.title.Text)
	}
	for _, want := range []string{"Not replayed from its start state yet", "✓ url: page/3", "✗ FAILED url: checkout: the address does not contain \"checkout\""} {
		if !strings.Contains(o.detail.Text, want) {
			t.Fatalf("cut A's check lacks %q:\n%s", want, o.detail.Text)
		}
	}
	if o.detail.Importance != widget.DangerImportance {
		t.Fatal("a failed key point is not shown as a problem")
	}

	o.askSpan()
	sp := o.span
	if sp == nil || sp.steps[sp.from.Selected] != 2 || sp.steps[sp.to.Selected] != 3 || len(sp.to.Options) != 6 {
		t.Fatalf("the span dialog: %+v", sp)
	}
	sp.to.SetSelected(sp.to.Options[4]) // step 5
	sp.d.Submit()
	if o.span != sp {
		t.Fatal("the span changed without a reason")
	}
	sp.why.SetText("step 4 and 5 belong to the search")
	sp.d.Submit()
	ep := e.tab.player.ep
	if ep == nil || ep.ID == e.cutA || ep.SpanFrom != 2 || ep.SpanTo != 5 || ep.Goal != "Search for query 2" {
		t.Fatalf("after the change the player shows %+v", ep)
	}
	if old, _ := e.s.GetEpisode(t.Context(), e.cutA); old.Status != dataset.StatusDiscarded {
		t.Fatalf("the old cut is %s", old.Status)
	}
	if log := e.tab.player.edits.logText.Text; !strings.Contains(log, "rita changed the span of the task cut from the exploration") ||
		!strings.Contains(log, "span changed from 2–3") || !strings.Contains(log, "step 4 and 5 belong to the search") {
		t.Fatalf("the Edits tab says:\n%s", log)
	}
	if !strings.Contains(e.tab.form.status.Text, "The span is now steps 2–5") {
		t.Fatalf("the status says %q", e.tab.form.status.Text)
	}
	if _, _, ok := e.item(e.cutA); ok {
		t.Fatal("the replaced cut is still in the queue")
	}

	// Planned vs actual.
	e.open(e.eps[0])
	if !o.actualBox.Visible() || o.cutBox.Visible() {
		t.Fatal("a planned episode's form does not ask what was actually done")
	}
	o.actual.SetText("Bought the blue shoes instead")
	o.actualBtn.OnTapped()
	if got, _ := e.s.GetEpisode(t.Context(), e.eps[0]); got.ActualTask != "Bought the blue shoes instead" {
		t.Fatalf("stored actual task %q", got.ActualTask)
	}
	if i, _, ok := e.item(e.eps[0]); !ok || !strings.HasPrefix(second(e.rowTexts(i)), "actually: Bought the blue shoes instead") {
		t.Fatalf("the planned episode's row (listed %v): %q", ok, second(e.rowTexts(i)))
	}
	if !strings.Contains(e.tab.queue.summary.Text, "1 saying what was actually done") {
		t.Fatalf("the summary: %q", e.tab.queue.summary.Text)
	}
}

// The origin panel of a cut fits the side panel's width: its buttons do
// not widen the label form (which cut its wrapped texts off at the edge).
func TestCutOriginFitsSidePanel(t *testing.T) {
	e := newCutEnv(t)
	e.open(e.cutA)
	o := &e.tab.form.origin
	if w := o.cutBox.MinSize().Width; w > sidePanelWidth-20 {
		t.Fatalf("the cut's buttons ask for %v wide, the side panel is %v", w, sidePanelWidth)
	}
}
