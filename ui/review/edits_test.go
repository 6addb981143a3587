package review

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/storetest"
	"waymark/ui"
	"waymark/ui/review/internal/fixture"
)

// edits reads an episode's audit log.
func (e *env) edits(id string) []dataset.Edit {
	e.t.Helper()
	var out []dataset.Edit
	for ed, err := range e.s.EpisodeEdits(context.Background(), id) {
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ed)
	}
	return out
}

// removed lists the removed step indices of an episode, as stored.
func (e *env) removed(id string) []int {
	e.t.Helper()
	steps, err := e.s.Steps(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []int
	for _, st := range steps {
		if st.Removed {
			out = append(out, st.Index)
		}
	}
	return out
}

// reasonEntry is the focused entry of the open reason dialog.
func (e *env) reasonField() *ui.DialogEntry {
	e.t.Helper()
	f, ok := e.w.Canvas().Focused().(*ui.DialogEntry)
	if !ok {
		e.t.Fatalf("no reason field has the focus (dialog: %q)", dialogText(e.w))
	}
	return f
}

// row renders step k's row of the step list.
func (e *env) stepRow(k int) (title, sub *widget.Label) {
	p := &e.tab.player
	o := p.createStepRow()
	p.updateStepRow(k, o)
	for _, c := range o.(*fyne.Container).Objects {
		if box, ok := c.(*fyne.Container); ok {
			return box.Objects[0].(*widget.Label), box.Objects[1].(*widget.Label)
		}
	}
	e.t.Fatal("step row has no texts")
	return nil, nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRemoveRestoreTrim: the reviewer removes, restores and trims steps of
// an ended episode, each after saying why (Enter confirms, Escape
// cancels); the steps stay stored and listed, greyed with who and why; the
// Edits tab lists the audit log.
func TestRemoveRestoreTrim(t *testing.T) {
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	p := &e.tab.player
	e.key(fyne.KeyN)
	id := p.ep.ID
	e.key(fyne.KeyRight) // step 2

	// Delete asks why; Enter with no reason does nothing.
	e.key(fyne.KeyDelete)
	if txt := dialogText(e.w); !strings.Contains(txt, "Step 2 (type") || !strings.Contains(txt, "restore") {
		t.Fatalf("the remove dialog does not say what happens: %q", txt)
	}
	why := e.reasonField()
	why.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if e.w.Canvas().Overlays().Top() == nil || len(e.removed(id)) != 0 {
		t.Fatal("Enter without a reason removed the step or closed the dialog")
	}
	test.Type(why, "typed into the wrong box")
	why.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if e.w.Canvas().Overlays().Top() != nil {
		t.Fatal("Enter did not confirm")
	}
	if got := e.removed(id); !sameInts(got, []int{2}) {
		t.Fatalf("removed steps = %v, want [2]", got)
	}
	log := e.edits(id)
	if len(log) != 1 || log[0].Kind != dataset.EditRemove || log[0].Step != 2 || log[0].Editor != "rita" || log[0].Reason != "typed into the wrong box" {
		t.Fatalf("audit log = %+v", log)
	}
	// Still listed, greyed, with who and why; the header says it too.
	if len(p.steps) != 5 || p.cur != 2 {
		t.Fatalf("after removing: %d steps listed, step %d shown", len(p.steps), p.cur)
	}
	title, sub := e.stepRow(2)
	if title.Importance != widget.LowImportance || !strings.Contains(sub.Text, "removed by rita: typed into the wrong box") {
		t.Errorf("removed row: importance %v, %q", title.Importance, sub.Text)
	}
	if title, _ := e.stepRow(3); title.Importance == widget.LowImportance {
		t.Error("a kept step is greyed")
	}
	if !strings.Contains(p.mode.Text, "REMOVED") || !strings.Contains(p.info.Text, "REMOVED by rita") || !strings.Contains(p.info.Text, "typed into the wrong box") {
		t.Errorf("header does not say who removed the step and why: %q / %q", p.mode.Text, p.info.Text)
	}
	if !strings.Contains(p.meta.Text, "4 actions (1 removed: the edited episode keeps 3)") {
		t.Errorf("meta = %q", p.meta.Text)
	}
	if e.tab.editTab.Text != "Edits (1)" || !strings.Contains(p.edits.logText.Text, "rita removed step 2\nWhy: typed into the wrong box") {
		t.Errorf("Edits tab %q: %q", e.tab.editTab.Text, p.edits.logText.Text)
	}
	if it, _ := e.findItem(id); it.NumSteps != 3 {
		t.Errorf("queue counts %d steps, want the 3 kept", it.NumSteps)
	}

	// On a removed step the button restores; Escape cancels.
	if p.edits.removeBtn.Text != "Restore step" || !p.edits.trimBtn.Disabled() || !p.edits.contBtn.Disabled() {
		t.Errorf("buttons on a removed step: %q trim disabled %v continue disabled %v",
			p.edits.removeBtn.Text, p.edits.trimBtn.Disabled(), p.edits.contBtn.Disabled())
	}
	test.Tap(p.edits.removeBtn)
	e.reasonField().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if e.w.Canvas().Overlays().Top() != nil || len(e.removed(id)) != 1 {
		t.Fatal("Escape did not cancel the restore")
	}
	test.Tap(p.edits.removeBtn)
	test.Type(e.reasonField(), "it was needed after all")
	restore := topButton(e.w, "Restore step")
	if restore == nil {
		t.Fatal("no Restore step button in the dialog")
	}
	test.Tap(restore)
	if got := e.removed(id); len(got) != 0 {
		t.Fatalf("after restoring: removed %v", got)
	}
	if p.edits.removeBtn.Text != "Remove step" || strings.Contains(p.mode.Text, "REMOVED") {
		t.Errorf("after restoring: button %q, mode %q", p.edits.removeBtn.Text, p.mode.Text)
	}

	// Trim after step 1: steps 2–4 are left out, step 1 stays.
	e.key(fyne.KeyLeft)
	test.Tap(p.edits.trimBtn)
	if txt := dialogText(e.w); !strings.Contains(txt, "The 3 steps after step 1 are left out") {
		t.Fatalf("trim dialog: %q", txt)
	}
	test.Type(e.reasonField(), "the task was done at step 1")
	test.Tap(topButton(e.w, "Trim"))
	if got := e.removed(id); !sameInts(got, []int{2, 3, 4}) {
		t.Fatalf("after trimming: removed %v", got)
	}
	if !p.edits.trimBtn.Disabled() {
		t.Error("trim still offered with nothing after the step")
	}
	e.key(fyne.KeyEnd)
	if !strings.Contains(p.info.Text, "REMOVED by rita") || !strings.Contains(p.info.Text, "(trimmed after step 1): the task was done at step 1") {
		t.Errorf("a trimmed step's header: %q", p.info.Text)
	}
	lines := strings.Split(p.edits.logText.Text, "\n\n")
	if e.tab.editTab.Text != "Edits (3)" || len(lines) != 3 || !strings.Contains(lines[0], "rita trimmed the steps after step 1") ||
		!strings.Contains(lines[1], "restored step 2") || !strings.Contains(lines[2], "removed step 2") {
		t.Errorf("audit log, newest first: %q", p.edits.logText.Text)
	}
	// Step 0 is the start page: not removable.
	e.key(fyne.KeyHome)
	if !p.edits.removeBtn.Disabled() || !p.edits.trimBtn.Disabled() {
		t.Error("step 0 offers remove or trim")
	}
}

// TestEditErrorsInWords: an edit the store refuses (the episode is being
// recorded again, or no reviewer name is set) says what to do and changes
// nothing.
func TestEditErrorsInWords(t *testing.T) {
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	p := &e.tab.player
	e.key(fyne.KeyN)
	id := p.ep.ID
	// Recording went on (a resume) while the reviewer had it open.
	if _, err := storetest.DB(t, e.s).Exec(`UPDATE episodes SET status='recording' WHERE id=?`, id); err != nil {
		t.Fatal(err)
	}
	test.Tap(p.edits.removeBtn)
	test.Type(e.reasonField(), "accidental click")
	test.Tap(topButton(e.w, "Remove step"))
	txt := dialogText(e.w)
	if !strings.Contains(txt, "Step 1 was not removed") || !strings.Contains(txt, "still being recorded") || !strings.Contains(txt, "once it has ended") {
		t.Errorf("error dialog: %q", txt)
	}
	if len(e.removed(id)) != 0 || len(e.edits(id)) != 0 {
		t.Error("a refused edit changed the episode")
	}
	if e.tab.form.status.Importance != widget.DangerImportance {
		t.Errorf("status not shown as a problem: %q", e.tab.form.status.Text)
	}
	e.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape}) // closes the message

	e.tab.ctx.User = func() string { return "" }
	test.Tap(p.edits.removeBtn)
	if txt := dialogText(e.w); !strings.Contains(txt, "Settings") {
		t.Errorf("no reviewer name: %q", txt)
	}
}

// TestStepNoteInHeader: the annotator's note on a step shows in the
// player's header and the step list.
func TestStepNoteInHeader(t *testing.T) {
	e := newEnv(t)
	p := &e.tab.player
	e.key(fyne.KeyN)
	if err := e.s.SetStepNote(context.Background(), p.ep.ID, 2, "the search box needed two clicks"); err != nil {
		t.Fatal(err)
	}
	it, _ := e.findItem(p.ep.ID)
	e.tab.openItem(it)
	if strings.Contains(p.info.Text, "Note:") {
		t.Errorf("step 1 has no note but shows one: %q", p.info.Text)
	}
	e.key(fyne.KeyRight)
	if !strings.HasPrefix(p.info.Text, "Note: the search box needed two clicks\n") {
		t.Errorf("step 2 header: %q", p.info.Text)
	}
	if _, sub := e.stepRow(2); !strings.Contains(sub.Text, "✎ the search box needed two clicks") {
		t.Errorf("step 2 row: %q", sub.Text)
	}
}

// TestContinueFromStep: the player asks the Record screen to continue the
// episode from the step shown; without a Record screen it says so.
func TestContinueFromStep(t *testing.T) {
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	p := &e.tab.player
	var gotID string
	gotK := -1
	e.tab.ctx.Branch = func(id string, k int) { gotID, gotK = id, k }
	e.key(fyne.KeyN)
	e.key(fyne.KeyRight)
	e.key(fyne.KeyRight)
	if p.edits.contBtn.Text != "Continue from step 3" {
		t.Errorf("button says %q at step 3", p.edits.contBtn.Text)
	}
	test.Tap(p.edits.contBtn)
	if gotID != p.ep.ID || gotK != 3 {
		t.Fatalf("Branch got (%q, %d), want (%q, 3)", gotID, gotK, p.ep.ID)
	}
	e.tab.ctx.Branch = nil
	test.Tap(p.edits.contBtn)
	if txt := dialogText(e.w); !strings.Contains(txt, "Recording is not available in this window") {
		t.Errorf("without a Record screen: %q", txt)
	}
}

// TestBranchesInQueueAndPlayer: a branch is listed under its parent,
// indented with the step it continues from; the player names its parent
// and opens it.
func TestBranchesInQueueAndPlayer(t *testing.T) {
	e := newEnv(t)
	parent := e.eps[0] // the oldest: last in the queue
	ep, err := e.s.GetEpisode(t.Context(), parent)
	if err != nil {
		t.Fatal(err)
	}
	branch, err := fixture.Episode(e.s, ep.TaskID, fixture.Options{Annotator: "bo", Actions: fixture.Clicks(3), Parent: parent, BranchStep: 2})
	if err != nil {
		t.Fatal(err)
	}
	e.tab.Shown()
	q := &e.tab.queue
	if len(q.items) != 4 {
		t.Fatalf("%d items in the queue", len(q.items))
	}
	at := -1
	for i, it := range q.items {
		if it.EpisodeID == branch {
			at = i
		}
	}
	if at < 1 || q.items[at-1].EpisodeID != parent || q.depth[at] != 1 || q.depth[at-1] != 0 {
		t.Fatalf("branch at row %d (depth %v) is not right under its parent", at, q.depth)
	}
	row := q.createRow()
	q.updateRow(at, row)
	texts := row.(*fyne.Container).Objects[0].(*fyne.Container)
	if got := texts.Objects[0].(*widget.Label).Text; !strings.HasPrefix(got, "↳ from step 2 · ") {
		t.Errorf("branch row reads %q", got)
	}
	if row.(*fyne.Container).Objects[1].MinSize().Width < branchIndent {
		t.Error("branch row is not indented")
	}

	// Open the branch: the player says whose branch it is and opens the parent.
	q.list.Select(at)
	p := &e.tab.player
	if p.ep.ID != branch || !p.branch.box.Visible() || !strings.Contains(p.branch.label.Text, "Branch of ann's episode of") ||
		!strings.Contains(p.branch.label.Text, "from its step 2") {
		t.Fatalf("branch header: visible %v %q", p.branch.box.Visible(), p.branch.label.Text)
	}
	test.Tap(p.branch.parentBtn)
	if p.ep.ID != parent {
		t.Fatalf("Open the parent opened %s", p.ep.ID)
	}
	// The parent says where it was continued, with no parent to open.
	if !p.branch.box.Visible() || p.branch.parentBtn.Visible() || !strings.HasPrefix(p.branch.label.Text, "Continued in 1 branch (from step 2)") {
		t.Errorf("parent header: visible %v, parent button %v, %q", p.branch.box.Visible(), p.branch.parentBtn.Visible(), p.branch.label.Text)
	}
	// An episode with no branch and no parent has no such line.
	e.openEpisode(e.eps[1])
	if p.branch.box.Visible() {
		t.Errorf("an episode without branches shows %q", p.branch.label.Text)
	}
}

// TestNestBranches: branches follow their parents at any depth; a branch
// whose parent is filtered out stays at the top level; nothing is lost.
func TestNestBranches(t *testing.T) {
	k := 1
	it := func(id, parent string) dataset.QueueItem {
		return dataset.QueueItem{EpisodeID: id, ParentEpisodeID: parent, BranchStep: map[bool]*int{true: &k}[parent != ""]}
	}
	items := []dataset.QueueItem{it("c", "b"), it("a", ""), it("x", "gone"), it("b", "a"), it("d", "a")}
	got, depth := nestBranches(items)
	var ids []string
	for _, g := range got {
		ids = append(ids, g.EpisodeID)
	}
	if strings.Join(ids, ",") != "a,b,c,d,x" || !sameInts(depth, []int{0, 1, 2, 1, 0}) {
		t.Errorf("nested: %v depth %v", ids, depth)
	}
	// A cycle (never stored by the app) loses nothing.
	got, _ = nestBranches([]dataset.QueueItem{it("p", "q"), it("q", "p")})
	if len(got) != 2 {
		t.Errorf("cycle: %d items", len(got))
	}
}

// TestEditNamesTheReviewItTouches: removing or trimming a step that a
// review names as the first failing step, or flags, says which review
// before it is done, and what the export then leaves out.
func TestEditNamesTheReviewItTouches(t *testing.T) {
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	p := &e.tab.player
	e.key(fyne.KeyN)
	id := p.ep.ID
	two := 2
	if _, err := e.s.SaveReview(t.Context(), dataset.Review{EpisodeID: id, Reviewer: "sam", Outcome: dataset.OutcomeFailure, FailureStep: &two,
		FailureType: "wrong_element", StepFlags: map[int][]string{2: {dataset.FlagMistake}, 3: {dataset.FlagUnnecessary}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.SaveReview(t.Context(), dataset.Review{EpisodeID: id, Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &two,
		FailureType: "gave_up"}); err != nil {
		t.Fatal(err)
	}
	e.key(fyne.KeyRight) // step 2
	e.key(fyne.KeyDelete)
	txt := dialogText(e.w)
	for _, want := range []string{"Your review names step 2 as the first failing step (gave up)", "sam's review", "step 2 as the first failing step (wrong element)", "flags step 2 as a mistake", "failure step and type empty"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the remove dialog lacks %q: %q", want, txt)
		}
	}
	e.reasonField().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})

	// Trim after step 1 touches both of sam's labels.
	e.key(fyne.KeyLeft)
	test.Tap(p.edits.trimBtn)
	txt = dialogText(e.w)
	for _, want := range []string{"sam's review", "step 2 as the first failing step", "flags step 3 as unnecessary"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the trim dialog lacks %q: %q", want, txt)
		}
	}
	e.reasonField().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})

	// A step no review names: no such words.
	e.key(fyne.KeyEnd)
	e.key(fyne.KeyDelete)
	if txt := dialogText(e.w); strings.Contains(txt, "review") {
		t.Errorf("the dialog for an unlabelled step mentions a review: %q", txt)
	}
	e.reasonField().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(e.removed(id)) != 0 {
		t.Fatal("a cancelled dialog removed steps")
	}
}
