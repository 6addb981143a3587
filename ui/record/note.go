package record

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/ui"
)

// A note per step: Ctrl+Shift+M (or the toolbar's Note button) opens a
// one-line field over the bottom of the live view for the latest step, or
// for the step selected in the timeline. Enter saves the note with the step
// in the store (it is exported with it), Escape cancels. The field has the
// keyboard while it is open, so nothing typed in it reaches the page or the
// typing buffer; the timeline marks the steps that have a note.

// ShortcutNote opens the note field.
var ShortcutNote = &desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}

// noteSaveTimeout bounds one note's write to the store.
const noteSaveTimeout = 15 * time.Second

// noteKey names a step: its episode and index.
type noteKey struct {
	ep  string
	idx int
}

// noteBook is the notes of the Record screen: the ones saved, the drafts
// and the open note field. The timeline asks it for a step's note (note,
// marker) and tells it the notes of stored steps (remember).
type noteBook struct {
	t      *Tab
	open   *noteField         // the open note field, or nil
	saved  map[noteKey]string // saved notes
	drafts map[noteKey]string // typed but not saved (the field was closed by a click outside it, or the store refused)
}

// noteField is the open note field. Opened while an input of the person's
// is still on its way to the page (typed text, a step running or queued),
// it waits for that step to be stored and goes with it: the person means
// the step they just made.
type noteField struct {
	pop      *widget.PopUp
	entry    *noteEntry
	title    *widget.Label
	key      noteKey // the step, once known
	known    bool
	saveText *string // Enter was pressed before the step was known
	tries    int
}

// notePoll is how often an open note field checks whether the step it
// waits for is stored; noteWaitTries bounds the wait for its row.
const (
	notePoll      = 100 * time.Millisecond
	noteWaitTries = 30
)

// target is the timeline row a note goes to: the one selected, else the
// latest that is kept (an undone step is left out of the episode and its
// export); false when there is none.
func (n *noteBook) target() (stepRow, bool) {
	steps := &n.t.steps
	if steps.episode() == "" || steps.len() == 0 {
		return stepRow{}, false
	}
	if row, ok := steps.selectedRow(); ok {
		return row, true
	}
	return steps.latestKept()
}

// ask opens the note field. fromKey: it was opened by ShortcutNote,
// whose key is still down (its repeats must not type into the field).
func (n *noteBook) ask(fromKey bool) {
	w := n.t.ctx.Window
	if w == nil {
		return
	}
	if n.open != nil && n.open.pop.Visible() {
		w.Canvas().Focus(n.open.entry)
		return
	}
	row, ok := n.target()
	if !ok {
		n.t.status.setError("No step to write a note on yet: a note goes with a recorded step. Start an episode first.")
		return
	}
	if row.removed {
		n.t.status.setError(fmt.Sprintf("No note on step %d: step %d was removed from the episode (it is kept in the store but not exported). Select a kept step, or clear the selection for the latest one.", row.idx, row.idx))
		return
	}
	nf := &noteField{entry: newNoteEntry()}
	e := nf.entry
	e.SetPlaceHolder("What happened at this step, e.g. “the page was slow to load”")
	if fromKey {
		e.keys.ShortcutTyped(ShortcutNote)
	}
	nf.title = widget.NewLabel("")
	nf.title.TextStyle = fyne.TextStyle{Bold: true}
	nf.title.Truncation = fyne.TextTruncateEllipsis
	if _, sel := n.t.steps.selectedRow(); sel || !n.t.life.inputOnItsWay() {
		n.settle(nf, row)
	} else {
		nf.title.SetText("Note on the step being recorded now · Enter saves, Escape cancels")
		n.t.ctx.UI().After(notePoll, func() { n.poll(nf) })
	}
	e.OnChanged = func(s string) {
		if nf.known {
			if n.drafts == nil {
				n.drafts = map[noteKey]string{}
			}
			n.drafts[nf.key] = s
		}
	}
	e.OnSubmitted = func(s string) { n.submit(nf, s) }
	e.onEscape = func() { n.close(nf, true) }
	save := &widget.Button{Text: "Save", Importance: widget.HighImportance, OnTapped: func() { n.submit(nf, e.Text) }}
	cancel := &widget.Button{Text: "Cancel", OnTapped: func() { n.close(nf, true) }}
	box := container.NewBorder(nf.title, nil, nil, container.NewHBox(save, cancel), e)

	c := w.Canvas()
	// The view gives up the keyboard before the field opens over it: the
	// key cue then says keys do not go to the page (an overlay's focus
	// does not take it from the view on its own).
	c.Unfocus()
	nf.pop = widget.NewPopUp(box, c)
	n.open = nf
	size := fyne.NewSize(n.t.live.view.Size().Width-16, box.MinSize().Height+theme.Padding()*2)
	if size.Width < 400 {
		size.Width = 400
	}
	vp := fyne.CurrentApp().Driver().AbsolutePositionForObject(n.t.live.view)
	pos := fyne.NewPos(vp.X+8, vp.Y+n.t.live.view.Size().Height-size.Height-8)
	if pos.Y < 0 {
		pos.Y = 0
	}
	nf.pop.ShowAtPosition(pos)
	nf.pop.Resize(size)
	c.Focus(e)
}

// settle sets the step the open field's note goes with.
func (n *noteBook) settle(nf *noteField, row stepRow) {
	nf.key, nf.known = noteKey{n.t.steps.episode(), row.idx}, true
	what := row.text
	if rs := []rune(what); len(rs) > 40 {
		what = string(rs[:40]) + "…"
	}
	nf.title.SetText(fmt.Sprintf("Note on step %d (%s) · Enter saves, Escape cancels", row.idx, what))
	if nf.entry.Text == "" {
		if d, ok := n.drafts[nf.key]; ok {
			nf.entry.SetText(d)
		} else {
			nf.entry.SetText(n.saved[nf.key])
		}
	}
	if nf.saveText != nil {
		n.save(nf, *nf.saveText)
	}
}

// poll waits, while the field is open, for the steps on their way to
// be stored; the note then goes with the latest one (its index read from
// the store, its row once the timeline shows it).
func (n *noteBook) poll(nf *noteField) {
	if n.open != nf || nf.known || (!nf.pop.Visible() && nf.saveText == nil) {
		return // closed; a note already submitted is still saved
	}
	if n.t.life.stepsPending() {
		n.t.ctx.UI().After(notePoll, func() { n.poll(nf) })
		return
	}
	store, ep := n.t.ctx.Store, n.t.steps.episode()
	if store == nil {
		n.pick(nf, -1)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(n.t.lifetime, noteSaveTimeout)
		defer cancel()
		next, err := store.NextStepIndex(ctx, ep)
		if err != nil {
			next = 0
		}
		n.t.ctx.UI().Do(func() { n.pick(nf, next-1) })
	}()
}

// pick makes step idx (the latest stored) the field's step once its
// row shows; the latest row if it does not show in time (idx < 0: not
// known).
func (n *noteBook) pick(nf *noteField, idx int) {
	if n.open != nf || nf.known || n.t.steps.len() == 0 {
		return
	}
	if row, ok := n.t.steps.row(idx); ok {
		if !row.removed {
			n.settle(nf, row)
			return
		}
		idx = -1 // undone meanwhile: the latest kept step
	}
	if nf.tries++; idx >= 0 && nf.tries < noteWaitTries {
		n.t.ctx.UI().After(notePoll, func() { n.pick(nf, idx) })
		return
	}
	if row, ok := n.t.steps.latestKept(); ok {
		n.settle(nf, row)
	}
}

// submit saves the note, or, while its step is still on its way,
// saves it as soon as the step is stored.
func (n *noteBook) submit(nf *noteField, text string) {
	if nf.known {
		n.save(nf, text)
		return
	}
	nf.saveText = &text
	nf.entry.Disable()
	nf.title.SetText("Saving once the step being recorded is stored… · Escape cancels")
}

// close closes the note field and gives the page the keyboard back;
// cancel forgets what was typed.
func (n *noteBook) close(nf *noteField, cancel bool) {
	if cancel && nf.known {
		delete(n.drafts, nf.key)
	}
	nf.pop.Hide()
	if n.open == nf {
		n.open = nil
	}
	n.t.live.focus()
}

// save closes the field and stores the note off the Fyne goroutine;
// the timeline shows it once it is stored. Text the store refuses is kept
// for the next time the field opens.
func (n *noteBook) save(nf *noteField, text string) {
	n.close(nf, false)
	key := nf.key
	text = strings.TrimSpace(text)
	store := n.t.ctx.Store
	if store == nil {
		n.t.status.setError("The note cannot be saved: no database is open. Your text is kept; open a database and press Ctrl+Shift+M again.")
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(n.t.lifetime, noteSaveTimeout)
		defer cancel()
		err := store.SetStepNote(ctx, key.ep, key.idx, text)
		n.t.ctx.UI().Do(func() { n.stored(key, text, err) })
	}()
}

// stored shows the stored note in the timeline, or why it was not
// stored.
func (n *noteBook) stored(key noteKey, text string, err error) {
	if err != nil {
		if n.drafts == nil {
			n.drafts = map[noteKey]string{}
		}
		n.drafts[key] = text
		n.t.status.setError(fmt.Sprintf("The note on step %d was not saved: %v. Your text is kept: press Ctrl+Shift+M to try again.", key.idx, err))
		return
	}
	delete(n.drafts, key)
	if n.saved == nil {
		n.saved = map[noteKey]string{}
	}
	if text == "" {
		delete(n.saved, key)
		n.t.status.setStatus(fmt.Sprintf("Note removed from step %d.", key.idx))
	} else {
		n.saved[key] = text
		n.t.status.setStatus(fmt.Sprintf("Note saved on step %d.", key.idx))
	}
	n.t.steps.refreshStep(key.ep, key.idx)
}

// marker is what the timeline adds to a step's line when it has a note
// ("" when it has none).
func (n *noteBook) marker(key noteKey) string {
	text, ok := n.saved[key]
	if !ok {
		return ""
	}
	if rs := []rune(text); len(rs) > 24 {
		text = string(rs[:24]) + "…"
	}
	return " · Note: " + text
}

// note is the note saved on a step ("" when none).
func (n *noteBook) note(key noteKey) string { return n.saved[key] }

// remember notes a step's note read from the store.
func (n *noteBook) remember(key noteKey, text string) {
	if n.saved == nil {
		n.saved = map[noteKey]string{}
	}
	n.saved[key] = text
}

// noteEntry is the note's one-line field: Escape cancels, and the key that
// opened it types nothing until it is released.
type noteEntry struct {
	widget.Entry
	keys     ui.KeyGuard
	onEscape func()
}

func newNoteEntry() *noteEntry {
	e := &noteEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown implements desktop.Keyable.
func (e *noteEntry) KeyDown(ev *fyne.KeyEvent) { e.keys.KeyDown(ev.Name); e.Entry.KeyDown(ev) }

// KeyUp implements desktop.Keyable.
func (e *noteEntry) KeyUp(ev *fyne.KeyEvent) { e.keys.KeyUp(ev.Name); e.Entry.KeyUp(ev) }

// TypedKey cancels on Escape.
func (e *noteEntry) TypedKey(ev *fyne.KeyEvent) {
	if !e.keys.TypedKey(ev.Name) {
		return
	}
	if ev.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedRune types into the note.
func (e *noteEntry) TypedRune(r rune) {
	if e.keys.TypedRune() {
		e.Entry.TypedRune(r)
	}
}
