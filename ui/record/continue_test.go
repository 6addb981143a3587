package record

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// pageEngine is a gateEngine whose page changes with each step since the
// reset: step n's screenshot is page n, its URL /page/n, unless the test
// changed that page since the episode was recorded (a site that changed).
type pageEngine struct {
	gateEngine
	pmu     sync.Mutex
	n       int
	changed map[int]bool
}

var (
	pagePNGsMu sync.Mutex
	pagePNGs   = map[int][]byte{}
)

// pagePNG draws page n (negative: a changed page) in its own colours.
func pagePNG(t *testing.T, n int) []byte {
	pagePNGsMu.Lock()
	defer pagePNGsMu.Unlock()
	if b, ok := pagePNGs[n]; ok {
		return b
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	c := color.RGBA{uint8(40 + 50*(n+3)%200), uint8(30 * (n + 5) % 250), 180, 255}
	for y := range 600 {
		for x := range 800 {
			if (x/40+y/40)%2 == 0 {
				img.Set(x, y, c)
			} else {
				img.Set(x, y, color.RGBA{250, 250, 250, 255})
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	pagePNGs[n] = b.Bytes()
	return pagePNGs[n]
}

func newPageEngine(t *testing.T) *pageEngine {
	for n := -1; n <= 6; n++ {
		pagePNG(t, n)
	}
	e := &pageEngine{gateEngine: gateEngine{gate: make(chan struct{}, 64)}, changed: map[int]bool{}}
	t.Cleanup(func() { close(e.gate) })
	return e
}

func (e *pageEngine) page(n int) action.Observation {
	e.pmu.Lock()
	ch := e.changed[n]
	e.pmu.Unlock()
	shot := pagePNGs[n%7]
	if ch {
		shot = pagePNGs[-1]
	}
	return action.Observation{Step: n, URL: "http://127.0.0.1:9/page/" + string(rune('0'+n%10)), Title: "Page", Screenshot: shot}
}

func (e *pageEngine) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	if _, err := e.gateEngine.Reset(ctx, o); err != nil {
		return action.Observation{}, err
	}
	e.pmu.Lock()
	e.n = 0
	e.pmu.Unlock()
	return e.page(0), nil
}

func (e *pageEngine) Step(ctx context.Context, a action.Action) (action.Observation, error) {
	obs, err := e.gateEngine.Step(ctx, a)
	if err != nil {
		return obs, err
	}
	e.pmu.Lock()
	e.n++
	n := e.n
	e.pmu.Unlock()
	p := e.page(n)
	p.Done, p.EndReason, p.Answer = obs.Done, obs.EndReason, obs.Answer
	return p, nil
}

func (e *pageEngine) change(n int) { e.pmu.Lock(); e.changed[n] = true; e.pmu.Unlock() }

// let lets n steps through.
func (e *pageEngine) let(n int) {
	for range n {
		e.gate <- struct{}{}
	}
}

// usePageEngine makes the fixture's episodes record pe.
func (f *recordFixture) usePageEngine(pe *pageEngine) {
	f.tab.opts.Open = func(ctx context.Context, t dataset.Task, s ui.Settings) (*Opened, error) {
		return &Opened{Engine: dataset.NewRecorder(f.store, pe, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})}, nil
	}
}

// storeEpisode records actions for annotator with its own engine and stops
// before the end: the episode is interrupted, as after a crash.
func storeEpisode(t *testing.T, f *recordFixture, annotator string, actions ...action.Action) string {
	t.Helper()
	pe := newPageEngine(t)
	pe.let(len(actions))
	rec := dataset.NewRecorder(f.store, pe, dataset.RecorderOptions{TaskID: f.task.ID, Annotator: annotator})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range actions {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return rec.EpisodeID()
}

func storedSteps(t *testing.T, s *dataset.Store, id string) []string {
	t.Helper()
	steps, err := s.Steps(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range steps {
		a := "start"
		if st.Action != nil {
			a = st.Action.String()
		}
		if st.Removed {
			a += " (removed)"
		}
		out = append(out, a)
	}
	return out
}

// typeKey sends a key to the window as a person would (the dialog's keys).
func typeKey(f *recordFixture, k fyne.KeyName) {
	if h := f.win.Canvas().OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
	}
}

// findRadio finds the first radio group under o.
func findRadio(o fyne.CanvasObject) *widget.RadioGroup {
	switch v := o.(type) {
	case *widget.RadioGroup:
		return v
	case *fyne.Container:
		for _, c := range v.Objects {
			if r := findRadio(c); r != nil {
				return r
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(v).Objects() {
			if r := findRadio(c); r != nil {
				return r
			}
		}
	}
	return nil
}

func overlayText(f *recordFixture) string {
	top := f.win.Canvas().Overlays().Top()
	if top == nil {
		return ""
	}
	return strings.Join(texts(top), "\n")
}

// The notice at start lists this annotator's interrupted episodes, newest
// first; Escape leaves them as they are, and it shows once.
func TestRecordResumeNoticeLeaveAsIs(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note about tea", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	older := storeEpisode(t, f, "Tester", action.ClickAt(1, 1))
	time.Sleep(5 * time.Millisecond)
	newer := storeEpisode(t, f, "Tester", action.ClickAt(1, 1), action.TypeText("tea"))
	storeEpisode(t, f, "Someone else", action.ClickAt(1, 1))
	before := map[string]dataset.Episode{}
	for _, id := range []string{older, newer} {
		before[id], _ = f.store.GetEpisode(t.Context(), id)
	}

	f.tab.OfferResume()
	if f.tab.resumeDialog == nil {
		t.Fatal("no notice")
	}
	all := overlayText(f)
	radio := findRadio(f.win.Canvas().Overlays().Top())
	if radio == nil || !strings.Contains(all, "These episodes of yours stopped") {
		t.Fatalf("notice:\n%s", all)
	}
	if o := radio.Options; len(o) != 2 || !strings.HasPrefix(o[0], "Save a note about tea — 2 steps, stopped today ") ||
		!strings.HasPrefix(o[1], "Save a note about tea — 1 step, stopped today ") || radio.Selected != o[0] {
		t.Fatalf("listed %q, selected %q", o, radio.Selected)
	}
	typeKey(f, fyne.KeyEscape)
	if f.tab.resumeDialog != nil || f.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape did not close the notice")
	}
	if f.tab.life.state != stIdle || f.tab.life.runner != nil {
		t.Fatal("Leave as is started something")
	}
	for id, ep := range before {
		if now, _ := f.store.GetEpisode(t.Context(), id); now.Status != dataset.StatusInterrupted || now.EndedAt == nil || !now.EndedAt.Equal(*ep.EndedAt) {
			t.Errorf("episode %s changed: %+v", id, now)
		}
	}
	f.tab.OfferResume()
	if f.tab.resumeDialog != nil {
		t.Fatal("the notice showed twice")
	}
}

// Enter resumes the newest: the stored steps replay (the live view says
// which), then recording goes on in the same episode after its last step.
func TestRecordResumeGoesOnInTheSameEpisode(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	pe := newPageEngine(t)
	f.usePageEngine(pe)
	id := storeEpisode(t, f, "Tester", action.ClickAt(10, 10), action.TypeText("tea"))
	if err := f.store.SetStepNote(context.Background(), id, 1, "the field was slow to take focus"); err != nil {
		t.Fatal(err)
	}
	f.tab.OfferResume()
	if f.tab.resumeDialog == nil || !strings.Contains(overlayText(f), "This episode of yours") {
		t.Fatalf("notice: %q", overlayText(f))
	}
	typeKey(f, fyne.KeyReturn)
	f.loop.until(t, "the replay of step 1", func() bool { return strings.Contains(f.tab.live.view.PendingText(), "Replaying step 1 of 2") })
	if f.tab.life.state != stStarting {
		t.Fatalf("state %v while replaying", f.tab.life.state)
	}
	click(f.tab.View(), fyne.NewPos(50, 50)) // refused: it would change the page being brought back
	if !strings.Contains(f.tab.status.errLbl.Text, "Replaying step 1 of 2: wait until it ends") {
		t.Fatalf("input during the replay: %q", f.tab.status.errLbl.Text)
	}
	if cue := f.tab.live.view.KeyCue(); cue == ui.KeysToPage || cue == ui.KeysElsewhere {
		t.Fatalf("the key cue says %q while input is refused", cue)
	}
	pe.let(1)
	f.loop.until(t, "the replay of step 2", func() bool { return strings.Contains(f.tab.live.view.PendingText(), "Replaying step 2 of 2") })
	pe.let(1)
	f.loop.until(t, "recording", func() bool { return f.tab.life.state == stRecording })
	if len(f.tab.steps.rows) != 3 || f.tab.life.episodeID != id || !strings.Contains(f.tab.status.errLbl.Text, "Resumed: 2 steps replayed and checked") {
		t.Fatalf("rows %d episode %s status %q", len(f.tab.steps.rows), f.tab.life.episodeID, f.tab.status.errLbl.Text)
	}
	if m := f.tab.notes.marker(noteKey{id, 1}); m == "" || f.tab.notes.marker(noteKey{id, 2}) != "" {
		t.Fatalf("the note of step 1 is not marked in the timeline (%q)", m)
	}
	click(f.tab.View(), fyne.NewPos(30, 40))
	pe.let(1)
	f.loop.until(t, "the new step", func() bool { return len(f.tab.steps.rows) == 4 })
	if f.tab.steps.rows[3].idx != 3 {
		t.Fatalf("new step's index %d", f.tab.steps.rows[3].idx)
	}
	equal(t, storedSteps(t, f.store, id), []string{"start", "click 10,10", `type "tea"`, "click 30,40"})
	ep, _ := f.store.GetEpisode(t.Context(), id)
	if ep.Status != dataset.StatusRecording || !ep.Resumed {
		t.Fatalf("episode %+v", ep)
	}
}

// A resume whose replay diverges stops, says which step, and leaves the
// episode interrupted as it was.
func TestRecordResumeDivergedLeavesTheEpisode(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	pe := newPageEngine(t)
	f.usePageEngine(pe)
	id := storeEpisode(t, f, "Tester", action.ClickAt(10, 10), action.TypeText("tea"), action.ClickAt(20, 20))
	before, _ := f.store.GetEpisode(t.Context(), id)
	pe.change(2) // the page after step 2 is not what was recorded
	f.tab.Resume(id)
	pe.let(2)
	f.loop.until(t, "the resume to fail", func() bool { return f.tab.life.state == stEnded })
	f.loop.until(t, "the message", func() bool { return strings.Contains(overlayText(f), "could not be resumed") })
	all := overlayText(f)
	if !strings.Contains(all, "step 2 did not replay as recorded") || !strings.Contains(all, "screenshot") || !strings.Contains(all, "left interrupted, as it was") {
		t.Fatalf("message:\n%s", all)
	}
	if ep, _ := f.store.GetEpisode(t.Context(), id); ep.Status != before.Status || ep.EndReason != before.EndReason || !ep.EndedAt.Equal(*before.EndedAt) || ep.Owner != before.Owner || ep.Resumed {
		t.Fatalf("the episode changed:\n%+v\n%+v", ep, before)
	}
	equal(t, storedSteps(t, f.store, id), []string{"start", "click 10,10", `type "tea"`, "click 20,20"})
	if pe.performed()[len(pe.performed())-1] != `type "tea"` {
		t.Fatalf("the replay went past the divergence: %q", pe.performed())
	}

	// Another annotator's episode is not resumed.
	other := storeEpisode(t, f, "Someone else", action.ClickAt(1, 1))
	f.tab.Resume(other)
	if f.tab.life.state != stEnded || !strings.Contains(f.tab.status.errLbl.Text, "recorded by Someone else") {
		t.Fatalf("resumed another's episode: %q", f.tab.status.errLbl.Text)
	}
}

// Undo: refused with only the start page; unsent typing is dropped first;
// the last step is marked removed, the page brought back, and recording
// goes on after it. Ctrl+Shift+Z does the same.
func TestRecordUndo(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	pe := newPageEngine(t)
	f.usePageEngine(pe)
	f.tab.startChosen()
	f.loop.until(t, "recording", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
	f.tab.live.mapper.SetPauses(time.Hour, time.Hour)
	if f.tab.tools.undoBtn.Disabled() {
		t.Fatal("Undo disabled while recording")
	}
	test.Tap(f.tab.tools.undoBtn)
	if !strings.Contains(f.tab.status.errLbl.Text, "Nothing to undo: only the start page is recorded") || f.tab.life.runner.Busy() {
		t.Fatalf("undo of the start page: %q", f.tab.status.errLbl.Text)
	}
	v := f.tab.View()
	click(v, fyne.NewPos(10, 10))
	pe.let(1)
	f.loop.until(t, "step 1", func() bool { return len(f.tab.steps.rows) == 2 })
	test.Type(v, "oops")
	f.loop.until(t, "the typing shown", func() bool { return f.tab.live.typing == "oops" })
	f.tab.TypedShortcut(ShortcutUndo)
	f.loop.until(t, "the typing dropped", func() bool { return f.tab.live.typing == "" })
	if !strings.Contains(f.tab.status.errLbl.Text, "never reached the page") || len(f.tab.steps.rows) != 2 || f.tab.life.runner.Busy() {
		t.Fatalf("undo of unsent typing: %q %q", f.tab.live.typing, f.tab.status.errLbl.Text)
	}
	click(v, fyne.NewPos(20, 20))
	pe.let(1)
	f.loop.until(t, "step 2", func() bool { return len(f.tab.steps.rows) == 3 })

	// Ctrl+Shift+Z held until it repeats, let go modifiers first: one
	// undo, and no "z" typed into the page.
	f.win.Canvas().Focus(v)
	kb := newKeyboard(f)
	kb.press(desktop.KeyControlLeft, 0)
	kb.press(desktop.KeyShiftLeft, 0)
	kb.press(fyne.KeyZ, 'z')
	kb.repeat(fyne.KeyZ, 'z')
	kb.release(desktop.KeyShiftLeft)
	kb.release(desktop.KeyControlLeft)
	kb.repeat(fyne.KeyZ, 'z')
	kb.release(fyne.KeyZ)
	pe.let(1) // the replay of step 1
	f.loop.until(t, "the undo", func() bool { return f.tab.steps.rows[2].removed && f.tab.life.replaying == "" })
	if !strings.Contains(f.tab.status.errLbl.Text, "Step 2 undone") || f.tab.steps.kept() != 1 || !strings.HasPrefix(f.tab.status.stepLbl.Text, "Step 1 /") {
		t.Fatalf("after the undo: %q, %q", f.tab.status.errLbl.Text, f.tab.status.stepLbl.Text)
	}
	if got := texts(f.tab.steps.list); !strings.Contains(strings.Join(got, "\n"), "2 · undone · click 20,20") {
		t.Fatalf("timeline %q", got)
	}
	click(v, fyne.NewPos(30, 30))
	pe.let(1)
	f.loop.until(t, "step 3", func() bool { return len(f.tab.steps.rows) == 4 })
	if f.tab.steps.rows[3].idx != 3 {
		t.Fatalf("the step after the undo is %d", f.tab.steps.rows[3].idx)
	}
	equal(t, storedSteps(t, f.store, f.tab.life.episodeID), []string{"start", "click 10,10", "click 20,20 (removed)", "click 30,30"})
	equal(t, pe.performed(), []string{"click 10,10", "click 20,20", "click 10,10", "click 30,30"})

	// The page cannot be brought back: the episode stops, interrupted.
	pe.change(1)
	f.tab.life.undo()
	pe.let(1) // step 1 replays, and differs
	f.loop.until(t, "the episode to stop", func() bool { return f.tab.life.state == stEnded })
	ep, _ := f.store.GetEpisode(t.Context(), f.tab.life.episodeID)
	if ep.Status != dataset.StatusInterrupted || !strings.Contains(f.tab.status.errLbl.Text, "step 3 was undone") || !strings.Contains(f.tab.status.errLbl.Text, "step 1 did not replay as recorded") {
		t.Fatalf("status %s, message %q", ep.Status, f.tab.status.errLbl.Text)
	}
}

// "Continue from step K" on a step of the last episode starts a branch:
// steps 1..K replay and are recorded into a new episode naming its parent;
// on a step that diverges the branch is discarded. The Review player's
// request (ui.Context.Branch) does the same.
func TestRecordBranch(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	pe := newPageEngine(t)
	f.usePageEngine(pe)
	f.tab.startChosen()
	f.loop.until(t, "recording", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
	v := f.tab.View()
	for i, p := range []fyne.Position{fyne.NewPos(10, 10), fyne.NewPos(20, 20)} {
		click(v, p)
		pe.let(1)
		f.loop.until(t, "a step", func() bool { return len(f.tab.steps.rows) == i+2 })
	}
	parent := f.tab.life.episodeID
	f.tab.steps.list.Select(1)
	if !f.tab.steps.branchBtn.Disabled() {
		t.Fatal("Continue from a step is offered while recording")
	}
	f.tab.Branch(parent, 1)
	if !strings.Contains(f.tab.status.errLbl.Text, "An episode is being recorded") || f.tab.life.episodeID != parent {
		t.Fatalf("branch while recording: %q", f.tab.status.errLbl.Text)
	}
	typeKey(f, fyne.KeyEscape)
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	pe.let(1)
	f.loop.until(t, "the end", func() bool { return f.tab.life.state == stEnded && f.tab.endDialog != nil })
	f.tab.endDialog.Hide()
	f.tab.steps.list.Select(3)
	if !f.tab.steps.branchBtn.Disabled() {
		t.Fatal("Continue from the finish step is offered")
	}
	f.tab.steps.list.Select(2)
	if f.tab.steps.branchBtn.Disabled() || f.tab.steps.branchBtn.Text != "Continue from step 2…" {
		t.Fatalf("branch button %q disabled %v", f.tab.steps.branchBtn.Text, f.tab.steps.branchBtn.Disabled())
	}
	test.Tap(f.tab.steps.branchBtn)
	if !strings.Contains(overlayText(f), "steps 1–2 of this one are replayed") {
		t.Fatalf("confirmation %q", overlayText(f))
	}
	typeKey(f, fyne.KeyReturn)
	f.loop.until(t, "the replay", func() bool { return strings.Contains(f.tab.live.view.PendingText(), "Replaying step 1 of 2") })
	pe.let(2)
	f.loop.until(t, "recording the branch", func() bool { return f.tab.life.state == stRecording })
	branch := f.tab.life.episodeID
	if branch == parent || len(f.tab.steps.rows) != 3 || !strings.Contains(f.tab.status.errLbl.Text, "Continuing from step 2: 2 steps replayed, checked and recorded") {
		t.Fatalf("branch %s rows %d status %q", branch, len(f.tab.steps.rows), f.tab.status.errLbl.Text)
	}
	click(v, fyne.NewPos(40, 40))
	pe.let(1)
	f.loop.until(t, "by hand", func() bool { return len(f.tab.steps.rows) == 4 })
	ep, _ := f.store.GetEpisode(t.Context(), branch)
	if ep.ParentEpisodeID != parent || ep.BranchStep == nil || *ep.BranchStep != 2 || ep.Annotator != "Tester" || ep.TaskID != f.task.ID {
		t.Fatalf("branch episode %+v", ep)
	}
	equal(t, storedSteps(t, f.store, branch), []string{"start", "click 10,10", "click 20,20", "click 40,40"})
	f.tab.life.discard()
	f.loop.until(t, "the discard", func() bool { return f.tab.life.state == stEnded })

	// From the Review player, on a page that changed since: discarded.
	f.tab.ctx.Branch = f.tab.Branch
	pe.change(2)
	if !f.tab.ctx.ContinueFrom(parent, 2) {
		t.Fatal("ContinueFrom was not taken")
	}
	pe.let(2)
	f.loop.until(t, "the branch to fail", func() bool {
		return f.tab.life.state == stEnded && strings.Contains(overlayText(f), "Could not continue from step 2")
	})
	if all := overlayText(f); !strings.Contains(all, "step 2 did not replay as recorded") || !strings.Contains(all, "the new episode was discarded") {
		t.Fatalf("message:\n%s", all)
	}
	eps, _ := f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{ParentID: parent})
	if len(eps) != 2 || eps[0].Status != dataset.StatusDiscarded {
		t.Fatalf("branches %+v", eps)
	}
}
