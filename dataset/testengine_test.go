package dataset

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// wmEngine is a small but real engine.Engine for the store's tests (the
// browser engine lives elsewhere): it validates actions like the real one,
// keeps a page state (URL, a counter, a typed text), renders every
// observation as an 800×600 PNG of that state, ends the episode on finish or
// at the step limit and runs the task's answer or URL check.
type wmEngine struct {
	mu       sync.Mutex
	set      action.Set
	maxSteps int
	opts     engine.ResetOptions
	url      string
	step     int
	text     string
	done     bool
	closed   bool
	frames   chan engine.Frame
	shots    [][]byte // pre-rendered pages, to keep tests fast
}

func newWMEngine(set action.Set, maxSteps int) *wmEngine {
	e := &wmEngine{set: set, maxSteps: maxSteps, frames: make(chan engine.Frame, 1)}
	for i := 0; i < 4; i++ {
		e.shots = append(e.shots, wmPagePNG(int64(i)))
	}
	return e
}

func (e *wmEngine) observe() engine.Observation {
	return engine.Observation{Step: e.step, Screenshot: e.shots[e.step%len(e.shots)], URL: e.url, Title: "Page " + e.url,
		Timings: action.Timings{ActionMS: 3, SettleMS: 10, CaptureMS: 20, TotalMS: 33}}
}

func (e *wmEngine) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return engine.Observation{}, errors.New("engine closed")
	}
	if err := action.CheckURL(opts.StartURL); err != nil {
		return engine.Observation{}, err
	}
	e.opts, e.url, e.step, e.text, e.done = opts, opts.StartURL, 0, "", false
	select {
	case e.frames <- engine.Frame{JPEG: []byte{0xff, 0xd8}, Width: 800, Height: 600, At: time.Now()}:
	default:
	}
	return e.observe(), nil
}

func (e *wmEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := a.Validate(e.set); err != nil {
		return engine.Observation{}, err
	}
	if e.opts.StartURL == "" || e.done {
		return engine.Observation{}, errors.New(action.MsgResetBeforeStepping)
	}
	e.step++
	switch a.Op {
	case action.Click:
		e.url = e.opts.StartURL + "#clicked-" + strconv.Itoa(*a.X)
	case action.Type:
		e.text += a.Text
	case action.Back:
		e.url = e.opts.StartURL
	}
	obs := e.observe()
	if a.Op == action.Finish {
		obs.Done, obs.EndReason, obs.Answer = true, action.EndFinished, a.Text
	} else if e.maxSteps > 0 && e.step >= e.maxSteps {
		obs.Done, obs.EndReason = true, action.EndStepLimit
	}
	if obs.Done {
		e.done = true
		if c := e.opts.Check; c != nil {
			r := 0.0
			ok := false
			switch c.Kind {
			case action.CheckKindAnswer:
				ok = c.MatchAnswer(obs.Answer)
			case action.CheckKindURL:
				ok, _ = c.MatchURL(obs.URL)
			}
			if ok {
				r = 1
			}
			obs.Reward = &r
		}
	}
	return obs, nil
}

func (e *wmEngine) State() engine.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return engine.State{EpisodeID: e.opts.EpisodeID, StepCount: e.step, Done: e.done, MaxSteps: e.maxSteps}
}

func (e *wmEngine) Info() engine.Info {
	return engine.Info{Kind: "local", Display: "headless", Browser: "wmEngine test", ActionSet: e.set, MaxSteps: e.maxSteps}
}

func (e *wmEngine) Frames() <-chan engine.Frame { return e.frames }

func (e *wmEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.closed = true
		close(e.frames)
	}
	return nil
}

// wmPagePNG draws an 800×600 picture shaped like a web page (header bar,
// columns of text-like glyph runs, an image block with a gradient, buttons)
// and encodes it as PNG with Go's default compression, like a screenshot.
// Each seed's picture is made once per package run.
func wmPagePNG(seed int64) []byte {
	if b, ok := wmPagePNGs.Load(seed); ok {
		return bytes.Clone(b.([]byte))
	}
	rnd := rand.New(rand.NewSource(seed))
	img := image.NewNRGBA(image.Rect(0, 0, 800, 600))
	fill := func(x0, y0, x1, y1 int, c color.NRGBA) {
		for y := max(y0, 0); y < min(y1, 600); y++ {
			for x := max(x0, 0); x < min(x1, 800); x++ {
				i := img.PixOffset(x, y)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
			}
		}
	}
	fill(0, 0, 800, 600, color.NRGBA{250, 250, 248, 255})
	fill(0, 0, 800, 56, color.NRGBA{uint8(30 + seed*20), 60, 110, 255})
	// An image block with a gradient and noise (photos compress badly).
	for y := 80; y < 280; y++ {
		for x := 24; x < 344; x++ {
			i := img.PixOffset(x, y)
			n := uint8(rnd.Intn(24))
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x/2)+n, uint8(y/2)+n, 160+n, 255
		}
	}
	// Text: runs of small dark glyph boxes with anti-aliased edges.
	for line := 0; line < 26; line++ {
		y := 80 + line*20
		x0 := 370
		if y > 290 {
			x0 = 24
		}
		x := x0
		for x < 770 {
			w := 4 + rnd.Intn(7)
			if rnd.Intn(6) == 0 {
				x += 6 // a space
				continue
			}
			g := uint8(20 + rnd.Intn(40))
			fill(x, y, x+w, y+10, color.NRGBA{g, g, g + 10, 255})
			fill(x+w, y, x+w+1, y+10, color.NRGBA{180, 180, 180, 255})
			x += w + 2
		}
	}
	fill(24, 560, 160, 590, color.NRGBA{220, 90, 40, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	wmPagePNGs.Store(seed, buf.Bytes())
	return bytes.Clone(buf.Bytes())
}

var wmPagePNGs sync.Map // seed → PNG

// wmStore opens a fresh store in a temporary folder.
func wmStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "waymark.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wmTask adds a task and returns it.
func wmTask(t testing.TB, s *Store, goal, category, url string) Task {
	t.Helper()
	task, err := s.AddTask(t.Context(), Task{Goal: goal, Category: category, StartURL: url, Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// oldStore makes a store file as schema version v left it: migrations up to
// v, user_version v, then the seed statements. It returns the file's path.
func oldStore(t *testing.T, v int, seed string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", v))
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range migrations[:v] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d;", v) + seed); err != nil {
		t.Fatal(err)
	}
	return path
}
