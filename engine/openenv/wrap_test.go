package openenv

import (
	"context"
	"testing"

	"waymark/engine"
	"waymark/engine/har"
)

// capableSketch is a sketch engine with the optional interfaces of the
// browser engine that an episode wrapper (the recorder) looks for.
type capableSketch struct{ *sketchEngine }

func (capableSketch) TakeHAR(bool) har.Capture { return har.Capture{Entries: []har.Entry{{Step: 3}}} }
func (capableSketch) Frames() <-chan engine.Frame {
	ch := make(chan engine.Frame, 1)
	ch <- engine.Frame{Seq: 5}
	return ch
}
func (c capableSketch) Observe(context.Context) (engine.Observation, error) {
	return engine.Observation{URL: "observed"}, nil
}

// The engine an episode wrapper gets keeps Close from the session's engine
// and hides none of its optional interfaces: a recorder around it finds
// the network capture, the live frames and the observer.
func TestWrapEpisodeSeesTheEnginesCapabilities(t *testing.T) {
	sk := newSketch()
	got := make(chan engine.Engine, 1)
	_, hs := testServer(t, Options{
		NewEngine: func(context.Context) (engine.Engine, error) { return capableSketch{sk}, nil },
		WrapEpisode: func(base engine.Engine, _ EpisodeStart) (engine.Engine, error) {
			got <- base
			return base, nil
		},
	})
	c := dialRaw(t, hs)
	if code, msg := errCode(t, c.call(`{"type":"reset","data":{"start_url":"http://a.test/"}}`)); code != "" {
		t.Fatalf("reset: %s %s", code, msg)
	}
	base := <-got
	if nc, ok := engine.As[engine.NetworkCapture](base); !ok {
		t.Error("the wrapper's engine hides the network capture")
	} else if nc.TakeHAR(false).Entries[0].Step != 3 {
		t.Error("the network capture found is not the session engine's")
	}
	if lf, ok := engine.As[engine.LiveFrames](base); !ok {
		t.Error("the wrapper's engine hides the live frames")
	} else if f := <-lf.Frames(); f.Seq != 5 {
		t.Error("the live frames found are not the session engine's")
	}
	if o, ok := engine.As[engine.Observer](base); !ok {
		t.Error("the wrapper's engine hides the observer")
	} else if obs, _ := o.Observe(context.Background()); obs.URL != "observed" {
		t.Error("the observer found is not the session engine's")
	}
	if err := base.Close(); err != nil || sk.closed.Load() {
		t.Errorf("closing the wrapper's engine closed the session's engine (%v)", err)
	}
}
