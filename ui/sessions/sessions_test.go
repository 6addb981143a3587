package sessions

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/ui"
)

// pageEngine is a small engine for the screen's tests: it counts steps,
// follows a click's x into the URL, draws a real PNG per observation and
// streams real JPEG frames (engine.LiveFrames) when told to.
type pageEngine struct {
	mu     sync.Mutex
	st     engine.State
	url    string
	frames chan engine.Frame
	closed bool
}

func newPageEngine() *pageEngine { return &pageEngine{frames: make(chan engine.Frame, 1)} }

func picture(shade uint8) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, action.ViewportWidth, action.ViewportHeight))
	for y := 0; y < action.ViewportHeight; y++ {
		for x := 0; x < action.ViewportWidth; x++ {
			img.Set(x, y, color.RGBA{shade, uint8(x), uint8(y), 255})
		}
	}
	return img
}

func pngOf(shade uint8) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, picture(shade))
	return b.Bytes()
}

func (e *pageEngine) obs() engine.Observation {
	return engine.Observation{Step: e.st.StepCount, URL: e.url, Screenshot: pngOf(uint8(40 * e.st.StepCount))}
}

func (e *pageEngine) Reset(ctx context.Context, o engine.ResetOptions) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.url, e.st = o.StartURL, engine.State{EpisodeID: o.EpisodeID}
	return e.obs(), nil
}

func (e *pageEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := a.Validate(action.SetDefault); err != nil {
		return engine.Observation{}, err
	}
	e.st.StepCount++
	if a.Op == action.Click {
		e.url = strings.TrimRight(e.url, "/") + "/clicked"
	}
	o := e.obs()
	o.Done = a.Op == action.Finish
	e.st.Done = o.Done
	return o, nil
}

// push streams one JPEG frame.
func (e *pageEngine) push(shade uint8) {
	var b bytes.Buffer
	_ = jpeg.Encode(&b, picture(shade), nil)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		select {
		case e.frames <- engine.Frame{JPEG: b.Bytes(), Width: 800, Height: 600, At: time.Now()}:
		default:
		}
	}
}

func (e *pageEngine) State() engine.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}
func (e *pageEngine) Info() engine.Info {
	return engine.Info{Kind: "test", ActionSet: action.SetDefault}
}
func (e *pageEngine) Frames() <-chan engine.Frame { return e.frames }
func (e *pageEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		close(e.frames)
	}
	return nil
}

// mainLoop runs the bridge's hand-offs on the test goroutine.
type mainLoop struct{ ch chan func() }

func (m *mainLoop) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case f := <-m.ch:
			f()
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// The Sessions screen against a real OpenEnv server: it lists the live
// session, shows the agent's steps and the live frames read-only, says
// who is in control, takes over (a click on the live view becomes the
// person's step, the agent's step is held), and hands back (the agent's
// held step is answered with the intervention, not performed).
func TestSessionsScreenWatchesAndTakesOver(t *testing.T) {
	test.NewTempApp(t)
	engines := make(chan *pageEngine, 1)
	srv, err := openenv.NewServer(openenv.Options{Logf: t.Logf, NewEngine: func(context.Context) (engine.Engine, error) {
		e := newPageEngine()
		engines <- e
		return e, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer func() {
		srv.Close()
		hs.Close()
	}()
	ctx := context.Background()
	agent, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := agent.ResetWith(ctx, engine.ResetOptions{StartURL: "http://shop.test/"}, map[string]any{"agent": "bot"}); err != nil {
		t.Fatal(err)
	}
	eng := <-engines
	if _, err := agent.Step(ctx, action.ScrollBy(100)); err != nil {
		t.Fatal(err)
	}

	m := &mainLoop{ch: make(chan func(), 1024)}
	uctx := &ui.Context{Bridge: ui.NewBridgeWith(func(f func()) { m.ch <- f }), User: func() string { return "ann" }}
	tab := New(uctx)
	defer tab.Close()
	w := test.NewTempWindow(t, tab.Content())
	uctx.Window = w
	w.Resize(fyne.NewSize(1500, 900))

	if mw := tab.Content().MinSize().Width; mw > ui.MaxTabWidth {
		t.Errorf("the screen asks for %.0f wide, more than a tab may (%d)", mw, ui.MaxTabWidth)
	}
	tab.server.SetText(hs.URL)
	tab.Connect()
	m.until(t, "the session listed", func() bool { return len(tab.Sessions()) == 1 })
	if s := tab.Sessions()[0]; s.Control != "agent:bot" || s.Steps != 1 {
		t.Fatalf("listed %+v", s)
	}
	tab.list.Select(0)
	m.until(t, "the agent's steps and its control", func() bool {
		return len(tab.Steps()) == 2 && strings.Contains(tab.Banner(), "agent:bot is in control") && tab.View().FramesShown() > 0
	})
	// The timeline has the steps made before the watch began.
	if st := tab.Steps(); st[0].Step != 0 || st[1].Step != 1 {
		t.Fatalf("timeline on watching %+v, want steps 0 and 1", st)
	}
	shown := tab.View().FramesShown()
	eng.push(200)
	m.until(t, "a live frame", func() bool { return tab.View().FramesShown() > shown })
	if _, err := agent.Step(ctx, action.ScrollBy(100)); err != nil {
		t.Fatal(err)
	}
	m.until(t, "the agent's second step", func() bool { return len(tab.Steps()) == 3 })
	if st := tab.Steps()[2]; st.Actor != "agent:bot" || st.Step != 2 {
		t.Fatalf("timeline %+v", st)
	}

	// Read-only: a click is refused and sent nowhere.
	click := func() {
		at := &desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(400, 300)}, Button: desktop.MouseButtonPrimary}
		tab.View().MouseDown(at)
		tab.View().MouseUp(at)
	}
	click()
	if !strings.Contains(tab.status.Text, "Watching only") || eng.State().StepCount != 2 {
		t.Fatalf("a click while watching: %q, engine steps %d", tab.status.Text, eng.State().StepCount)
	}

	tab.TypedShortcut(takeKey)
	m.until(t, "the person in control", func() bool { return strings.Contains(tab.Banner(), "YOU ARE IN CONTROL (human:ann)") })
	held := make(chan engine.Observation, 1)
	go func() {
		o, err := agent.Step(ctx, action.ScrollBy(100))
		if err != nil {
			t.Error(err)
		}
		held <- o
	}()
	m.until(t, "the agent's step held", func() bool { return strings.Contains(tab.Banner(), "the agent's next step is held") })
	click()
	m.until(t, "the person's step", func() bool { return len(tab.Steps()) == 4 })
	if st := tab.Steps()[3]; st.Actor != "human:ann" || !strings.Contains(string(st.Action), `"click"`) {
		t.Fatalf("the person's step %+v", st)
	}
	tab.TypedShortcut(backKey)
	m.until(t, "the agent back in control", func() bool { return strings.Contains(tab.Banner(), "agent:bot is in control") })
	o := <-held
	if string(o.Error) != openenv.ErrorNotExecuted || o.URL != "http://shop.test/clicked" || eng.State().StepCount != 3 {
		t.Fatalf("the held step: error %q url %q; engine steps %d", o.Error, o.URL, eng.State().StepCount)
	}
}
