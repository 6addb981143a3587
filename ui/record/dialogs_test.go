package record

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/ui"
	"waymark/ui/uitest"
)

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

// An engine that cannot start (an OpenEnv server that is not there) says so
// in a dialog with the whole message: the status bar cuts it.
func TestRecordTabStartFailureShowsTheWholeMessage(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the returns page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/b", Source: "test"}})
	long := "cannot reach the OpenEnv server http://127.0.0.1:1: the OpenEnv server at http://127.0.0.1:1 is not answering (waited 4s): connection refused; is it running?"
	f.tab.opts.Open = func(context.Context, dataset.Task, ui.Settings) (*Opened, error) { return nil, errors.New(long) }
	f.tab.startChosen()
	f.loop.until(t, "the start to fail", func() bool { return f.tab.life.state == stEnded })
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
			if b, ok := uitest.AsButton(o); ok && b.Text == label {
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
	if closed != 0 || f.tab.life.state != stRecording {
		t.Fatalf("Keep recording: closed %d, state %v", closed, f.tab.life.state)
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
	if f.win.Canvas().Overlays().Top() != nil || f.tab.life.state != stRecording {
		t.Fatalf("Escape: dialog still up %v, state %v", f.win.Canvas().Overlays().Top() != nil, f.tab.life.state)
	}
	if f.win.Canvas().Focused() != f.tab.View() {
		t.Fatal("the live view did not get the keyboard back")
	}
	f.tab.TypedShortcut(ShortcutDiscard)
	key(fyne.KeyReturn)
	f.loop.until(t, "the discard", func() bool { return f.tab.life.state == stEnded })

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
	f.tab.opts.Open = func(ctx context.Context, task dataset.Task, s ui.Settings) (*Opened, error) {
		c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{HealthTimeout: 2 * time.Second})
		if err != nil {
			return nil, err
		}
		rec := dataset.NewRecorder(f.store, c, dataset.RecorderOptions{TaskID: task.ID, Annotator: s.Annotator})
		return &Opened{Engine: rec, Lost: c.Lost(), LostErr: c.LostErr}, nil
	}
	f.tab.startChosen()
	f.loop.until(t, "the episode to start", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
	f.tab.life.act(action.ClickAt(10, 10))
	f.loop.until(t, "the step", func() bool { return len(f.tab.steps.rows) == 2 })

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
	f.loop.until(t, "the runner to close", func() bool { return f.tab.life.state == stEnded && !f.tab.life.runner.Busy() })
	// The runner reports the end before it closes the engine, which is when
	// the recorder marks the episode interrupted.
	if !f.tab.life.runner.Wait(5 * time.Second) {
		t.Fatal("the engine was not closed")
	}
	eps, err := f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %v %v", eps, err)
	}
	if eps[0].Status != dataset.StatusInterrupted || eps[0].NumSteps != 1 {
		t.Fatalf("episode after the server went away: %+v", eps[0])
	}
	// The message is a sentence, not a raw Go error.
	if strings.Contains(shown, "the connection to") || !strings.Contains(shown, "The connection to the OpenEnv server") {
		t.Errorf("dialog says %q", shown)
	}
	// Going on in the local browser resumes the interrupted episode (its
	// steps replayed), not a new one.
	pe := newPageEngine(t)
	tapped := false
	for _, o := range test.LaidOutObjects(f.win.Canvas().Overlays().Top()) {
		if b, ok := uitest.AsButton(o); ok && b.Text == "Resume in the local browser" {
			f.usePageEngine(pe)
			test.Tap(b)
			tapped = true
		}
	}
	if !tapped {
		t.Fatalf("no Resume in the local browser button: %q", shown)
	}
	if !switched {
		t.Error("Resume in the local browser did not switch to the local browser")
	}
	// The local engine's start page is not the server's: the resume is
	// tried on the same episode, which stays interrupted.
	f.loop.until(t, "the resume", func() bool {
		return f.tab.life.state == stEnded && strings.Contains(f.tab.status.errLbl.Text, "could not be resumed") && !f.tab.life.runner.Busy()
	})
	eps, _ = f.store.ListEpisodes(t.Context(), dataset.EpisodeFilter{})
	if len(eps) != 1 || eps[0].Status != dataset.StatusInterrupted {
		t.Errorf("a new episode was started instead of resuming: %+v", eps)
	}
}

// deliverKey hands a key over as the desktop driver does: to the focused
// widget, else to the window's key handler.
func deliverKey(c fyne.Canvas, k fyne.KeyName) {
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: k})
	} else if h := c.OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
	}
}

// The Finish dialog answers Escape with the focus in its answer field and
// outside it, and the field has the keys from the start: the episode goes
// on recording and the page gets the keyboard back; Enter finishes with
// what was typed.
func TestRecordTabFinishDialogKeys(t *testing.T) {
	f := newRecordFixture(t, dataset.Information)
	c := f.win.Canvas()
	open := func() fyne.Focusable {
		t.Helper()
		f.tab.TypedShortcut(ShortcutFinish)
		if c.Overlays().Top() == nil {
			t.Fatal("no Finish dialog")
		}
		if c.Focused() == nil || c.Focused() == f.tab.View() {
			t.Fatalf("the Finish dialog opened with the focus on %T, not its answer field", c.Focused())
		}
		return c.Focused()
	}
	open()
	deliverKey(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil || f.tab.life.state != stRecording {
		t.Fatalf("Escape in the answer field: dialog up %v, state %v", c.Overlays().Top() != nil, f.tab.life.state)
	}
	if c.Focused() != f.tab.View() {
		t.Fatalf("after Escape the keyboard is on %T, not the page", c.Focused())
	}
	open()
	c.Unfocus()
	deliverKey(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil || f.tab.life.state != stRecording {
		t.Fatalf("Escape outside the field: dialog up %v, state %v", c.Overlays().Top() != nil, f.tab.life.state)
	}
	e := open()
	deliverKey(c, fyne.KeyReturn) // an information task needs an answer
	if c.Overlays().Top() == nil {
		t.Fatal("Enter with no answer closed the dialog of an information task")
	}
	for _, r := range "42" {
		c.Focused().TypedRune(r)
	}
	if e, ok := e.(*ui.DialogEntry); !ok || e.Text != "42" {
		t.Fatalf("typed into the dialog: %#v", e)
	}
	deliverKey(c, fyne.KeyReturn)
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the finish", func() bool { return f.tab.life.state == stEnded })
	last := f.tab.steps.rows[len(f.tab.steps.rows)-1]
	if last.act == nil || last.act.Op != action.Finish || last.act.Text != "42" {
		t.Fatalf("last step %+v, want finish 42", last.act)
	}
}
