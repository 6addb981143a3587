package record

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// storedNotes are the notes of the episode's steps, by index.
func (f *recordFixture) storedNotes(t *testing.T) []string {
	t.Helper()
	steps, err := f.store.Steps(t.Context(), f.tab.life.episodeID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range steps {
		out = append(out, s.Note)
	}
	return out
}

// A note written while recording (Ctrl+Shift+M) goes with the latest step,
// or with the one selected in the timeline; what is typed in it never
// reaches the page; Escape forgets it; the timeline marks the step.
func TestNoteGoesWithTheStepAndTypesNothing(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	c := f.win.Canvas()
	f.tab.live.mapper.SetPauses(50*time.Millisecond, 50*time.Millisecond) // stray typing would show quickly
	click(v, fyne.NewPos(120, 80))
	f.eng.gate <- struct{}{}
	f.tab.life.act(action.Action{Op: action.Wait})
	f.eng.gate <- struct{}{}
	f.loop.until(t, "two steps", func() bool { return len(f.tab.steps.rows) == 3 })
	if c.Focused() != v {
		t.Fatal("the live view does not have the keyboard")
	}

	// Ctrl+Shift+M, held until it repeats; then a note typed and Enter.
	kb := newKeyboard(f)
	kb.press(desktop.KeyControlLeft, 0)
	kb.press(desktop.KeyShiftLeft, 0)
	kb.press(fyne.KeyM, 'm')
	kb.release(desktop.KeyShiftLeft)
	kb.release(desktop.KeyControlLeft)
	kb.repeat(fyne.KeyM, 'm')
	kb.release(fyne.KeyM)
	if f.tab.notes.open == nil || !f.tab.notes.open.pop.Visible() || c.Focused() != f.tab.notes.open.entry {
		t.Fatal("Ctrl+Shift+M did not open the note field with the keyboard")
	}
	if v.KeyCue() != ui.KeysElsewhere {
		t.Fatalf("while the note is open the cue says %q", v.KeyCue())
	}
	if !strings.Contains(strings.Join(texts(f.tab.notes.open.pop.Content), "\n"), "Note on step 2 (wait)") {
		t.Fatalf("the field does not name the step: %q", texts(f.tab.notes.open.pop.Content))
	}
	kb.typeText("slow page")
	kb.press(fyne.KeyReturn, 0)
	f.loop.until(t, "the note to be stored", func() bool { return f.tab.notes.saved[noteKey{f.tab.life.episodeID, 2}] != "" })
	if f.tab.notes.open != nil || c.Focused() != v || v.KeyCue() != ui.KeysToPage {
		t.Fatal("after Enter the field must close and the page have the keyboard back")
	}
	equal(t, f.storedNotes(t), []string{"", "", "slow page"})
	if !strings.Contains(strings.Join(texts(f.tab.steps.list), "\n"), "Note: slow page") {
		t.Fatalf("the timeline does not mark the note: %q", texts(f.tab.steps.list))
	}
	if !strings.Contains(f.tab.status.errLbl.Text, "Note saved on step 2") {
		t.Fatalf("status %q", f.tab.status.errLbl.Text)
	}

	// The step selected in the timeline, by the Note button; Escape
	// cancels and stores nothing.
	f.tab.steps.list.Select(1)
	test.Tap(f.tab.tools.noteBtn)
	if c.Focused() != f.tab.notes.open.entry {
		t.Fatal("the Note button did not give the field the keyboard")
	}
	kb.typeText("oops")
	kb.press(fyne.KeyEscape, 0)
	if f.tab.notes.open != nil || c.Focused() != v {
		t.Fatal("Escape did not close the field")
	}
	test.Tap(f.tab.tools.noteBtn)
	if f.tab.notes.open.entry.Text != "" {
		t.Fatalf("a cancelled note came back: %q", f.tab.notes.open.entry.Text)
	}
	kb.typeText("wrong button")
	kb.press(fyne.KeyReturn, 0)
	f.loop.until(t, "the second note", func() bool { return f.tab.notes.saved[noteKey{f.tab.life.episodeID, 1}] != "" })
	equal(t, f.storedNotes(t), []string{"", "wrong button", "slow page"})

	// A note the store refuses is kept for the next try.
	long := strings.Repeat("x", dataset.MaxNoteRunes+1)
	f.tab.notes.ask(false)
	f.tab.notes.open.entry.SetText(long)
	f.tab.notes.open.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	f.loop.until(t, "the refusal", func() bool { return strings.Contains(f.tab.status.errLbl.Text, "not saved") })
	f.tab.notes.ask(false)
	if f.tab.notes.open.entry.Text != long {
		t.Fatal("the refused note's text was lost")
	}
	f.tab.notes.close(f.tab.notes.open, true)
	equal(t, f.storedNotes(t), []string{"", "wrong button", "slow page"})

	// Nothing typed in the notes became an action.
	time.Sleep(150 * time.Millisecond)
	f.tab.live.mapper.Flush()
	if f.tab.life.runner.Busy() || f.tab.live.typing != "" {
		t.Fatalf("typing in the note reached the page (pending %q)", v.PendingText())
	}
	equal(t, f.storedActions(t), []string{"click 120,80", "wait"})
}

// A note asked for while the step just made is still on its way to the
// page (typed text not sent yet, a step running) goes with that step once
// it is stored, not with the one before it.
func TestNoteWaitsForTheStepOnItsWay(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	v := f.tab.View()
	c := f.win.Canvas()
	f.tab.live.mapper.SetPauses(time.Hour, time.Hour)
	click(v, fyne.NewPos(120, 80))
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the click step", func() bool { return len(f.tab.steps.rows) == 2 })
	kb := newKeyboard(f)
	kb.typeText("sella") // still in the typing buffer
	kb.press(desktop.KeyControlLeft, 0)
	kb.press(desktop.KeyShiftLeft, 0)
	kb.press(fyne.KeyM, 'm')
	kb.release(fyne.KeyM)
	kb.release(desktop.KeyShiftLeft)
	kb.release(desktop.KeyControlLeft)
	if f.tab.notes.open == nil || c.Focused() != f.tab.notes.open.entry {
		t.Fatal("the note field did not open")
	}
	if got := f.tab.notes.open.title.Text; !strings.Contains(got, "being recorded") {
		t.Fatalf("title %q while the typing is on its way", got)
	}
	kb.typeText("typed the river")
	kb.press(fyne.KeyReturn, 0) // before the step is stored: saved once it is
	f.eng.gate <- struct{}{}    // the type step is performed and stored
	f.loop.until(t, "the note to be stored", func() bool { return f.tab.notes.saved[noteKey{f.tab.life.episodeID, 2}] != "" })
	equal(t, f.storedNotes(t), []string{"", "", "typed the river"})
	equal(t, f.storedActions(t), []string{"click 120,80", `type "sella"`})
	if c.Focused() != v {
		t.Fatal("the page did not get the keyboard back")
	}
}

// A note made right after Undo goes on the latest step that is kept, not
// on the step just undone; a removed step selected in the timeline takes
// no note.
func TestNoteAfterUndoGoesOnTheKeptStep(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Save a note", Category: dataset.Interaction, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	pe := newPageEngine(t)
	f.usePageEngine(pe)
	f.tab.startChosen()
	f.loop.until(t, "recording", func() bool { return f.tab.life.state == stRecording && len(f.tab.steps.rows) == 1 })
	f.tab.live.mapper.SetPauses(time.Hour, time.Hour)
	v := f.tab.View()
	for i, p := range []fyne.Position{fyne.NewPos(10, 10), fyne.NewPos(20, 20)} {
		click(v, p)
		pe.let(1)
		f.loop.until(t, "a step", func() bool { return len(f.tab.steps.rows) == i+2 })
	}
	f.tab.TypedShortcut(ShortcutUndo)
	pe.let(1) // the replay of step 1
	f.loop.until(t, "the undo", func() bool { return f.tab.steps.rows[2].removed && f.tab.life.replaying == "" })

	f.tab.TypedShortcut(ShortcutNote)
	if f.tab.notes.open == nil {
		t.Fatal("the note field did not open")
	}
	if got := f.tab.notes.open.title.Text; !strings.Contains(got, "Note on step 1 (click 10,10)") {
		t.Fatalf("after the undo the note field says %q", got)
	}
	f.tab.notes.open.entry.SetText("after undo")
	f.tab.notes.open.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	f.loop.until(t, "the note to be stored", func() bool { return f.tab.notes.saved[noteKey{f.tab.life.episodeID, 1}] != "" })
	equal(t, f.storedNotes(t), []string{"", "after undo", ""})

	// The undone step selected: no note on it.
	f.tab.steps.list.Select(2)
	f.tab.notes.ask(false)
	if f.tab.notes.open != nil && f.tab.notes.open.pop.Visible() {
		t.Fatalf("a note field opened on the undone step: %q", f.tab.notes.open.title.Text)
	}
	if !strings.Contains(f.tab.status.errLbl.Text, "step 2 was removed") {
		t.Fatalf("status %q", f.tab.status.errLbl.Text)
	}
}

// A note longer than the timeline shows is read whole by selecting its
// step: the status bar shows it.
func TestLongNoteReadWholeOnSelect(t *testing.T) {
	f := newRecordFixture(t, dataset.Navigation)
	f.tab.life.act(action.Action{Op: action.Wait})
	f.eng.gate <- struct{}{}
	f.loop.until(t, "a step", func() bool { return len(f.tab.steps.rows) == 2 })
	long := "the list loaded late, then the second result moved under the pointer as I clicked"
	f.tab.notes.ask(false)
	f.tab.notes.open.entry.SetText(long)
	f.tab.notes.open.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	f.loop.until(t, "the note to be stored", func() bool { return f.tab.notes.saved[noteKey{f.tab.life.episodeID, 1}] != "" })
	if strings.Contains(strings.Join(texts(f.tab.steps.list), "\n"), long) {
		t.Fatal("the timeline shows the whole long note: this test needs a longer one")
	}
	f.tab.status.setStatus("")
	f.tab.steps.list.Select(1)
	if !strings.Contains(f.tab.status.errLbl.Text, long) {
		t.Fatalf("selecting the step shows %q, not its note", f.tab.status.errLbl.Text)
	}
}
