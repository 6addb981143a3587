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
	noteBtn   *widget.Button
	notePop   *widget.PopUp // the open note field, or nil
	noteEntry *noteEntry
	noteFor   noteKey
	notes     map[noteKey]string // saved notes
	drafts    map[noteKey]string // typed but not saved (the field was closed by a click outside it, or the store refused)
}

// noteTarget is the timeline row a note goes to: the one selected, else
// the latest; false when there is none.
func (r *Tab) noteTarget() (stepRow, bool) {
	if r.episodeID == "" || len(r.rows) == 0 {
		return stepRow{}, false
	}
	if r.selected >= 0 && r.selected < len(r.rows) {
		return r.rows[r.selected], true
	}
	return r.rows[len(r.rows)-1], true
}

// askNote opens the note field. fromKey: it was opened by ShortcutNote,
// whose key is still down (its repeats must not type into the field).
func (r *Tab) askNote(fromKey bool) {
	w := r.ctx.Window
	if w == nil {
		return
	}
	if r.notePop != nil && r.notePop.Visible() {
		w.Canvas().Focus(r.noteEntry)
		return
	}
	row, ok := r.noteTarget()
	if !ok {
		r.setError("No step to write a note on yet: a note goes with a recorded step. Start an episode first.")
		return
	}
	key := noteKey{r.episodeID, row.idx}
	e := newNoteEntry()
	e.SetPlaceHolder("What happened at this step, e.g. “the page was slow to load”")
	if d, ok := r.drafts[key]; ok {
		e.SetText(d)
	} else {
		e.SetText(r.notes[key])
	}
	if fromKey {
		e.keys.shortcutTyped(ShortcutNote)
	}
	e.OnChanged = func(s string) {
		if r.drafts == nil {
			r.drafts = map[noteKey]string{}
		}
		r.drafts[key] = s
	}
	e.OnSubmitted = func(s string) { r.saveNote(key, s) }
	e.onEscape = func() { r.closeNote(key, true) }
	what := row.text
	if rs := []rune(what); len(rs) > 40 {
		what = string(rs[:40]) + "…"
	}
	title := widget.NewLabel(fmt.Sprintf("Note on step %d (%s) · Enter saves, Escape cancels", row.idx, what))
	title.TextStyle = fyne.TextStyle{Bold: true}
	title.Truncation = fyne.TextTruncateEllipsis
	save := &widget.Button{Text: "Save", Importance: widget.HighImportance, OnTapped: func() { r.saveNote(key, e.Text) }}
	cancel := &widget.Button{Text: "Cancel", OnTapped: func() { r.closeNote(key, true) }}
	box := container.NewBorder(title, nil, nil, container.NewHBox(save, cancel), e)

	c := w.Canvas()
	// The view gives up the keyboard before the field opens over it: the
	// key cue then says keys do not go to the page (an overlay's focus
	// does not take it from the view on its own).
	c.Unfocus()
	pop := widget.NewPopUp(box, c)
	r.notePop, r.noteEntry, r.noteFor = pop, e, key
	size := fyne.NewSize(r.view.Size().Width-16, box.MinSize().Height+theme.Padding()*2)
	if size.Width < 400 {
		size.Width = 400
	}
	d := fyne.CurrentApp().Driver()
	vp := d.AbsolutePositionForObject(r.view)
	pos := fyne.NewPos(vp.X+8, vp.Y+r.view.Size().Height-size.Height-8)
	if pos.Y < 0 {
		pos.Y = 0
	}
	pop.ShowAtPosition(pos)
	pop.Resize(size)
	c.Focus(e)
}

// closeNote closes the note field and gives the page the keyboard back;
// cancel forgets what was typed.
func (r *Tab) closeNote(key noteKey, cancel bool) {
	if cancel {
		delete(r.drafts, key)
	}
	if r.notePop != nil {
		r.notePop.Hide()
		r.notePop, r.noteEntry = nil, nil
	}
	r.focusView()
}

// saveNote closes the field and stores the note off the Fyne goroutine;
// the timeline shows it once it is stored. Text the store refuses is kept
// for the next time the field opens.
func (r *Tab) saveNote(key noteKey, text string) {
	r.closeNote(key, false)
	text = strings.TrimSpace(text)
	store := r.ctx.Store
	if store == nil {
		r.setError("The note cannot be saved: no database is open. Your text is kept; open a database and press Ctrl+Shift+M again.")
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
		r.setError(fmt.Sprintf("The note on step %d was not saved: %v. Your text is kept: press Ctrl+Shift+M to try again.", key.idx, err))
		return
	}
	delete(r.drafts, key)
	if r.notes == nil {
		r.notes = map[noteKey]string{}
	}
	if text == "" {
		delete(r.notes, key)
		r.setStatus(fmt.Sprintf("Note removed from step %d.", key.idx))
	} else {
		r.notes[key] = text
		r.setStatus(fmt.Sprintf("Note saved on step %d.", key.idx))
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
