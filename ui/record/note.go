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

// noteState is the note field and the notes of the Record tab.
type noteState struct {
	noteBtn *widget.Button
	note    *noteField         // the open note field, or nil
	notes   map[noteKey]string // saved notes
	drafts  map[noteKey]string // typed but not saved (the field was closed by a click outside it, or the store refused)
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

// noteTarget is the timeline row a note goes to: the one selected, else
// the latest that is kept (an undone step is left out of the episode and
// its export); false when there is none.
func (r *Tab) noteTarget() (stepRow, bool) {
	if r.episodeID == "" || len(r.rows) == 0 {
		return stepRow{}, false
	}
	if r.selected >= 0 && r.selected < len(r.rows) {
		return r.rows[r.selected], true
	}
	return r.latestKept()
}

// latestKept is the latest timeline row that is not removed.
func (r *Tab) latestKept() (stepRow, bool) {
	for i := len(r.rows) - 1; i >= 0; i-- {
		if !r.rows[i].removed {
			return r.rows[i], true
		}
	}
	return stepRow{}, false
}

// inputOnItsWay reports whether an input of the person's has not become a
// stored step yet. It sends typed text first.
func (r *Tab) inputOnItsWay() bool {
	if r.state != stRecording || r.runner == nil {
		return false
	}
	if r.mapper != nil {
		r.mapper.Flush()
	}
	return r.runner.Busy()
}

// askNote opens the note field. fromKey: it was opened by ShortcutNote,
// whose key is still down (its repeats must not type into the field).
func (r *Tab) askNote(fromKey bool) {
	w := r.ctx.Window
	if w == nil {
		return
	}
	if r.note != nil && r.note.pop.Visible() {
		w.Canvas().Focus(r.note.entry)
		return
	}
	row, ok := r.noteTarget()
	if !ok {
		r.status.setError("No step to write a note on yet: a note goes with a recorded step. Start an episode first.")
		return
	}
	if row.removed {
		r.status.setError(fmt.Sprintf("No note on step %d: step %d was removed from the episode (it is kept in the store but not exported). Select a kept step, or clear the selection for the latest one.", row.idx, row.idx))
		return
	}
	nf := &noteField{entry: newNoteEntry()}
	e := nf.entry
	e.SetPlaceHolder("What happened at this step, e.g. “the page was slow to load”")
	if fromKey {
		e.keys.shortcutTyped(ShortcutNote)
	}
	nf.title = widget.NewLabel("")
	nf.title.TextStyle = fyne.TextStyle{Bold: true}
	nf.title.Truncation = fyne.TextTruncateEllipsis
	if r.selected >= 0 || !r.inputOnItsWay() {
		r.noteKnown(nf, row)
	} else {
		nf.title.SetText("Note on the step being recorded now · Enter saves, Escape cancels")
		r.ctx.UI().After(notePoll, func() { r.notePoll(nf) })
	}
	e.OnChanged = func(s string) {
		if nf.known {
			if r.drafts == nil {
				r.drafts = map[noteKey]string{}
			}
			r.drafts[nf.key] = s
		}
	}
	e.OnSubmitted = func(s string) { r.submitNote(nf, s) }
	e.onEscape = func() { r.closeNote(nf, true) }
	save := &widget.Button{Text: "Save", Importance: widget.HighImportance, OnTapped: func() { r.submitNote(nf, e.Text) }}
	cancel := &widget.Button{Text: "Cancel", OnTapped: func() { r.closeNote(nf, true) }}
	box := container.NewBorder(nf.title, nil, nil, container.NewHBox(save, cancel), e)

	c := w.Canvas()
	// The view gives up the keyboard before the field opens over it: the
	// key cue then says keys do not go to the page (an overlay's focus
	// does not take it from the view on its own).
	c.Unfocus()
	nf.pop = widget.NewPopUp(box, c)
	r.note = nf
	size := fyne.NewSize(r.view.Size().Width-16, box.MinSize().Height+theme.Padding()*2)
	if size.Width < 400 {
		size.Width = 400
	}
	vp := fyne.CurrentApp().Driver().AbsolutePositionForObject(r.view)
	pos := fyne.NewPos(vp.X+8, vp.Y+r.view.Size().Height-size.Height-8)
	if pos.Y < 0 {
		pos.Y = 0
	}
	nf.pop.ShowAtPosition(pos)
	nf.pop.Resize(size)
	c.Focus(e)
}

// noteKnown sets the step the open field's note goes with.
func (r *Tab) noteKnown(nf *noteField, row stepRow) {
	nf.key, nf.known = noteKey{r.episodeID, row.idx}, true
	what := row.text
	if rs := []rune(what); len(rs) > 40 {
		what = string(rs[:40]) + "…"
	}
	nf.title.SetText(fmt.Sprintf("Note on step %d (%s) · Enter saves, Escape cancels", row.idx, what))
	if nf.entry.Text == "" {
		if d, ok := r.drafts[nf.key]; ok {
			nf.entry.SetText(d)
		} else {
			nf.entry.SetText(r.notes[nf.key])
		}
	}
	if nf.saveText != nil {
		r.saveNote(nf, *nf.saveText)
	}
}

// notePoll waits, while the field is open, for the steps on their way to
// be stored; the note then goes with the latest one (its index read from
// the store, its row once the timeline shows it).
func (r *Tab) notePoll(nf *noteField) {
	if r.note != nf || nf.known || (!nf.pop.Visible() && nf.saveText == nil) {
		return // closed; a note already submitted is still saved
	}
	if r.runner != nil && r.runner.Busy() {
		r.ctx.UI().After(notePoll, func() { r.notePoll(nf) })
		return
	}
	store, ep := r.ctx.Store, r.episodeID
	if store == nil {
		r.notePick(nf, -1)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), noteSaveTimeout)
		defer cancel()
		next, err := store.NextStepIndex(ctx, ep)
		if err != nil {
			next = 0
		}
		r.ctx.UI().Do(func() { r.notePick(nf, next-1) })
	}()
}

// notePick makes step idx (the latest stored) the field's step once its
// row shows; the latest row if it does not show in time (idx < 0: not
// known).
func (r *Tab) notePick(nf *noteField, idx int) {
	if r.note != nf || nf.known || len(r.rows) == 0 {
		return
	}
	for _, row := range r.rows {
		if row.idx == idx && !row.removed {
			r.noteKnown(nf, row)
			return
		}
		if row.idx == idx {
			idx = -1 // undone meanwhile: the latest kept step
		}
	}
	if nf.tries++; idx >= 0 && nf.tries < noteWaitTries {
		r.ctx.UI().After(notePoll, func() { r.notePick(nf, idx) })
		return
	}
	if row, ok := r.latestKept(); ok {
		r.noteKnown(nf, row)
	}
}

// submitNote saves the note, or, while its step is still on its way,
// saves it as soon as the step is stored.
func (r *Tab) submitNote(nf *noteField, text string) {
	if nf.known {
		r.saveNote(nf, text)
		return
	}
	nf.saveText = &text
	nf.entry.Disable()
	nf.title.SetText("Saving once the step being recorded is stored… · Escape cancels")
}

// closeNote closes the note field and gives the page the keyboard back;
// cancel forgets what was typed.
func (r *Tab) closeNote(nf *noteField, cancel bool) {
	if cancel && nf.known {
		delete(r.drafts, nf.key)
	}
	nf.pop.Hide()
	if r.note == nf {
		r.note = nil
	}
	r.focusView()
}

// saveNote closes the field and stores the note off the Fyne goroutine;
// the timeline shows it once it is stored. Text the store refuses is kept
// for the next time the field opens.
func (r *Tab) saveNote(nf *noteField, text string) {
	r.closeNote(nf, false)
	key := nf.key
	text = strings.TrimSpace(text)
	store := r.ctx.Store
	if store == nil {
		r.status.setError("The note cannot be saved: no database is open. Your text is kept; open a database and press Ctrl+Shift+M again.")
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), noteSaveTimeout)
		defer cancel()
		err := store.SetStepNote(ctx, key.ep, key.idx, text)
		r.ctx.UI().Do(func() { r.noteSaved(key, text, err) })
	}()
}

// noteSaved shows the stored note in the timeline, or why it was not
// stored.
func (r *Tab) noteSaved(key noteKey, text string, err error) {
	if err != nil {
		if r.drafts == nil {
			r.drafts = map[noteKey]string{}
		}
		r.drafts[key] = text
		r.status.setError(fmt.Sprintf("The note on step %d was not saved: %v. Your text is kept: press Ctrl+Shift+M to try again.", key.idx, err))
		return
	}
	delete(r.drafts, key)
	if r.notes == nil {
		r.notes = map[noteKey]string{}
	}
	if text == "" {
		delete(r.notes, key)
		r.status.setStatus(fmt.Sprintf("Note removed from step %d.", key.idx))
	} else {
		r.notes[key] = text
		r.status.setStatus(fmt.Sprintf("Note saved on step %d.", key.idx))
	}
	if key.ep != r.episodeID {
		return
	}
	for i, row := range r.rows {
		if row.idx == key.idx {
			r.timeline.RefreshItem(i)
		}
	}
}

// noteMarker is what the timeline adds to a step's line when it has a note
// ("" when it has none).
func (r *Tab) noteMarker(idx int) string {
	n, ok := r.notes[noteKey{r.episodeID, idx}]
	if !ok {
		return ""
	}
	if rs := []rune(n); len(rs) > 24 {
		n = string(rs[:24]) + "…"
	}
	return " · Note: " + n
}

// noteEntry is the note's one-line field: Escape cancels, and the key that
// opened it types nothing until it is released.
type noteEntry struct {
	widget.Entry
	keys     keyGuard
	onEscape func()
}

func newNoteEntry() *noteEntry {
	e := &noteEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown implements desktop.Keyable.
func (e *noteEntry) KeyDown(ev *fyne.KeyEvent) { e.keys.keyDown(ev.Name); e.Entry.KeyDown(ev) }

// KeyUp implements desktop.Keyable.
func (e *noteEntry) KeyUp(ev *fyne.KeyEvent) { e.keys.keyUp(ev.Name); e.Entry.KeyUp(ev) }

// TypedKey cancels on Escape.
func (e *noteEntry) TypedKey(ev *fyne.KeyEvent) {
	if !e.keys.typedKey(ev.Name) {
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
	if e.keys.typedRune() {
		e.Entry.TypedRune(r)
	}
}
