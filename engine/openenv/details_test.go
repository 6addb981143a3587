package openenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

// detailedEngine is the sketch engine with a page title and step timings,
// as the local browser engine reports them.
type detailedEngine struct{ *sketchEngine }

func (e detailedEngine) detail(o engine.Observation) engine.Observation {
	o.Title = "Shop — step " + string(rune('0'+o.Step))
	o.Timings = action.Timings{ActionMS: 11 + int64(o.Step), SettleMS: 220, CaptureMS: 33, TotalMS: 270 + int64(o.Step), SettledBy: action.SettledQuiet}
	return o
}

func (e detailedEngine) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	o, err := e.sketchEngine.Reset(ctx, opts)
	return e.detail(o), err
}

func (e detailedEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	o, err := e.sketchEngine.Step(ctx, a)
	return e.detail(o), err
}

// A client that asks for step details (Waymark's app) gets the server's
// page titles and timings; the store of the app then has what the server's
// store has, not empty titles and 0 ms.
func TestClientGetsTitlesAndTimingsWhenAsked(t *testing.T) {
	// Two sessions: the first client's may still be closing when the
	// second dials.
	_, hs := testServer(t, Options{MaxSessions: 2, NewEngine: func(context.Context) (engine.Engine, error) {
		return detailedEngine{newSketch()}, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, ask := range []bool{true, false} {
		c, err := Dial(ctx, hs.URL, ClientOptions{StepDetails: ask,
			ResetExtra: FactsMetadata(EpisodeFacts{Goal: "buy", Category: "interaction", Annotator: "ann"})})
		if err != nil {
			t.Fatal(err)
		}
		want := detailedEngine{}
		o0, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://shop.example/"})
		if err != nil {
			t.Fatal(err)
		}
		o1, err := c.Step(ctx, action.ClickAt(5, 6))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []engine.Observation{o0, o1} {
			w := want.detail(engine.Observation{Step: o.Step})
			if ask {
				if o.Title != w.Title || o.Timings != w.Timings {
					t.Errorf("step %d with details: title %q timings %+v, want %q %+v", o.Step, o.Title, o.Timings, w.Title, w.Timings)
				}
			} else if o.Title != "" || o.Timings.ActionMS != 0 || o.Timings.SettleMS != 0 || o.Timings.CaptureMS != 0 {
				t.Errorf("step %d without details: title %q timings %+v, want none from the server", o.Step, o.Title, o.Timings)
			}
		}
		c.Close()
	}
}

// A client that does not ask (helium's, any Python client) gets exactly the
// reference server's observation: no metadata key.
func TestNoDetailsUnlessAsked(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: func(context.Context) (engine.Engine, error) {
		return detailedEngine{newSketch()}, nil
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	for _, msg := range []string{
		`{"type":"reset","data":{"start_url":"https://shop.example/","metadata":{"annotator":"x"}}}`,
		`{"type":"step","data":{"op":"click","x":1,"y":2}}`,
	} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), `"metadata"`) || strings.Contains(string(got), "Shop") {
			t.Errorf("an observation to a client that did not ask carries details: %.300s", got)
		}
	}
}
