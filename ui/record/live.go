package record

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// liveArea is the live view and what feeds it: the episode's input mapper
// (the person's input, turned into actions), the frame pump (the page's
// picture) and the line under the view that says what is on its way to
// the page. The episode's lifecycle attaches a mapper to it per episode and
// says when input may reach the page (accept) and when it is refused
// (refuse).
type liveArea struct {
	t      *Tab
	view   *ui.LiveView
	mapper *ui.Mapper // the current (or last) episode's

	pump     *ui.FramePump
	pumpStop context.CancelFunc
	// frameless: the engine has no live frames, so each step's screenshot
	// is shown instead.
	frameless bool

	// What the mapper gathered and has not sent yet.
	typing   string
	scrollDY int
}

func (l *liveArea) init(t *Tab) {
	l.t = t
	l.view = ui.NewLiveView(idleSink{t})
	l.view.Schedule = t.ctx.UI().After
	l.view.OnShortcut = t.TypedShortcut
	l.view.OnTouched = func() {
		if l.view.ShowingStill() {
			t.steps.unselect()
		}
	}
}

// attach makes the input mapper of a new episode (set is its action set);
// input is refused until accept.
func (l *liveArea) attach(set action.Set, ev ui.MapperEvents) {
	l.mapper = ui.NewMapper(set, ev)
	l.frameless = false
	l.typing, l.scrollDY = "", 0
}

// attached reports whether an episode's mapper is attached.
func (l *liveArea) attached() bool { return l.mapper != nil }

// accept sends the person's input to the episode's mapper.
func (l *liveArea) accept() { l.view.Sink = l.mapper }

// refuse refuses the person's input, saying why (idleSink).
func (l *liveArea) refuse() { l.view.Sink = idleSink{l.t} }

// do performs a toolbar action after the input gathered before it.
func (l *liveArea) do(a action.Action) { l.mapper.Do(a) }

// flush sends the text typed and the scroll gathered.
func (l *liveArea) flush() {
	if l.mapper != nil {
		l.mapper.Flush()
	}
}

// drop forgets the text typed and the scroll gathered, unsent.
func (l *liveArea) drop() {
	if l.mapper != nil {
		l.mapper.Drop()
	}
}

// setUnsent notes what the mapper gathered and has not sent yet.
func (l *liveArea) setUnsent(text string, dy int) { l.typing, l.scrollDY = text, dy }

// unsent reports whether typing or scrolling waits to be sent.
func (l *liveArea) unsent() bool { return l.typing != "" || l.scrollDY != 0 }

// clearPending forgets what waits to be sent (the episode ended or a new
// one starts).
func (l *liveArea) clearPending() { l.typing, l.scrollDY = "", 0 }

// showPending shows what is on its way to the page under the live view:
// the step running, the queue, the scroll and the text being typed.
func (l *liveArea) showPending(running *action.Action, queued []action.Action) {
	var parts []string
	if running != nil {
		parts = append(parts, "▶ "+running.String())
	}
	if n := len(queued); n > 0 {
		s := make([]string, 0, 3)
		for i, a := range queued {
			if i == 3 {
				s = append(s, "…")
				break
			}
			s = append(s, a.String())
		}
		parts = append(parts, fmt.Sprintf("queued %d: %s", n, strings.Join(s, ", ")))
	}
	if l.scrollDY != 0 {
		parts = append(parts, fmt.Sprintf("scroll %+d…", l.scrollDY))
	}
	if l.typing != "" {
		t := []rune(l.typing)
		if len(t) > 40 {
			t = append([]rune("…"), t[len(t)-40:]...)
		}
		parts = append(parts, "typing “"+string(t)+"▌”")
	}
	l.view.SetPending(strings.Join(parts, "   "))
}

// startFrames shows the engine's live frames, while current holds; an
// engine without them (frames nil) has each step's screenshot shown
// instead (showShot).
func (l *liveArea) startFrames(frames <-chan engine.Frame, current func() bool) {
	if frames == nil {
		l.frameless = true
		return
	}
	ctx, cancel := context.WithCancel(l.t.lifetime)
	l.pumpStop = cancel
	l.pump = ui.NewFramePump(l.t.ctx.UI(), func(img *image.RGBA) {
		if current() {
			l.view.SetFrame(img)
		}
	})
	go l.pump.Run(ctx, frames)
	if l.t.opts.Debugf != nil {
		go l.logFPS(ctx, l.pump)
	}
}

// stopFrames stops the frame pump.
func (l *liveArea) stopFrames() {
	if l.pumpStop != nil {
		l.pumpStop()
		l.pumpStop = nil
	}
}

// showShot shows a step's screenshot when the engine has no live frames,
// decoded off the Fyne goroutine and shown if current still holds then.
func (l *liveArea) showShot(shot []byte, current func() bool) {
	if !l.frameless || len(shot) == 0 {
		return
	}
	go func() {
		img, err := decodePNG(shot)
		if err != nil {
			return
		}
		full := replay.ToRGBA(img)
		l.t.ctx.UI().Do(func() {
			if current() {
				l.view.SetFrame(full)
			}
		})
	}()
}

// logFPS writes the frames shown and decoded each second to the debug log
// until ctx ends.
func (l *liveArea) logFPS(ctx context.Context, p *ui.FramePump) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var lastD, lastS uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d, s := p.Counts()
			if s != lastS {
				l.t.opts.Debugf("frames/s shown=%d decoded=%d", s-lastS, d-lastD)
			}
			lastD, lastS = d, s
		}
	}
}

// focus gives the keyboard to the page.
func (l *liveArea) focus() {
	if w := l.t.ctx.Window; w != nil {
		w.Canvas().Focus(l.view)
	}
}

// idleSink refuses input while no episode records.
type idleSink struct{ r *Tab }

func (s idleSink) msg() {
	m := "Not recording: choose a task and press Start. Input is sent to the page only during an episode."
	switch {
	case s.r.life.replaying != "":
		m = s.r.life.replaying + ": wait until it ends — input now would change the page it brings back."
	case s.r.life.state == stStarting:
		m = "The browser is starting; input is accepted once the page shows."
	}
	s.r.status.setError(m)
}
func (s idleSink) Click(int, int)              { s.msg() }
func (s idleSink) Drag(int, int, int, int)     { s.msg() }
func (s idleSink) Rune(rune)                   { s.msg() }
func (s idleSink) Key(fyne.KeyName, bool)      { s.msg() }
func (s idleSink) Wheel(float32)               { s.msg() }
func (s idleSink) Hover(int, int)              {}
func (s idleSink) Shortcut(fyne.Shortcut) bool { s.msg(); return true }
func (s idleSink) Refuse(m string)             { s.r.status.setError(m) }
