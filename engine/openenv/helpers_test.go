package openenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

// sketchEngine is a small engine.Engine for the protocol-only tests (error
// codes, keep-alive, capacity), where no page is involved: it validates
// like the real engine, counts steps, ends on finish or at its step limit,
// and renders a real PNG. Whole episodes, isolation and teardown use the
// real browser engine.
type sketchEngine struct {
	mu       sync.Mutex
	state    engine.State
	url      string
	maxSteps int
	stepWait time.Duration
	stepGate chan struct{} // when set, a step waits for it to close, after saying so on stepping
	stepping chan struct{}
	closed   atomic.Bool
	shot     []byte
}

func newSketch() *sketchEngine {
	sketchPNG.Do(func() { sketchPNG.png = makeSketchPNG() })
	return &sketchEngine{maxSteps: 20, shot: sketchPNG.png}
}

// sketchPNG is the sketch engine's screenshot, made once per package run.
var sketchPNG struct {
	sync.Once
	png []byte
}

func makeSketchPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, action.ViewportWidth, action.ViewportHeight))
	for y := 0; y < 600; y++ {
		for x := 0; x < 800; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func (e *sketchEngine) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := action.CheckURL(opts.StartURL); err != nil {
		return engine.Observation{}, err
	}
	e.url = opts.StartURL
	e.state = engine.State{EpisodeID: opts.EpisodeID, MaxSteps: e.maxSteps}
	return engine.Observation{Screenshot: e.shot, URL: e.url}, nil
}

func (e *sketchEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := a.Validate(action.SetDefault); err != nil {
		return engine.Observation{}, err
	}
	if e.state.EpisodeID == "" || e.state.Done {
		return engine.Observation{}, engine.ErrResetBeforeStepping
	}
	if e.stepGate != nil {
		e.stepping <- struct{}{}
		select {
		case <-e.stepGate:
		case <-ctx.Done():
			return engine.Observation{}, ctx.Err()
		}
	}
	if e.stepWait > 0 {
		select {
		case <-time.After(e.stepWait):
		case <-ctx.Done():
			return engine.Observation{}, ctx.Err()
		}
	}
	e.state.StepCount++
	o := engine.Observation{Step: e.state.StepCount, Screenshot: e.shot, URL: e.url}
	if a.Op == action.Finish || e.state.StepCount >= e.maxSteps {
		o.Done, e.state.Done = true, true
	}
	return o, nil
}

func (e *sketchEngine) State() engine.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state
}
func (e *sketchEngine) Info() engine.Info {
	return engine.Info{Kind: "sketch", ActionSet: action.SetDefault, MaxSteps: e.maxSteps}
}
func (e *sketchEngine) Close() error { e.closed.Store(true); return nil }

// testServer runs a Server on 127.0.0.1 and closes it at the end of the test.
func testServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	srv, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs
}

func wsURL(hs *httptest.Server) string { return "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws" }

// raw is a bare WebSocket test client that sends exact bytes.
type raw struct {
	t testing.TB
	c *websocket.Conn
}

func dialRaw(t testing.TB, hs *httptest.Server) *raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(hs), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(MaxOutFrame)
	t.Cleanup(func() { _ = c.CloseNow() })
	return &raw{t: t, c: c}
}

// send writes msg as one text frame. The write returns only when the server
// has read the frame, and a 15 MiB frame takes the server ~5 s to read under
// the race detector on an idle machine (copies of the growing buffer are
// instrumented), more on a busy one; so the hang guard is the same 90 s the
// reply gets, not a speed bound.
func (r *raw) send(msg string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := r.c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		r.t.Fatalf("send %s: %v", msg, err)
	}
}

// recv reads one reply (within d).
func (r *raw) recv(d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	typ, data, err := r.c.Read(ctx)
	if err == nil && typ != websocket.MessageText {
		return nil, errors.New("server sent a binary frame")
	}
	return data, err
}

// call sends msg and returns the reply.
func (r *raw) call(msg string) []byte {
	r.t.Helper()
	r.send(msg)
	data, err := r.recv(90 * time.Second)
	if err != nil {
		r.t.Fatalf("reply to %s: %v", msg, err)
	}
	return data
}

// decoded parses a frame into generic JSON (numbers as json.Number).
func decoded(t testing.TB, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("reply is not a JSON object: %v: %s", err, data)
	}
	return m
}

// keysOf lists an object's keys in wire order.
func keysOf(t testing.TB, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", data)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// errCode returns data.code and data.message of an error frame ("" if not one).
func errCode(t testing.TB, data []byte) (code Code, msg string) {
	t.Helper()
	m := decoded(t, data)
	if m["type"] != "error" {
		return "", ""
	}
	d := m["data"].(map[string]any)
	return Code(d["code"].(string)), d["message"].(string)
}
