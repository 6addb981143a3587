package record

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
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
	"waymark/ui"
)

// mainLoop stands in for Fyne's main goroutine: hand-offs queue here and
// the test runs them, so widgets are only touched by the test goroutine.
type mainLoop struct{ ch chan func() }

func newMainLoop() (*mainLoop, *ui.Bridge) {
	m := &mainLoop{ch: make(chan func(), 1024)}
	return m, ui.NewBridgeWith(func(f func()) { m.ch <- f })
}

// hangLimit is how long a test waits for something that must happen before
// it calls the wait a hang. It is not a speed target (those are benchmarks):
// with a real Chromium an undo or a resume replays steps, and each settles
// as long as the page needs, which on a 2-core machine running two test
// suites took more than the 5 s this used to be.
const hangLimit = 60 * time.Second

// until runs hand-offs until cond holds.
func (m *mainLoop) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(hangLimit)
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
	// resetErr is the start page's error (none when empty).
	resetErr action.Code
}

func (e *shotEngine) Reset(ctx context.Context, o engine.ResetOptions) (action.Observation, error) {
	obs, err := e.gateEngine.Reset(ctx, o)
	obs.Screenshot = e.png
	obs.Error = e.resetErr
	return obs, err
}

func (e *shotEngine) Step(ctx context.Context, a action.Action) (action.Observation, error) {
	obs, err := e.gateEngine.Step(ctx, a)
	obs.Screenshot = e.png
	return obs, err
}

// testPNG is an 800×600 gradient, made once per package run.
func testPNG(t *testing.T) []byte {
	gradient.Do(func() { gradient.png = makeTestPNG(t) })
	return bytes.Clone(gradient.png)
}

var gradient struct {
	sync.Once
	png []byte
}

func makeTestPNG(t *testing.T) []byte {
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
	tab   *Tab
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
	f.loop.until(t, "the episode to start", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
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
		tk, err := store.AddTask(t.Context(), tk)
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
	ctx := &ui.Context{App: fyne.CurrentApp(), Window: f.win, Store: store, Bridge: b,
		Notify: func(title, body string) { f.notes = append(f.notes, title+": "+body) }}
	settings := ui.DefaultSettings()
	settings.Annotator = "Tester"
	if len(sets) > 0 {
		settings.ActionSet = sets[0]
	}
	f.tab = New(ctx, Options{
		Settings: func() ui.Settings { return settings },
		Open: func(ctx context.Context, t dataset.Task, s ui.Settings) (*Opened, error) {
			rec := dataset.NewRecorder(store, f.eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})
			return &Opened{Engine: rec}, nil
		},
	})
	f.win.SetContent(f.tab.Content())
	f.win.Resize(fyne.NewSize(1200, 800))
	t.Cleanup(func() {
		close(f.eng.gate)
		if f.tab.life.runner != nil {
			f.tab.life.runner.Stop(action.EndInterrupted, false)
			f.tab.life.runner.Wait(2 * time.Second)
		}
	})
	return f
}

func (f *recordFixture) storedActions(t *testing.T) []string {
	t.Helper()
	eps, err := f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v %v", eps, err)
	}
	steps, err := f.store.Steps(t.Context(), eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range steps[1:] {
		out = append(out, s.Action.String())
	}
	return out
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

func TestRecordTabQueuesInputWhileAStepRuns(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	f.tab.live.mapper.SetPauses(time.Hour, time.Hour) // only flushes by other input
	if f.tab.tools.finishBtn.Disabled() || !f.tab.panel.startBtn.Disabled() {
		t.Fatal("while recording, Finish must be enabled and Start disabled")
	}
	click(v, fyne.NewPos(120, 80))
	f.loop.until(t, "the click to run", func() bool { return strings.Contains(v.PendingText(), "▶ click 120,80") })
	// The click's step is blocked: these inputs wait, in order.
	test.Type(v, "abc")
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	v.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -50}})
	f.tab.live.mapper.Flush()
	f.loop.until(t, "the queue to show", func() bool {
		return strings.Contains(v.PendingText(), `queued 3: type "abc", key ENTER, scroll 200`)
	})
	for range 4 {
		f.eng.gate <- struct{}{}
	}
	f.loop.until(t, "four steps in the timeline", func() bool { return len(f.tab.steps.rows) == 5 })
	var got []string
	for _, r := range f.tab.steps.rows[1:] {
		got = append(got, r.text)
	}
	want := []string{"click 120,80", `type "abc"`, "key ENTER", "scroll 200"}
	equal(t, got, want)
	equal(t, f.storedActions(t), want)
	if !strings.HasPrefix(f.tab.status.stepLbl.Text, "Step 4 / 20") {
		t.Fatalf("status says %q", f.tab.status.stepLbl.Text)
	}
	// Selecting a step shows it without disturbing the recording.
	f.tab.steps.list.Select(1)
	f.loop.until(t, "the still picture", func() bool { return v.ShowingStill() })
	if !strings.Contains(v.BannerText(), "click 120,80") {
		t.Fatalf("banner %q", v.BannerText())
	}
	if v.StillImage() == nil {
		t.Fatal("the step's screenshot (from the store) is not shown")
	}
	f.loop.until(t, "an engine without live frames to show each step's screenshot", func() bool { return v.Frame() != nil })
	click(v, fyne.NewPos(10, 10)) // returns to live, not sent
	if v.ShowingStill() || f.tab.life.runner.Busy() {
		t.Fatal("a click on the still picture must only return to the live page")
	}
}

func TestRecordTabFinishNeedsAnswerForInformation(t *testing.T) {
	f := newRecordFixture(t, dataset.Information)
	if err := f.tab.Finish("  "); err == nil {
		t.Fatal("an information task finished without an answer")
	}
	if f.tab.life.runner.Busy() {
		t.Fatal("a refused finish was sent")
	}
	if err := f.tab.Finish("42"); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the episode to end", func() bool { return f.tab.life.state == stEnded })
	equal(t, f.storedActions(t), []string{`finish "42"`})
	eps, _ := f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if eps[0].Status != dataset.StatusFinished || eps[0].FinalAnswer != "42" || eps[0].Annotator != "Tester" {
		t.Fatalf("episode %+v", eps[0])
	}
	if len(f.notes) != 1 || !strings.Contains(f.notes[0], "You finished the task.") {
		t.Fatalf("notifications %q", f.notes)
	}
	if !f.tab.tools.finishBtn.Disabled() || f.tab.tools.restartBtn.Disabled() {
		t.Fatal("after the end: Finish disabled, Restart enabled")
	}
	// Other categories may finish without one.
	if err := ui.FinishAnswerError(dataset.Navigation, ""); err != nil {
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
	eps, _ := f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if eps[0].Status != dataset.StatusInterrupted {
		t.Fatalf("status %q after closing, want interrupted", eps[0].Status)
	}
	if !f.eng.closed {
		t.Fatal("engine not closed")
	}
}

func TestRecordTabGotoOnlyInTheExtendedSet(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	if f.tab.tools.gotoBtn.Visible() {
		t.Fatal("Go to… shown in the default set")
	}
	g := newRecordFixture(t, dataset.Navigation, action.SetExtended)
	if !g.tab.tools.gotoBtn.Visible() || g.tab.tools.gotoBtn.Disabled() {
		t.Fatal("Go to… must be usable in the extended set")
	}
	g.tab.life.act(action.Action{Op: action.Goto, URL: "http://127.0.0.1:9/next"})
	g.eng.gate <- struct{}{}
	g.loop.until(t, "the goto step", func() bool { return len(g.tab.steps.rows) == 2 })
	equal(t, g.storedActions(t), []string{"goto http://127.0.0.1:9/next"})
}

func TestRecordTabShortcuts(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	v.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}) // browsers' Back
	v.TypedShortcut(ShortcutWait)
	v.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierControl})
	f.loop.until(t, "the refusal", func() bool { return strings.Contains(f.tab.status.errLbl.Text, "Ctrl+Q not sent") })
	f.eng.gate <- struct{}{}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "two steps", func() bool { return len(f.tab.steps.rows) == 3 })
	equal(t, f.storedActions(t), []string{"back", "wait"})
}

func TestRecordTabStartAndNextShortcuts(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	other, err := f.store.AddTask(t.Context(), dataset.Task{Goal: "Another task", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f.tab.TypedShortcut(ShortcutStart) // recording: ignored
	if err := f.tab.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return f.tab.life.state == stEnded })
	f.loop.until(t, "the engine to close", func() bool { return f.tab.life.runner.Busy() == false && f.eng.closed })
	f.tab.TypedShortcut(ShortcutNext)
	f.loop.until(t, "the next task to record", func() bool { return f.tab.life.state == stRecording && f.tab.panel.task.ID == other.ID })
}

// The banner of a recorded step lies outside the picture, just above it:
// it never covers the top of the page or a click marker there.
func TestRecordTabStepBannerOutsideThePicture(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	f.tab.steps.preview(0)
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

// Before Start the status bar says where the next episode will run.
func TestRecordTabShowsTheEngineBeforeStart(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "x", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	if got := f.tab.status.engineLbl.Text; !strings.Contains(got, "Next episode: local browser") || !strings.Contains(got, "default actions") {
		t.Fatalf("status bar before Start: %q", got)
	}
	s := ui.DefaultSettings()
	s.Annotator, s.Server = "Ada", "http://127.0.0.1:8000"
	f.tab.opts.Settings = func() ui.Settings { return s }
	f.tab.sync()
	if got := f.tab.status.engineLbl.Text; !strings.Contains(got, "OpenEnv server http://127.0.0.1:8000") {
		t.Fatalf("status bar with a server set: %q", got)
	}
}
