package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// mainLoop stands in for Fyne's main goroutine: hand-offs queue here and
// the test runs them, so widgets are only touched by the test goroutine.
type mainLoop struct{ ch chan func() }

func newMainLoop() (*mainLoop, *Bridge) {
	m := &mainLoop{ch: make(chan func(), 1024)}
	return m, &Bridge{post: func(f func()) { m.ch <- f }}
}

// until runs hand-offs until cond holds.
func (m *mainLoop) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case f := <-m.ch:
			f()
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// shotEngine is a gateEngine whose observations carry a PNG screenshot.
type shotEngine struct {
	gateEngine
	png []byte
}

func (e *shotEngine) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	obs, err := e.gateEngine.Reset(ctx, o)
	obs.Screenshot = e.png
	return obs, err
}

func (e *shotEngine) Step(ctx context.Context, a action.Action) (action.Observation, error) {
	obs, err := e.gateEngine.Step(ctx, a)
	obs.Screenshot = e.png
	return obs, err
}

func testPNG(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := range 600 {
		for x := range 800 {
			img.Set(x, y, color.RGBA{200, uint8(x / 4), uint8(y / 3), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type recordFixture struct {
	tab   *RecordTab
	loop  *mainLoop
	store *dataset.Store
	eng   *shotEngine
	task  dataset.Task
	win   fyne.Window
	notes []string // notifications sent
}

func newRecordFixture(t *testing.T, category string, sets ...action.Set) *recordFixture {
	t.Helper()
	return newRecordFixtureWith(t, dataset.Task{Goal: "Find the answer", Category: category, StartURL: "http://127.0.0.1:9/", Source: "test"}, sets...)
}

// newRecordFixtureWith starts recording task (added to a new store).
func newRecordFixtureWith(t *testing.T, task dataset.Task, sets ...action.Set) *recordFixture {
	t.Helper()
	f := openRecordFixture(t, []dataset.Task{task}, sets...)
	f.tab.StartTask(f.task)
	f.loop.until(t, "the episode to start", func() bool { return f.tab.state == stRecording && len(f.tab.rows) == 1 })
	return f
}

// openRecordFixture shows the Record tab over a new store holding tasks
// (f.task is the first), in a 1200×800 window, with no episode yet.
func openRecordFixture(t *testing.T, tasks []dataset.Task, sets ...action.Set) *recordFixture {
	t.Helper()
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme()) // the test theme lacks bold monospace
	store, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var task dataset.Task
	for i, tk := range tasks {
		tk, err := store.AddTask(tk)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			task = tk
		}
	}
	f := &recordFixture{store: store, task: task, eng: &shotEngine{gateEngine: gateEngine{gate: make(chan struct{})}, png: testPNG(t)}}
	loop, b := newMainLoop()
	f.loop = loop
	f.win = test.NewTempWindow(t, nil)
	ctx := &Context{App: fyne.CurrentApp(), Window: f.win, Store: store,
		Notify: func(title, body string) { f.notes = append(f.notes, title+": "+body) }}
	settings := DefaultSettings()
	settings.Annotator = "Tester"
	if len(sets) > 0 {
		settings.ActionSet = sets[0]
	}
	f.tab = NewRecordTab(ctx, b, RecordOptions{
		Settings: func() Settings { return settings },
		Open: func(ctx context.Context, t dataset.Task, s Settings) (*Opened, error) {
			rec := dataset.NewRecorder(store, f.eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})
			return &Opened{Engine: rec}, nil
		},
	})
	f.win.SetContent(f.tab.Content())
	f.win.Resize(fyne.NewSize(1200, 800))
	t.Cleanup(func() {
		close(f.eng.gate)
		if f.tab.runner != nil {
			f.tab.runner.Stop(action.EndInterrupted, false)
			f.tab.runner.Wait(2 * time.Second)
		}
	})
	return f
}

func (f *recordFixture) storedActions(t *testing.T) []string {
	t.Helper()
	eps, err := f.store.ListEpisodes(dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v %v", eps, err)
	}
	steps, err := f.store.Steps(eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range steps[1:] {
		out = append(out, s.Action.String())
	}
	return out
}

func TestRecordTabQueuesInputWhileAStepRuns(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	f.tab.mapper.SetPauses(time.Hour, time.Hour) // only flushes by other input
	if f.tab.finishBtn.Disabled() || !f.tab.startBtn.Disabled() {
		t.Fatal("while recording, Finish must be enabled and Start disabled")
	}
	click(v, fyne.NewPos(120, 80))
	f.loop.until(t, "the click to run", func() bool { return strings.Contains(v.PendingText(), "▶ click 120,80") })
	// The click's step is blocked: these inputs wait, in order.
	test.Type(v, "abc")
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -50}})
	f.tab.mapper.Flush()
	f.loop.until(t, "the queue to show", func() bool {
		return strings.Contains(v.PendingText(), `queued 3: type "abc", key ENTER, scroll 200`)
	})
	for range 4 {
		f.eng.gate <- struct{}{}
	}
	f.loop.until(t, "four steps in the timeline", func() bool { return len(f.tab.rows) == 5 })
	var got []string
	for _, r := range f.tab.rows[1:] {
		got = append(got, r.text)
	}
	want := []string{"click 120,80", `type "abc"`, "key ENTER", "scroll 200"}
	equal(t, got, want)
	equal(t, f.storedActions(t), want)
	if !strings.HasPrefix(f.tab.stepLbl.Text, "Step 4 / 20") {
		t.Fatalf("status says %q", f.tab.stepLbl.Text)
	}
	// Selecting a step shows it without disturbing the recording.
	f.tab.timeline.Select(1)
	f.loop.until(t, "the still picture", func() bool { return v.ShowingStill() })
	if !strings.Contains(v.BannerText(), "click 120,80") {
		t.Fatalf("banner %q", v.BannerText())
	}
	if v.still.Image() == nil {
		t.Fatal("the step's screenshot (from the store) is not shown")
	}
	f.loop.until(t, "an engine without live frames to show each step's screenshot", func() bool { return v.Frame() != nil })
	click(v, fyne.NewPos(10, 10)) // returns to live, not sent
	if v.ShowingStill() || f.tab.runner.Busy() {
		t.Fatal("a click on the still picture must only return to the live page")
	}
}

func TestRecordTabFinishNeedsAnswerForInformation(t *testing.T) {
	f := newRecordFixture(t, dataset.Information)
	if err := f.tab.Finish("  "); err == nil {
		t.Fatal("an information task finished without an answer")
	}
	if f.tab.runner.Busy() {
		t.Fatal("a refused finish was sent")
	}
	if err := f.tab.Finish("42"); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the episode to end", func() bool { return f.tab.state == stEnded })
	equal(t, f.storedActions(t), []string{`finish "42"`})
	eps, _ := f.store.ListEpisodes(dataset.EpisodeFilter{})
	if eps[0].Status != dataset.StatusFinished || eps[0].FinalAnswer != "42" || eps[0].Annotator != "Tester" {
		t.Fatalf("episode %+v", eps[0])
	}
	if len(f.notes) != 1 || !strings.Contains(f.notes[0], "You finished the task.") {
		t.Fatalf("notifications %q", f.notes)
	}
	if !f.tab.finishBtn.Disabled() || f.tab.restartBtn.Disabled() {
		t.Fatal("after the end: Finish disabled, Restart enabled")
	}
	// Other categories may finish without one.
	if err := FinishAnswerError(dataset.Navigation, ""); err != nil {
		t.Fatal(err)
	}
}

func TestRecordTabCloseSavesPendingInput(t *testing.T) {
	f := newRecordFixture(t, dataset.Interaction)
	v := f.tab.View()
	test.Type(v, "unsent") // still buffered when the window closes
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); f.eng.gate <- struct{}{} }()
	f.tab.Close()
	wg.Wait()
	equal(t, f.storedActions(t), []string{`type "unsent"`})
	eps, _ := f.store.ListEpisodes(dataset.EpisodeFilter{})
	if eps[0].Status != dataset.StatusInterrupted {
		t.Fatalf("status %q after closing, want interrupted", eps[0].Status)
	}
	if !f.eng.closed {
		t.Fatal("engine not closed")
	}
}

func TestObservationErrorsInWords(t *testing.T) {
	for _, code := range []string{action.ErrPageLoadTimeout, action.ErrRendererTimeout, action.ErrRendererCrashed, action.ErrBotVerification, "net::ERR_NAME_NOT_RESOLVED"} {
		msg := ObservationError(code)
		if msg == "" || msg == code || !strings.HasSuffix(msg, ".") {
			t.Errorf("%q → %q", code, msg)
		}
	}
	if StepError(&action.ValidationError{Errors: []action.FieldError{{Msg: "Value error, unsupported key"}}}) == "" {
		t.Error("validation error not explained")
	}
}

func TestRecordTabGotoOnlyInTheExtendedSet(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	if f.tab.gotoBtn.Visible() {
		t.Fatal("Go to… shown in the default set")
	}
	g := newRecordFixture(t, dataset.Navigation, action.SetExtended)
	if !g.tab.gotoBtn.Visible() || g.tab.gotoBtn.Disabled() {
		t.Fatal("Go to… must be usable in the extended set")
	}
	g.tab.act(action.Action{Op: action.Goto, URL: "http://127.0.0.1:9/next"})
	g.eng.gate <- struct{}{}
	g.loop.until(t, "the goto step", func() bool { return len(g.tab.rows) == 2 })
	equal(t, g.storedActions(t), []string{"goto http://127.0.0.1:9/next"})
}

func TestRecordTabShortcuts(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	v.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}) // browsers' Back
	v.TypedShortcut(ShortcutWait)
	v.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierControl})
	f.loop.until(t, "the refusal", func() bool { return strings.Contains(f.tab.errLbl.Text, "Ctrl+Q not sent") })
	f.eng.gate <- struct{}{}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "two steps", func() bool { return len(f.tab.rows) == 3 })
	equal(t, f.storedActions(t), []string{"back", "wait"})
}

func TestRecordTabStartAndNextShortcuts(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	other, err := f.store.AddTask(dataset.Task{Goal: "Another task", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f.tab.TypedShortcut(ShortcutStart) // recording: ignored
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return f.tab.state == stEnded })
	f.loop.until(t, "the engine to close", func() bool { return f.tab.runner.Busy() == false && f.eng.closed })
	f.tab.TypedShortcut(ShortcutNext)
	f.loop.until(t, "the next task to record", func() bool { return f.tab.state == stRecording && f.tab.task.ID == other.ID })
}

// texts lists the text of every label and canvas text under o.
func texts(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			out = append(out, v.Text)
			return
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
			return
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

func TestExpectedAnswersInWords(t *testing.T) {
	for in, want := range map[string]string{
		"7|7 days|seven|seven days": "“7”, “7 days”, “seven” or “seven days”",
		"12,400":                    "“12,400”",
		"Tobias Quell| Quell ":      "“Tobias Quell” or “Quell”",
		"|":                         "",
		"":                          "",
	} {
		if got := ExpectedAnswers(in); got != want {
			t.Errorf("ExpectedAnswers(%q) = %q, want %q", in, got, want)
		}
	}
}

// A wrong answer's end dialog lists the accepted answers in words; a right
// one does not.
func TestRecordTabEndDialogListsAcceptedAnswersAfterAFailedCheck(t *testing.T) {
	check := &action.Check{Kind: action.CheckKindAnswer, Answer: "7|7 days|seven"}
	for _, c := range []struct {
		answer string
		passed bool
	}{{"8", false}, {"seven", true}} {
		f := newRecordFixtureWith(t, dataset.Task{Goal: "How many days?", Category: dataset.Information, StartURL: "http://127.0.0.1:9/", Source: "test", Check: check})
		if err := f.tab.Finish(c.answer); err != nil {
			t.Fatal(err)
		}
		f.eng.gate <- struct{}{}
		f.loop.until(t, "the end dialog", func() bool { return f.tab.endDialog != nil })
		top := f.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("no end dialog shown")
		}
		all := strings.Join(texts(top), "\n")
		const accepted = "Accepted answers: “7”, “7 days” or “seven”"
		if c.passed == strings.Contains(all, accepted) || strings.Contains(all, "7|7 days") {
			t.Errorf("answer %q (passed %v): dialog says\n%s", c.answer, c.passed, all)
		}
		if !strings.Contains(all, "Your answer: “"+c.answer+"”") {
			t.Errorf("the dialog does not repeat the answer:\n%s", all)
		}
	}
}

// The queue has the room between episodes (at least minQueueRows rows in a
// 1200×800 window less the main window's tab bar) and folds to the chosen
// task while one records, when the timeline gets it; a divider the person
// moved stays where they put it.
func TestRecordTabQueueFoldsWhileRecording(t *testing.T) {
	var tasks []dataset.Task
	for i := range 20 {
		tasks = append(tasks, dataset.Task{Goal: fmt.Sprintf("Task number %d", i+1), Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"})
	}
	f := openRecordFixture(t, tasks)
	f.win.Resize(fyne.NewSize(1200, 800-40))
	r := f.tab
	if n := r.QueueRowsShown(); n < minQueueRows || r.QueueFolded() {
		t.Fatalf("before any episode the queue shows %d rows (folded %v), want at least %d", n, r.QueueFolded(), minQueueRows)
	}
	r.StartTask(f.task)
	f.loop.until(t, "the episode to start", func() bool { return r.state == stRecording && len(r.rows) == 1 })
	col := r.split.Size().Height
	if !r.QueueFolded() || r.queue.Visible() || r.catSel.Visible() || r.taskBtns.Visible() {
		t.Fatal("while recording the queue must fold to the chosen task")
	}
	if h := r.timeline.Size().Height; h < col/2 {
		t.Fatalf("while recording the timeline is %.0f high in a %.0f column, want at least half", h, col)
	}
	if !strings.Contains(r.goal.Text, "Task number 1") || r.panelHead.Text != "Recording" {
		t.Fatalf("the folded panel shows %q under %q", r.goal.Text, r.panelHead.Text)
	}
	if err := r.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return r.state == stEnded })
	if r.QueueFolded() || !r.queue.Visible() {
		t.Fatal("after the episode the queue must unfold")
	}
	if n := r.QueueRowsShown(); n < minQueueRows {
		t.Fatalf("after an episode the queue shows %d rows, want at least %d", n, minQueueRows)
	}
	if h := r.timeline.Size().Height; h <= 0 {
		t.Fatal("after an episode its steps get the room the queue leaves")
	}
	// The person moves the divider between episodes; it stays through the
	// next episode.
	r.split.SetOffset(0.3)
	r.StartTask(f.task)
	f.loop.until(t, "the second episode", func() bool { return r.state == stRecording })
	if r.split.Offset != 0 {
		t.Fatalf("recording offset %v, want 0 (details at their minimum)", r.split.Offset)
	}
	r.discard()
	f.loop.until(t, "the discard", func() bool { return r.state == stEnded })
	if r.split.Offset != 0.3 {
		t.Fatalf("offset %v after the episode, want the 0.3 the person chose", r.split.Offset)
	}
}

// Changing the category filter never leaves Start recording a task the list
// does not show as chosen.
func TestRecordTabFilterChangeKeepsListAndStartInStep(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{
		{Goal: "Find the opening hours", Category: dataset.Information, StartURL: "http://127.0.0.1:9/a", Source: "test"},
		{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"},
	})
	if f.tab.task == nil || f.tab.task.Goal != "Find the opening hours" {
		t.Fatalf("chosen at start: %+v", f.tab.task)
	}
	f.tab.catSel.SetSelected(dataset.Navigation)
	if len(f.tab.tasks) != 1 || f.tab.tasks[0].Goal != "Open the returns page" {
		t.Fatalf("filtered list: %+v", f.tab.tasks)
	}
	if f.tab.task == nil || f.tab.task.Goal != "Open the returns page" || f.tab.goal.Text != "Open the returns page" {
		t.Fatalf("after the filter change Start would record %+v (details show %q), the list shows only the returns page", f.tab.task, f.tab.goal.Text)
	}
	f.tab.catSel.SetSelected(dataset.Interaction)
	if f.tab.task != nil {
		t.Fatalf("an empty list still has a task for Start: %+v", f.tab.task)
	}
	f.tab.startChosen()
	if f.tab.state == stRecording || f.tab.state == stStarting {
		t.Fatal("Start recorded a task the list does not show")
	}
}

// An engine that cannot start (an OpenEnv server that is not there) says so
// in a dialog with the whole message: the status bar cuts it.
func TestRecordTabStartFailureShowsTheWholeMessage(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"}})
	long := "cannot reach the OpenEnv server http://127.0.0.1:1: the OpenEnv server at http://127.0.0.1:1 is not answering (waited 4s): connection refused; is it running?"
	f.tab.opts.Open = func(context.Context, dataset.Task, Settings) (*Opened, error) { return nil, errors.New(long) }
	f.tab.startChosen()
	f.loop.until(t, "the start to fail", func() bool { return f.tab.state == stEnded })
	var shown []string
	f.loop.until(t, "a dialog", func() bool {
		top := f.win.Canvas().Overlays().Top()
		if top == nil {
			return false
		}
		shown = texts(top)
		return true
	})
	if !strings.Contains(strings.Join(shown, " "), "is it running?") {
		t.Fatalf("the dialog does not hold the whole message: %q", shown)
	}
}

// Closing the window while an episode records asks first: Keep recording
// goes on, Stop and save as interrupted closes.
func TestRecordTabCloseAsksWhileRecording(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	closed := 0
	f.tab.ConfirmClose(func() { closed++ })
	if closed != 0 {
		t.Fatal("the window closed at once during a recording")
	}
	tap := func(label string) {
		t.Helper()
		for _, o := range test.LaidOutObjects(f.win.Canvas().Overlays().Top()) {
			if b, ok := o.(*widget.Button); ok && b.Text == label {
				test.Tap(b)
				return
			}
		}
		t.Fatalf("no %q button in %q", label, texts(f.win.Canvas().Overlays().Top()))
	}
	if got := strings.Join(texts(f.win.Canvas().Overlays().Top()), " "); !strings.Contains(got, "0 steps saved") {
		t.Errorf("the question does not say what is saved: %q", got)
	}
	tap("Keep recording")
	if closed != 0 || f.tab.state != stRecording {
		t.Fatalf("Keep recording: closed %d, state %v", closed, f.tab.state)
	}
	f.tab.ConfirmClose(func() { closed++ })
	tap("Stop and save as interrupted")
	if closed != 1 {
		t.Fatal("Stop and save did not close")
	}
	// Between episodes the window closes without a question.
	f2 := openRecordFixture(t, []dataset.Task{{Goal: "x", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	f2.tab.ConfirmClose(func() { closed++ })
	if closed != 2 {
		t.Fatal("closing between episodes asked")
	}
}

// The banner of a recorded step lies outside the picture, just above it:
// it never covers the top of the page or a click marker there.
func TestRecordTabStepBannerOutsideThePicture(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	f.tab.preview(0)
	f.loop.until(t, "the step shown", func() bool { return v.ShowingStill() })
	b := v.Banner()
	if b.Visible() == false || !strings.Contains(v.BannerText(), "Step 0") {
		t.Fatalf("banner %q visible %v", v.BannerText(), b.Visible())
	}
	d := fyne.CurrentApp().Driver()
	bp, vp := d.AbsolutePositionForObject(b), d.AbsolutePositionForObject(v)
	if bp.Y+b.Size().Height > vp.Y {
		t.Fatalf("the banner (y %g–%g) overlaps the picture (from y %g)", bp.Y, bp.Y+b.Size().Height, vp.Y)
	}
	if b.Size().Height < 10 || b.Size().Width != v.Size().Width {
		t.Fatalf("banner size %v, picture %v", b.Size(), v.Size())
	}
}

// Dialogs answer the keyboard: Escape cancels the Discard question and
// gives the keys back to the page, Enter confirms it; the end dialog's
// Enter is its highlighted button.
func TestRecordTabDialogsAnswerTheKeyboard(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	key := func(name fyne.KeyName) {
		t.Helper()
		h := f.win.Canvas().OnTypedKey()
		if h == nil {
			t.Fatalf("no key handler while the dialog is up (%s)", name)
		}
		h(&fyne.KeyEvent{Name: name})
	}
	f.tab.TypedShortcut(ShortcutDiscard)
	if f.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no Discard question")
	}
	if f.win.Canvas().Focused() == f.tab.View() {
		t.Fatal("the page keeps the keyboard while the question is up")
	}
	key(fyne.KeyEscape)
	if f.win.Canvas().Overlays().Top() != nil || f.tab.state != stRecording {
		t.Fatalf("Escape: dialog still up %v, state %v", f.win.Canvas().Overlays().Top() != nil, f.tab.state)
	}
	if f.win.Canvas().Focused() != f.tab.View() {
		t.Fatal("the live view did not get the keyboard back")
	}
	f.tab.TypedShortcut(ShortcutDiscard)
	key(fyne.KeyReturn)
	f.loop.until(t, "the discard", func() bool { return f.tab.state == stEnded })

	f = newRecordFixture(t, dataset.Navigation)
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end dialog", func() bool { return f.tab.endDialog != nil && f.win.Canvas().Overlays().Top() != nil })
	key(fyne.KeyEscape)
	if f.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape did not close the end dialog")
	}
}

// The OpenEnv server goes away mid-episode: the app notices while idle,
// saves the episode as interrupted with every step, and says so with a way
// on (start again, or the local browser).
func TestRecordTabServerLostMidEpisode(t *testing.T) {
	png := testPNG(t)
	srv, err := openenv.NewServer(openenv.Options{NewEngine: func(context.Context) (engine.Engine, error) {
		e := &shotEngine{gateEngine: gateEngine{gate: make(chan struct{})}, png: png}
		close(e.gate)
		return e, nil
	}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"}})
	switched := false
	f.tab.opts.UseLocalBrowser = func() { switched = true }
	f.tab.opts.Open = func(ctx context.Context, task dataset.Task, s Settings) (*Opened, error) {
		c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{HealthTimeout: 2 * time.Second})
		if err != nil {
			return nil, err
		}
		rec := dataset.NewRecorder(f.store, c, dataset.RecorderOptions{TaskID: task.ID, Annotator: s.Annotator})
		return &Opened{Engine: rec, Lost: c.Lost(), LostErr: c.LostErr}, nil
	}
	f.tab.startChosen()
	f.loop.until(t, "the episode to start", func() bool { return f.tab.state == stRecording && len(f.tab.rows) == 1 })
	f.tab.act(action.ClickAt(10, 10))
	f.loop.until(t, "the step", func() bool { return len(f.tab.rows) == 2 })

	// The server goes away while the person looks at the page.
	srv.Close()
	hs.CloseClientConnections()
	start := time.Now()
	var shown string
	f.loop.until(t, "the lost-connection dialog", func() bool {
		if top := f.win.Canvas().Overlays().Top(); top != nil {
			shown = strings.Join(texts(top), " ")
			return strings.Contains(shown, "saved as interrupted")
		}
		return false
	})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("noticed after %v", d)
	}
	if !strings.Contains(shown, "1 step") || !strings.Contains(shown, "lost") {
		t.Errorf("dialog says %q", shown)
	}
	f.loop.until(t, "the runner to close", func() bool { return f.tab.state == stEnded && !f.tab.runner.Busy() })
	eps, err := f.store.ListEpisodes(dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v %v", eps, err)
	}
	if eps[0].Status != dataset.StatusInterrupted || eps[0].NumSteps != 1 {
		t.Fatalf("episode after the server went away: %+v", eps[0])
	}
	for _, o := range test.LaidOutObjects(f.win.Canvas().Overlays().Top()) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Switch to the local browser" {
			test.Tap(b)
		}
	}
	if !switched {
		t.Error("Switch to the local browser did nothing")
	}
}

// Before Start the status bar says where the next episode will run.
func TestRecordTabShowsTheEngineBeforeStart(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "x", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	if got := f.tab.engineLbl.Text; !strings.Contains(got, "Next episode: local browser") || !strings.Contains(got, "default actions") {
		t.Fatalf("status bar before Start: %q", got)
	}
	s := DefaultSettings()
	s.Annotator, s.Server = "Ada", "http://127.0.0.1:8000"
	f.tab.opts.Settings = func() Settings { return s }
	f.tab.sync()
	if got := f.tab.engineLbl.Text; !strings.Contains(got, "OpenEnv server http://127.0.0.1:8000") {
		t.Fatalf("status bar with a server set: %q", got)
	}
}
