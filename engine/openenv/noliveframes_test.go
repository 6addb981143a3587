package openenv

import (
	"context"
	"sync/atomic"
	"testing"

	"waymark/engine"
	"waymark/engine/openenv/control"
)

// framesSketch is a sketch engine with live frames; it counts who asked
// for them.
type framesSketch struct {
	*sketchEngine
	asked *atomic.Int32
	ch    chan engine.Frame
}

func (f framesSketch) Frames() <-chan engine.Frame {
	f.asked.Add(1)
	return f.ch
}

// With NoLiveFrames (a redaction policy is in force) a watcher gets the
// redacted steps only: the session's live frames are never asked for, so
// no frame of the live page leaves the engine. Without it they are.
func TestNoLiveFramesUnderARedactionPolicy(t *testing.T) {
	for _, no := range []bool{true, false} {
		var asked atomic.Int32
		_, hs := testServer(t, Options{MaxSessions: 1, NoLiveFrames: no, NewEngine: func(context.Context) (engine.Engine, error) {
			return framesSketch{newSketch(), &asked, make(chan engine.Frame, 1)}, nil
		}})
		agent := dialRaw(t, hs)
		agent.call(`{"type":"reset","data":{"start_url":"http://shop.test/","agent":"bot"}}`)
		list, err := control.ListSessions(bg(), hs.URL)
		if err != nil || len(list) != 1 {
			t.Fatalf("sessions %v %v", list, err)
		}
		w := watch(t, hs.URL, list[0].ID)
		waitWatch(t, w, "the reset", func(ev control.WatchEvent) bool { return ev.Step != nil })
		if got := asked.Load() > 0; got == no {
			t.Errorf("NoLiveFrames %v: live frames asked for: %v", no, got)
		}
	}
}
