package sessions

import (
	"fyne.io/fyne/v2"

	"waymark/engine/action"
	"waymark/ui"
)

// Control: taking over from the agent and handing back; while the
// person only watches, input on the live view is refused.

// controlChanged gives the person's input to the page, or takes it away.
func (t *Tab) controlChanged(mine bool) {
	if !mine {
		if t.mapper != nil {
			t.mapper.Drop()
		}
		t.mapper = nil
		t.view.Sink = readOnly{t}
		t.view.SetRecording(false)
		if t.watch != nil && t.ended == "" {
			t.setStatus(watchingText(), false)
		}
		return
	}
	set := action.SetDefault
	if t.summary != nil && t.summary.ActionSet != "" {
		set = t.summary.ActionSet
	}
	q, b := t.sendQ, t.ctx.UI()
	t.mapper = ui.NewMapper(set, ui.MapperEvents{
		Emit: func(a action.Action) {
			select {
			case q <- command{a: a}:
			default:
				b.Do(func() { t.setStatus("Too many actions waiting to be sent: slow down.", true) })
			}
		},
		Refused: func(msg string) { b.Do(func() { t.setStatus(msg, true) }) },
	})
	t.view.Sink = t.mapper
	t.view.SetRecording(true)
	t.setStatus(controlText(t.me()), false)
	if t.ctx.Window != nil {
		t.ctx.Window.Canvas().Focus(t.view)
	}
}

// TakeOver asks for control of the watched session.
func (t *Tab) TakeOver() {
	switch {
	case t.watch == nil:
		t.setStatus("Choose a live session to watch first.", true)
		return
	case t.me() == "":
		t.setStatus("Set your name in Settings first: your steps are stored as human:NAME.", true)
		return
	case t.inControl():
		return
	}
	w, name, b, life := t.watch, t.me(), t.ctx.UI(), t.life
	go func() {
		if err := w.TakeOver(life, name); err != nil {
			b.Do(func() { t.setStatus("Could not take over: "+err.Error(), true) })
		}
	}()
}

// HandBack returns control to the agent; typing not sent yet is sent first.
func (t *Tab) HandBack() {
	if t.watch == nil || !t.inControl() {
		return
	}
	if t.mapper != nil {
		t.mapper.Flush()
	}
	// After the actions not sent yet, in the same queue.
	select {
	case t.sendQ <- command{handBack: true}:
	default:
		t.setStatus("Too many actions waiting to be sent: hand back again in a moment.", true)
	}
}

// readOnly refuses input while the person only watches.
type readOnly struct{ t *Tab }

func (r readOnly) msg() {
	r.t.setStatus("Watching only: take over (Ctrl+Shift+T) to act on the page.", true)
}
func (r readOnly) Click(int, int)          { r.msg() }
func (r readOnly) Drag(int, int, int, int) { r.msg() }
func (r readOnly) Rune(rune)               { r.msg() }
func (r readOnly) Key(fyne.KeyName, bool)  { r.msg() }
func (r readOnly) Wheel(float32)           { r.msg() }
func (r readOnly) Hover(int, int)          {}
func (r readOnly) Shortcut(s fyne.Shortcut) bool {
	return r.t.TypedShortcut(s)
}
func (r readOnly) Refuse(m string) { r.t.setStatus(m, true) }
