package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui/review/internal/fixture"
	"waymark/ui/uitest"
)

// topButton finds the button labelled text in the window's top overlay (an
// open dialog); nil when there is none.
func topButton(w fyne.Window, text string) *widget.Button {
	top := w.Canvas().Overlays().Top()
	if top == nil {
		return nil
	}
	for _, o := range test.LaidOutObjects(top) {
		if b, ok := uitest.AsButton(o); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	return nil
}

// dialogText joins the labels of the window's top overlay.
func dialogText(w fyne.Window) string {
	top := w.Canvas().Overlays().Top()
	if top == nil {
		return ""
	}
	var b strings.Builder
	for _, o := range test.LaidOutObjects(top) {
		if l, ok := o.(*widget.Label); ok {
			b.WriteString(l.Text + "\n")
		}
	}
	return b.String()
}

// openEpisode opens episode id in the tab (from the "all" queue).
func (e *env) openEpisode(id string) {
	e.t.Helper()
	it, _ := e.findItem(id)
	e.tab.openItem(it)
	if e.tab.player.ep == nil || e.tab.player.ep.ID != id {
		e.t.Fatalf("episode %s did not open", id)
	}
}

// TestSuccessWarning: choosing success for an interrupted episode, or one
// whose automatic check failed, asks before saving (Save anyway / Cancel,
// Enter / Escape); a success on an ordinary episode saves at once.
func TestSuccessWarning(t *testing.T) {
	e := newEnv(t)
	e.tab.ctx.Window = e.w
	task, err := fixture.Task(e.s, "How many days before a workshop can you cancel?", dataset.Information, "http://forms.test/",
		&action.Check{Kind: action.CheckKindAnswer, Answer: "7|seven"})
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	failed, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(2), Answer: "8", Reward: &zero})
	if err != nil {
		t.Fatal(err)
	}
	interrupted, err := fixture.Episode(e.s, task, fixture.Options{Annotator: "ann", Actions: fixture.Clicks(2), Interrupted: true})
	if err != nil {
		t.Fatal(err)
	}
	e.tab.Shown()

	t.Run("normal success saves at once", func(t *testing.T) {
		e.openEpisode(e.eps[0])
		e.key(fyne.Key1)
		e.ctrlS()
		if top := e.w.Canvas().Overlays().Top(); top != nil {
			t.Fatalf("a dialog showed for an ordinary success: %q", dialogText(e.w))
		}
		if rs := e.reviews(e.eps[0]); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeSuccess {
			t.Fatalf("reviews = %+v", rs)
		}
	})

	t.Run("failed check: Cancel keeps it unsaved, Save anyway saves", func(t *testing.T) {
		e.openEpisode(failed)
		e.key(fyne.Key1)
		e.ctrlS()
		txt := dialogText(e.w)
		if !strings.Contains(txt, "automatic check failed") || !strings.Contains(txt, "“8”") || !strings.Contains(txt, "“7”") {
			t.Fatalf("warning does not say the check failed and what was expected: %q", txt)
		}
		if len(e.reviews(failed)) != 0 {
			t.Fatal("saved before the reviewer confirmed")
		}
		cancel := topButton(e.w, "Cancel")
		if cancel == nil {
			t.Fatal("no Cancel button")
		}
		test.Tap(cancel)
		if e.w.Canvas().Overlays().Top() != nil || len(e.reviews(failed)) != 0 {
			t.Fatal("Cancel did not close the warning without saving")
		}
		e.ctrlS() // asks again
		save := topButton(e.w, "Save anyway")
		if save == nil {
			t.Fatal("the warning did not show again after Cancel")
		}
		test.Tap(save)
		if rs := e.reviews(failed); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeSuccess {
			t.Fatalf("after Save anyway: reviews %+v", rs)
		}
		// Confirmed once for this episode: a later edit does not ask again.
		e.tab.form.reason.SetText("the answer is right; the check is too strict")
		e.ctrlS()
		if e.w.Canvas().Overlays().Top() != nil {
			t.Error("asked again after the reviewer confirmed")
		}
		if h, _ := e.s.ReviewHistory(t.Context(), failed, "rita"); len(h) != 2 {
			t.Errorf("%d versions after the edit, want 2", len(h))
		}
	})

	t.Run("interrupted: Escape cancels, N and Enter save and go on", func(t *testing.T) {
		e.openEpisode(interrupted)
		e.key(fyne.Key1)
		e.ctrlS()
		if txt := dialogText(e.w); !strings.Contains(txt, "interrupted") || strings.Count(txt, "interrupted") > 1 {
			t.Fatalf("warning does not say once that the episode was interrupted: %q", txt)
		}
		c := e.w.Canvas()
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
		if c.Overlays().Top() != nil || len(e.reviews(interrupted)) != 0 {
			t.Fatal("Escape did not cancel")
		}
		e.key(fyne.KeyN) // save and next: asks first
		if topButton(e.w, "Save anyway") == nil {
			t.Fatal("N did not ask")
		}
		if e.tab.player.ep.ID != interrupted {
			t.Fatal("N moved on before the reviewer answered")
		}
		c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
		if rs := e.reviews(interrupted); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeSuccess {
			t.Fatalf("Enter did not save: %+v", rs)
		}
		if e.tab.player.ep.ID == interrupted {
			t.Error("N did not open the next episode after the save")
		}
	})

	t.Run("failure on a failed check saves at once", func(t *testing.T) {
		e.openEpisode(failed)
		e.key(fyne.Key2)
		e.key(fyne.KeyT)
		e.ctrlS()
		if e.w.Canvas().Overlays().Top() != nil {
			t.Error("a failure label asked for confirmation")
		}
		if rs := e.reviews(failed); len(rs) != 1 || rs[0].Outcome != dataset.OutcomeFailure {
			t.Errorf("reviews = %+v", rs)
		}
	})
}
