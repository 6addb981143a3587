package browser

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"slices"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
	"waymark/engine/redact"
)

// Redaction at capture (Settings.Redact): before an observation leaves the
// engine, the boxes of what the policy calls personal are found in the page
// itself (redact.js: form fields, selected elements, runs of text, in every
// frame) from the same frame the screenshot shows — found, captured, found
// again, and captured again when the two findings differ, so text that
// appears in between is not missed — and burnt into the screenshot as solid
// boxes (never a blur). The values found join the episode's known values,
// which replace text in the accessibility tree, the DOM snapshot and the
// network capture (with the policy's patterns). The person recording sees
// the live page; everything stored, and what goes to an agent or a watcher,
// is the redacted observation.

//go:embed redact.js
var redactScript string

// redactTries bounds the find-capture-find rounds of one observation.
const redactTries = 3

// personal is what redact.js found in one frame.
type personal struct {
	Boxes  []action.RedactBox `json:"boxes"`
	Values []string           `json:"values"`
	Frames []box              `json:"frames"`
}

type box struct{ X, Y, W, H int }

// redactExpr is redact.js called with p: the function the document has
// installed (redactInstall), else the whole script.
func redactExpr(p *redact.Policy) string {
	pj, _ := json.Marshal(p)
	return `(() => { const f = window[Symbol.for('waymark.redact')]; return typeof f === 'function' ? f(` + string(pj) + `) : (` +
		redactScript + `)(` + string(pj) + `); })()`
}

// redactInstall is the page script's part that installs redact.js in a
// document (pageEnv.script, under a policy).
var redactInstall = `(() => { const K = Symbol.for('waymark.redact'); if (!window[K]) Object.defineProperty(window, K, {value: ` +
	redactScript + `, enumerable: false}); })()`

// findPersonal finds the policy's boxes in the tab's page and in its
// frames that the page's script cannot read (cross-origin ones): each is
// asked in its own context, its boxes moved by its place in the page; a
// frame that cannot be asked is blacked out whole.
func (e *Engine) findPersonal(ctx context.Context, t *tab) (personal, error) {
	expr := redactExpr(e.redactPolicy())
	var p personal
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		p, err = chromedp.Run(c, chromedp.Evaluate[personal](expr))
		return err
	})
	if err != nil || len(p.Frames) == 0 {
		return p, err
	}
	// The frames to ask: the page's own children (its frame tree has the
	// ones in its process) and its out-of-process frames (targets).
	var ids []cdp.FrameID
	if err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
		if err == nil && tree.FrameTree != nil {
			for _, ch := range tree.FrameTree.ChildFrames {
				if ch.Frame != nil {
					ids = append(ids, ch.Frame.ID)
				}
			}
		}
		return err
	}); err != nil {
		return blackFrames(p), nil
	}
	t.mu.Lock()
	for id, fc := range t.frameCtx {
		if fc.Err() == nil {
			ids = append(ids, cdp.FrameID(id))
		}
	}
	t.mu.Unlock()
	covered := make([]bool, len(p.Frames))
	for _, id := range ids {
		fp, at, ok := e.personalInFrame(ctx, t, id, expr)
		if !ok {
			continue
		}
		// The frame's shown part is the one of p.Frames it starts in.
		for i, fr := range p.Frames {
			if at.X >= fr.X-2 && at.X <= fr.X+fr.W && at.Y >= fr.Y-2 && at.Y <= fr.Y+fr.H {
				covered[i] = true
				for _, b := range fp.Boxes {
					b.X, b.Y = b.X+at.X, b.Y+at.Y
					if c, ok := clipBox(b, fr); ok {
						p.Boxes = append(p.Boxes, c)
					}
				}
				p.Values = append(p.Values, fp.Values...)
				break
			}
		}
	}
	for i, fr := range p.Frames {
		if !covered[i] {
			p.Boxes = append(p.Boxes, action.RedactBox{X: fr.X, Y: fr.Y, W: fr.W, H: fr.H, Why: "a cross-origin frame Waymark could not look into"})
		}
	}
	return p, nil
}

// personalInFrame runs the finder in a frame of the tab (its own target
// when it runs in another process, else its page's context) and returns
// its findings and the top-left corner of its content in the page.
func (e *Engine) personalInFrame(ctx context.Context, t *tab, id cdp.FrameID, expr string) (personal, box, bool) {
	var at box
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		owner, err := chromedp.Call(c, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: id})
		if err != nil {
			return err
		}
		bm, err := chromedp.Call(c, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil || bm.Model == nil || len(bm.Model.Content) < 2 {
			return fmt.Errorf("no box for frame %s: %v", id, err)
		}
		at = box{X: int(bm.Model.Content[0] + 0.5), Y: int(bm.Model.Content[1] + 0.5)}
		return nil
	})
	if err != nil {
		return personal{}, at, false
	}
	t.mu.Lock()
	fc := t.frameCtx[target.ID(id)] // an out-of-process frame's target id is its frame id
	xc, inProcess := t.execCtx[id]
	cid := xc.id
	t.mu.Unlock()
	var p personal
	switch {
	case fc != nil && fc.Err() == nil:
		p, _, err = evalInFrame[personal](ctx, fc, time.Now().Add(e.set.OpTimeout), expr)
	case inProcess:
		err = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
			var err error
			p, err = chromedp.Run(c, chromedp.Evaluate[personal](expr, func(ep *runtime.EvaluateParams) { ep.ContextID = cid }))
			return err
		})
	default:
		return personal{}, at, false
	}
	return p, at, err == nil
}

// blackFrames blacks out every frame the page's script could not read.
func blackFrames(p personal) personal {
	for _, fr := range p.Frames {
		p.Boxes = append(p.Boxes, action.RedactBox{X: fr.X, Y: fr.Y, W: fr.W, H: fr.H, Why: "a cross-origin frame Waymark could not look into"})
	}
	return p
}

func clipBox(b action.RedactBox, to box) (action.RedactBox, bool) {
	x0, y0 := max(b.X, to.X), max(b.Y, to.Y)
	x1, y1 := min(b.X+b.W, to.X+to.W), min(b.Y+b.H, to.Y+to.H)
	if x1 <= x0 || y1 <= y0 {
		return b, false
	}
	b.X, b.Y, b.W, b.H = x0, y0, x1-x0, y1-y0
	return b, true
}

// redactPolicy is the episode's redaction policy: the reset's own when it
// chose one (a task's), else the engine's Settings.Redact; nil for none.
func (e *Engine) redactPolicy() *redact.Policy {
	if e.policySet {
		return e.policy
	}
	return e.set.Redact
}

// observeShot is the observation's screenshot and page info: capture,
// with the policy's boxes burnt in when the engine has one.
func (e *Engine) observeShot(ctx context.Context, t *tab) (png []byte, in pageInfo, shotErr, infErr error) {
	if e.redactPolicy() == nil {
		return e.capture(ctx, t)
	}
	return e.captureRedacted(ctx, t)
}

// captureRedacted is capture with the policy's boxes burnt in: found,
// captured, found again; when the findings differ (the page changed in
// between) it captures again, and after redactTries rounds it burns every
// box any round found. The boxes and values are kept on the tab for the
// observation (takeRedaction).
func (e *Engine) captureRedacted(ctx context.Context, t *tab) (png []byte, in pageInfo, shotErr, infErr error) {
	var all []action.RedactBox
	var values []string
	var before personal
	var err error
	if before, err = e.findPersonal(ctx, t); err != nil {
		e.logf("browser: could not look for personal data before the screenshot: %v", err)
	}
	for try := 1; ; try++ {
		png, in, shotErr, infErr = e.capture(ctx, t)
		if shotErr != nil || infErr != nil {
			break
		}
		after, err := e.findPersonal(ctx, t)
		if err != nil {
			e.logf("browser: could not look for personal data after the screenshot: %v", err)
		}
		all = append(append(all, before.Boxes...), after.Boxes...)
		values = append(append(values, before.Values...), after.Values...)
		if sameBoxes(before.Boxes, after.Boxes) || try == redactTries {
			break
		}
		before = after
		all, values = all[:0], values[:0]
	}
	boxes := unionBoxes(all)
	if len(boxes) > 0 && shotErr == nil && len(png) > 0 {
		burnt, err := burnBoxes(png, boxes)
		if err != nil {
			return nil, in, fmt.Errorf("could not black out personal data in the screenshot: %w", err), infErr
		}
		png = burnt
	}
	t.mu.Lock()
	t.redaction = boxes
	t.mu.Unlock()
	e.knowPersonal(values)
	return png, in, shotErr, infErr
}

func sameBoxes(a, b []action.RedactBox) bool {
	return slices.EqualFunc(a, b, func(x, y action.RedactBox) bool { return x.X == y.X && x.Y == y.Y && x.W == y.W && x.H == y.H })
}

// unionBoxes drops the repeats among boxes (each kept with its first why).
func unionBoxes(bs []action.RedactBox) []action.RedactBox {
	var out []action.RedactBox
	for _, b := range bs {
		if !slices.ContainsFunc(out, func(o action.RedactBox) bool { return o.X == b.X && o.Y == b.Y && o.W == b.W && o.H == b.H }) {
			out = append(out, b)
		}
	}
	return out
}

// burnBoxes fills boxes with solid black in the PNG.
func burnBoxes(pngBytes []byte, boxes []action.RedactBox) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, err
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	}
	black := image.NewUniform(color.RGBA{0, 0, 0, 255})
	for _, b := range boxes {
		draw.Draw(rgba, image.Rect(b.X, b.Y, b.X+b.W, b.Y+b.H).Intersect(rgba.Bounds()), black, image.Point{}, draw.Src)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, rgba); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// takeRedaction hands the boxes of the tab's last observation over.
func (t *tab) takeRedaction() []action.RedactBox {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.redaction
	t.redaction = nil
	return b
}

// knowPersonal adds values found on the page to the episode's known ones
// (the network capture replaces them too).
func (e *Engine) knowPersonal(values []string) {
	if len(values) == 0 || e.ep == nil {
		return
	}
	ep := e.ep
	for _, v := range values {
		if !slices.Contains(ep.personal, v) {
			ep.personal = append(ep.personal, v)
		}
	}
	e.netCap.Load().know(values)
}

// redactText replaces the personal values in an observation's text
// extras (the accessibility tree, its text, the DOM snapshot).
func (e *Engine) redactExtras(x *action.Extras) {
	p := e.redactPolicy()
	if p == nil || x == nil || e.ep == nil {
		return
	}
	known := e.ep.personal
	x.AXTreeTxt = p.Text(x.AXTreeTxt, known)
	x.AXTree = redactJSON(x.AXTree, p, known)
	x.DOM = redactJSON(x.DOM, p, known)
	for i, s := range x.OpenPagesTitles {
		x.OpenPagesTitles[i] = p.Text(s, known)
	}
}

// redactJSON replaces personal values in every string of a JSON document.
func redactJSON(raw json.RawMessage, p *redact.Policy, known []string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return p.Text(x, known)
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return raw
	}
	return b
}
