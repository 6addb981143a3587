package record

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

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
func (l *lifecycle) undo() {
	r := l.t
	if l.state != stRecording || !r.live.attached() || l.runner == nil || l.cur == nil {
		l.status.setError("Nothing to undo: no episode is being recorded.")
		return
	}
	if l.replaying != "" {
		l.status.setError(l.replaying + ": wait until it ends.")
		return
	}
	if r.live.unsent() {
		r.live.drop()
		l.status.setStatus("Undone: the typing or scrolling not sent yet was dropped; it never reached the page.")
		r.live.focus()
		return
	}
	if !l.runner.Busy() && l.steps.kept() == 0 {
		l.status.setError("Nothing to undo: only the start page is recorded. Discard the episode to start over.")
		return
	}
	e, store := l.cur, r.ctx.Store
	if store == nil {
		l.status.setError("Undo needs the database, and none is open.")
		return
	}
	progress := e.progress()
	ok := l.runner.Do(func(ctx context.Context, eng engine.Engine) (*action.Observation, bool) {
		rec, err := recorderOf(eng)
		if err != nil {
			e.onUI(func() { l.undone(0, action.Observation{}, err, false) })
			return nil, false
		}
		idx, obs, err := rec.Undo(ctx, replay.BringBack(store, progress))
		stop := err != nil && !rec.Recording()
		e.onUI(func() { l.undone(idx, obs, err, stop) })
		if err != nil {
			return nil, stop
		}
		return &obs, false
	})
	if !ok {
		l.status.setError("Not undone: the episode has ended.")
		return
	}
	l.replaying = "Undoing the last step"
	r.live.refuse()
	r.live.view.SetPending("⟲ Undoing the last step…")
	r.sync()
}

// undone shows an undo's result: idx is the step undone (0: none), stop
// says the episode stopped because the page could not be brought back.
func (l *lifecycle) undone(idx int, obs action.Observation, err error, stop bool) {
	r := l.t
	l.replaying = ""
	r.live.view.SetPending("")
	l.steps.markRemoved(idx)
	switch {
	case err != nil && stop:
		msg := err.Error()
		l.status.setError(msg)
		if w := r.ctx.Window; w != nil {
			ui.ShowError(errors.New(msg), w)
		}
	case err != nil:
		r.live.accept()
		l.status.setError("Not undone: " + err.Error())
	default:
		r.live.accept()
		l.lastURL = obs.URL
		l.status.setStatus(fmt.Sprintf("Step %d undone (kept as removed); %s replayed.", idx, ui.Plural(l.steps.kept(), "step")))
		r.live.showShot(obs.Screenshot, l.cur.current)
		r.live.focus()
	}
	r.showPending()
	r.sync()
}
