package sessions

import (
	"bytes"
	"context"
	"image/png"

	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/openenv/control"
)

// The watch: a connection to one session's events, read on a goroutine
// of its own and handed to the Fyne goroutine over the bridge; the
// person's commands go out on another.

// WatchSession starts watching session id (ending the watch before).
func (t *Tab) WatchSession(id string) {
	t.stopWatch()
	t.gen++
	gen := t.gen
	t.watchID, t.summary, t.ended, t.steps = id, nil, "", nil
	t.timeline.Refresh()
	t.view.SetHint(hintConnecting, true)
	t.setStatus("Connecting to session "+id+"…", false)
	t.sync()
	ctx, cancel := context.WithCancel(t.life)
	t.stop = cancel
	b := t.ctx.UI()
	base := t.base
	go func() {
		w, err := control.Watch(ctx, base, id)
		if err != nil {
			b.Do(func() {
				if gen == t.gen {
					t.setStatus(err.Error(), true)
				}
			})
			return
		}
		b.Do(func() {
			if gen != t.gen {
				_ = w.Close()
				return
			}
			t.watch = w
			t.sendQ = make(chan command, 64)
			go sendCommands(ctx, w, t.sendQ)
			t.setStatus(watchingText(), false)
		})
		t.read(ctx, gen, w)
	}()
}

// sendCommands sends the person's actions and the hand-back in order.
func sendCommands(ctx context.Context, w *control.WatchConn, q <-chan command) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-q:
			var err error
			if c.handBack {
				err = w.HandBack(ctx)
			} else {
				err = w.Step(ctx, c.a)
			}
			if err != nil {
				return
			}
		}
	}
}

// read hands the watch's events to the Fyne goroutine until it ends.
func (t *Tab) read(ctx context.Context, gen int, w *control.WatchConn) {
	b := t.ctx.UI()
	frames := make(chan engine.Frame, 1)
	go t.pump.Run(ctx, frames)
	for {
		ev, err := w.Next(ctx)
		if err != nil {
			b.Do(func() {
				if gen == t.gen && t.ended == "" && ctx.Err() == nil {
					t.ended = "the connection was lost"
					t.setStatus("The watch of this session ended: "+err.Error(), true)
					t.sync()
				}
			})
			return
		}
		if f := ev.Frame; f != nil {
			select { // the newest frame replaces one not decoded yet
			case <-frames:
			default:
			}
			frames <- engine.Frame{JPEG: f.JPEG, Width: f.Width, Height: f.Height, Seq: f.Seq}
			continue
		}
		if st := ev.Step; st != nil && len(st.Screenshot) > 0 {
			if img, err := png.Decode(bytes.NewReader(st.Screenshot)); err == nil {
				t.pump.Offer(replay.ToRGBA(img))
			}
		}
		b.Do(func() {
			if gen == t.gen {
				t.event(ev)
			}
		})
	}
}

// event applies one watch event (Fyne goroutine).
func (t *Tab) event(ev control.WatchEvent) {
	switch {
	case ev.Session != nil:
		was := t.inControl()
		t.summary = ev.Session
		t.debugf("sessions control %s waiting=%v connected=%v", ev.Session.Control, ev.Session.AgentWaiting, ev.Session.AgentConnected)
		for i := range t.items {
			if t.items[i].ID == ev.Session.ID {
				t.items[i] = *ev.Session
				t.list.RefreshItem(i)
			}
		}
		if now := t.inControl(); now != was {
			t.controlChanged(now)
		}
	case ev.Step != nil:
		st := *ev.Step
		st.Screenshot = nil
		t.logPlace()
		t.debugf("sessions step %d by %s", st.Step, st.Actor)
		t.steps = append(t.steps, st)
		t.timeline.Refresh()
		t.timeline.ScrollToBottom()
	case ev.Error != nil:
		t.setStatus(ev.Error.Message, true)
	case ev.Ended != "":
		t.ended = ev.Ended
		t.setStatus("The session ended ("+ev.Ended+").", false)
		if t.mapper != nil {
			t.controlChanged(false)
		}
	}
	t.sync()
}

// stopWatch ends the watch (a person in control hands back).
func (t *Tab) stopWatch() {
	if t.mapper != nil {
		t.controlChanged(false)
	}
	if t.stop != nil {
		t.stop()
		t.stop = nil
	}
	if t.watch != nil {
		w := t.watch
		go func() { _ = w.Close() }() // a person in control hands back
		t.watch = nil
	}
}
