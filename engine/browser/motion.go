package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"image"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

//go:embed motion.js
var animatedScript string

//go:embed motionat.js
var boxesAtScript string

// motionRegion is a region as the page scripts return it.
type motionRegion struct {
	X   int    `json:"x"`
	Y   int    `json:"y"`
	W   int    `json:"w"`
	H   int    `json:"h"`
	Why string `json:"why"`
}

// shown is the tab of the episode's last observation, also after the
// episode ended; engine.ErrResetBeforeStepping when there is none.
func (e *Engine) shown() (*tab, error) {
	if e.closed {
		return nil, engine.ErrClosed
	}
	if e.ep == nil || e.ep.tab == nil || e.ep.tab.gone() {
		return nil, engine.ErrResetBeforeStepping
	}
	return e.ep.tab, nil
}

// Animated lists the regions endless CSS animations and Web Animations of
// the top document (and its open shadow roots) paint in (engine.Motion).
// Each animation is sampled over its current iteration by setting its
// currentTime and setting it back in the same task: no frame is drawn in
// between and the animation stays in its iteration, so no event fires.
// The first 50 such animations are read; animations inside frames are not
// seen.
func (e *Engine) Animated(ctx context.Context) ([]engine.Region, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, err := e.shown()
	if err != nil {
		return nil, err
	}
	var raw []motionRegion
	err = t.do(ctx, e.set.OpTimeout, func(ctx context.Context) error {
		var err error
		raw, err = chromedp.Run(ctx, chromedp.Evaluate[[]motionRegion](animatedScript))
		return err
	})
	return regions(raw), err
}

// Screenshot captures the viewport again (engine.Motion).
func (e *Engine) Screenshot(ctx context.Context) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, err := e.shown()
	if err != nil {
		return nil, err
	}
	return t.screenshot(ctx, e.set.OpTimeout)
}

// BoxesAt returns the box of what is painted at each point (engine.Motion).
func (e *Engine) BoxesAt(ctx context.Context, pts []image.Point) ([]engine.Region, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, err := e.shown()
	if err != nil {
		return nil, err
	}
	xy := make([][2]int, len(pts))
	for i, p := range pts {
		xy[i] = [2]int{p.X, p.Y}
	}
	arg, err := json.Marshal(xy)
	if err != nil {
		return nil, err
	}
	var raw []*motionRegion
	err = t.do(ctx, e.set.OpTimeout, func(ctx context.Context) error {
		var err error
		raw, err = chromedp.Run(ctx, chromedp.Evaluate[[]*motionRegion]("("+boxesAtScript+")("+string(arg)+")"))
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]engine.Region, len(pts))
	for i, r := range raw {
		if i < len(out) && r != nil {
			out[i] = engine.Region{X: r.X, Y: r.Y, W: r.W, H: r.H, Why: r.Why}
		}
	}
	return out, nil
}

func regions(raw []motionRegion) []engine.Region {
	out := make([]engine.Region, 0, len(raw))
	for _, r := range raw {
		out = append(out, engine.Region{X: r.X, Y: r.Y, W: r.W, H: r.H, Why: r.Why})
	}
	return out
}

var _ engine.Motion = (*Engine)(nil)
