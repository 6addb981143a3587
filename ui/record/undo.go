package record

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// ShortcutUndo undoes the last step while recording.
var ShortcutUndo = &desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}

// undo undoes the last step (Ctrl+Shift+Z): text typed but not sent yet is
// dropped; else the last stored step is marked removed and the page is
// brought back by replaying the steps kept, in order with the inputs
// queued before it.
func (r *Tab) undo() {
	if r.state != stRecording || r.mapper == nil || r.runner == nil || r.cur == nil {
		r.status.setError("Nothing to undo: no episode is being recorded.")
		return
	}
	if r.replaying != "" {
		r.status.setError(r.replaying + ": wait until it ends.")
		return
	}
	if r.typing != "" || r.scrollDY != 0 {
		r.mapper.Drop()
		r.status.setStatus("Undone: the typing or scrolling not sent yet was dropped; it never reached the page.")
		r.focusView()
		return
	}
	if !r.runner.Busy() && r.keptSteps() == 0 {
		r.status.setError("Nothing to undo: only the start page is recorded. Discard the episode to start over.")
		return
	}
	e, store := r.cur, r.ctx.Store
	if store == nil {
		r.status.setError("Undo needs the database, and none is open.")
		return
	}
	progress := e.progress()
	ok := r.runner.Do(func(ctx context.Context, eng engine.Engine) (*action.Observation, bool) {
		rec, err := recorderOf(eng)
		if err != nil {
			e.onUI(func() { r.undone(0, action.Observation{}, err, false) })
			return nil, false
		}
		idx, obs, err := rec.Undo(ctx, replay.BringBack(store, progress))
		stop := err != nil && !rec.Recording()
		e.onUI(func() { r.undone(idx, obs, err, stop) })
		if err != nil {
			return nil, stop
		}
		return &obs, false
	})
	if !ok {
		r.status.setError("Not undone: the episode has ended.")
		return
	}
	r.replaying = "Undoing the last step"
	r.view.Sink = idleSink{r}
	r.view.SetPending("⟲ Undoing the last step…")
	r.sync()
}

// undone shows an undo's result: idx is the step undone (0: none), stop
// says the episode stopped because the page could not be brought back.
func (r *Tab) undone(idx int, obs action.Observation, err error, stop bool) {
	r.replaying = ""
	r.view.SetPending("")
	for i := range r.rows {
		if idx > 0 && r.rows[i].idx == idx {
			r.rows[i].removed = true
			r.timeline.RefreshItem(i)
		}
	}
	switch {
	case err != nil && stop:
		msg := err.Error()
		r.status.setError(msg)
		if w := r.ctx.Window; w != nil {
			ui.ShowError(errors.New(msg), w)
		}
	case err != nil:
		r.view.Sink = r.mapper
		r.status.setError("Not undone: " + err.Error())
	default:
		r.view.Sink = r.mapper
		r.lastURL = obs.URL
		r.status.setStatus(fmt.Sprintf("Step %d undone (kept as removed); %s replayed.", idx, ui.Plural(r.keptSteps(), "step")))
		if r.frameless && len(obs.Screenshot) > 0 {
			if img, err := decodePNG(obs.Screenshot); err == nil {
				r.view.SetFrame(ToRGBA(img))
			}
		}
		r.focusView()
	}
	r.showPending()
	r.sync()
}

// buildUndoButton makes the toolbar's Undo button.
func (r *Tab) buildUndoButton() *widget.Button {
	r.undoBtn = &widget.Button{Text: "Undo", Icon: theme.ContentUndoIcon(), OnTapped: r.undo}
	return r.undoBtn
}
