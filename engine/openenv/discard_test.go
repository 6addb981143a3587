package openenv

import (
	"context"
	"sync"
	"testing"

	"waymark/engine"
)

// discardRec is an episode wrapper that remembers whether it was discarded
// before it was closed.
type discardRec struct {
	engine.Engine
	mu                  sync.Mutex
	discarded, whenShut bool
	closed              bool
}

func (d *discardRec) Discard() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.discarded = true
	return nil
}

func (d *discardRec) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed, d.whenShut = true, d.discarded
	return nil
}

func (d *discardRec) state() (closed, discardedFirst bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed, d.whenShut
}

// A client that discarded its episode says so as it closes (the close
// frame's reason): the server's episode is discarded before it is closed.
// A client that just closes leaves it to end as it would.
func TestClientDiscardReachesTheServer(t *testing.T) {
	for _, discard := range []bool{true, false} {
		rec := &discardRec{}
		srv, hs := testServer(t, Options{
			NewEngine:   func(context.Context) (engine.Engine, error) { return newSketch(), nil },
			WrapEpisode: func(base engine.Engine, _ EpisodeStart) (engine.Engine, error) { rec.Engine = base; return rec, nil }})
		ctx := context.Background()
		c, err := Dial(ctx, hs.URL, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
			t.Fatal(err)
		}
		if discard {
			if err := c.Discard(); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the session to end", func() bool { return srv.ActiveSessions() == 0 })
		closed, discarded := rec.state()
		if !closed || discarded != discard {
			t.Errorf("client discard %v: the server's episode closed %v, discarded before %v", discard, closed, discarded)
		}
	}
}
