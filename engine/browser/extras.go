package browser

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// captureSnapshot is DOMSnapshot.captureSnapshot with its result kept raw.
var captureSnapshot = cdp.Command[domsnapshot.CaptureSnapshotParams, json.RawMessage]{Method: domsnapshot.CommandCaptureSnapshot}

// captureObs is capture with, when grounding is on, the observation's
// extras: while the screenshot is taken and the open pages are listed, the
// page is marked (bids, visibility, set of marks, and the aria prefixes the
// tree reads), the accessibility tree is read, the aria prefixes are
// removed, and the DOM snapshot is taken when asked. A failure
// of the extras is logged and leaves them out (or partial); it never fails
// the step.
func (e *Engine) captureObs(ctx context.Context, t *tab, obs *action.Observation) (png []byte, in pageInfo, shotErr, infErr error) {
	if !e.groundingOn() {
		return e.observeShot(ctx, t) // redact.go
	}
	ep := e.ep
	if ep.g.start.IsZero() {
		ep.g.start = time.Now()
	}
	withDOM := e.set.Grounding == engine.GroundingDOM
	var (
		mres    marksResult
		markErr error
		tree    *axTree
		axErr   error
		snap    json.RawMessage
		click   map[string]bool
		snapOK  bool
		urls    []string
		titles  []string
		active  int
		wg      sync.WaitGroup
	)
	// The screenshot and the page's info are taken at once: marking only
	// adds attributes, which change no pixel.
	wg.Go(func() { png, in, shotErr, infErr = e.observeShot(ctx, t) }) // redact.go
	wg.Go(func() { urls, titles, active = e.openPages(ctx, ep) })
	mres, markErr = e.runMarks(ctx, t, markOpts{Op: "mark", Full: true, Aria: true, Live: withDOM})
	if markErr != nil {
		e.logf("browser: could not mark the page's elements: %v", markErr)
	} else {
		tree, axErr = e.readAXTree(ctx, t)
		if axErr == nil {
			e.maskAXSecrets(ctx, t, tree, mres.Secrets)
		}
		wg.Go(func() {
			if _, err := e.runMarks(ctx, t, markOpts{Op: "unaria"}); err != nil {
				e.logf("browser: could not remove the marking's aria prefixes: %v", err)
			}
			if withDOM {
				snap, click, snapOK = e.domSnapshot(ctx, t)
			}
		})
		if axErr != nil {
			e.logf("browser: could not read the accessibility tree: %v", axErr)
		}
	}
	// The tree is written out while the prefixes are removed.
	var axJSON json.RawMessage
	var axTxt string
	if tree != nil && axErr == nil {
		if b, err := json.Marshal(tree); err == nil {
			axJSON = b
		}
		axTxt = flattenAXTree(tree)
		ep.g.ax = tree.roleNames()
	}
	wg.Wait()

	x := &action.Extras{OpenPagesURLs: urls, OpenPagesTitles: titles, ActivePageIndex: active,
		ElapsedTimeSecs: time.Since(ep.g.start).Seconds(), ElementProps: map[string]action.ElementProps{}}
	if markErr == nil {
		x.FocusedBid = mres.Focused
		for bid, p := range mres.Props {
			x.ElementProps[bid] = action.ElementProps{Visibility: p.V, BBox: p.B, Clickable: p.C, SetOfMarks: p.S}
		}
	}
	x.AXTree, x.AXTreeTxt = axJSON, axTxt
	if snapOK {
		x.DOM = snap
		// With a snapshot, clickable is Chromium's, as BrowserGym's.
		for bid, p := range x.ElementProps {
			p.Clickable = click[bid]
			x.ElementProps[bid] = p
		}
	}
	e.redactExtras(x) // redact.go
	obs.Extras = x
	return png, in, shotErr, infErr
}

// domSnapshot is the page's DOM snapshot (captureDOMSnapshot), taken
// after the aria prefixes are gone so its strings are the page's own, with
// the values of password and payment fields masked (groundsecret.go), and
// the bids it marks clickable; one decode of the snapshot serves both
// (domsnap.go).
func (e *Engine) domSnapshot(ctx context.Context, t *tab) (json.RawMessage, map[string]bool, bool) {
	snap, err := e.captureDOMSnapshot(ctx, t)
	if err != nil {
		e.logf("browser: could not take the DOM snapshot: %v", err)
		return nil, nil, false
	}
	masked, click, ok := readDOMSnapshot(snap)
	if !ok {
		e.logf("browser: the DOM snapshot could not be read to mask its password and payment fields; it is left out")
	}
	return masked, click, ok
}

// captureDOMSnapshot is DOMSnapshot.captureSnapshot as BrowserGym takes it
// (no computed styles, with DOM rects and paint order), raw.
func (e *Engine) captureDOMSnapshot(ctx context.Context, t *tab) (json.RawMessage, error) {
	var snap json.RawMessage
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		yes := true
		var err error
		snap, err = chromedp.Call(c, captureSnapshot, domsnapshot.CaptureSnapshotParams{
			ComputedStyles: []string{}, IncludeDOMRects: &yes, IncludePaintOrder: &yes})
		return err
	})
	return snap, err
}

// openPages lists the episode's open tabs in opening order: URLs, titles
// and the active one's index (BrowserGym's open_pages_urls, _titles and
// active_page_index).
func (e *Engine) openPages(ctx context.Context, ep *episode) (urls, titles []string, active int) {
	urls, titles = []string{}, []string{}
	byID := map[string][2]string{}
	if e.browserCtx != nil {
		c, cancel := context.WithTimeout(e.browserCtx, e.set.OpTimeout)
		infos, err := chromedp.Targets(c)
		cancel()
		if err != nil {
			e.logf("browser: could not list the open pages: %v", err)
		}
		for _, in := range infos {
			byID[string(in.TargetID)] = [2]string{in.URL, in.Title}
		}
	}
	for _, t := range ep.order {
		if t.gone() {
			continue
		}
		if t == ep.tab {
			active = len(urls)
		}
		ut := byID[string(t.id)]
		urls = append(urls, ut[0])
		titles = append(titles, ut[1])
	}
	return urls, titles, active
}
