package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
)

// Element grounding (Settings.Grounding): BrowserGym's bid marking
// (marks.js, the semantics of its frame_mark_elements.js), the element an
// action is aimed at (obs.Target) and BrowserGym's observation extras
// (obs.Extras, extras.go). The marking runs from the engine, never from the
// page's own scripts, after the page settled; it adds attributes only (bid,
// browsergym_visibility_ratio, browsergym_set_of_marks, and for the AXTree a
// transient "browsergym_id_<bid> " prefix of aria-roledescription and
// aria-description that is removed before the step returns), so the page
// draws and behaves as without it.

// marksScript is the marking and lookup function (see marks.js).
//
//go:embed marks.js
var marksScript string

// markOpts are marks.js's options.
type markOpts struct {
	Op     string   `json:"op"`
	Full   bool     `json:"full,omitempty"`
	Aria   bool     `json:"aria,omitempty"`
	Live   bool     `json:"live,omitempty"`
	Bid    string   `json:"bid,omitempty"`
	Scroll bool     `json:"scroll,omitempty"`
	Focus  bool     `json:"focus,omitempty"`
	X      float64  `json:"x"`
	Y      float64  `json:"y"`
	Value  string   `json:"value"`  // setvalue
	Values []string `json:"values"` // select
}

// jsTarget is a target as marks.js returns it.
type jsTarget struct {
	Bid       string     `json:"bid"`
	Tag       string     `json:"tag"`
	Role      string     `json:"role"`
	Name      string     `json:"name"`
	BBox      [4]float64 `json:"bbox"`
	Selector  string     `json:"selector"`
	InputType string     `json:"input_type"`
}

func (j *jsTarget) target() *action.Target {
	if j == nil {
		return nil
	}
	t := action.Target(*j)
	return &t
}

// jsProps are one element's properties as marks.js returns them.
type jsProps struct {
	V float64     `json:"v"`
	B *[4]float64 `json:"b"`
	C bool        `json:"c"`
	S bool        `json:"s"`
}

// marksResult is marks.js's answer.
type marksResult struct {
	Props    map[string]jsProps `json:"props"`
	Secrets  []string           `json:"secrets"` // mark with full: bids of the secret fields
	Focused  string             `json:"focused"` // mark: focused_element_bid (the body's bid when nothing has the focus)
	Target   *jsTarget          `json:"target"`
	Shown    bool               `json:"shown"`  // find: the element has a box
	Error    string             `json:"error"`  // setvalue, select: why nothing was done
	Values   []string           `json:"values"` // setvalue, select: the value(s) now
	Warnings []string           `json:"warnings"`
}

// runMarks runs marks.js in the tab's top document.
func (e *Engine) runMarks(ctx context.Context, t *tab, o markOpts) (marksResult, error) {
	b, _ := json.Marshal(o)
	expr := "(" + marksScript + ")(" + string(b) + ", " + secretFieldJS + ")"
	var res marksResult
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		res, err = chromedp.Run(c, chromedp.Evaluate[marksResult](expr))
		return err
	})
	if err != nil {
		return marksResult{}, err
	}
	for _, w := range res.Warnings {
		e.logf("browser: marking: %s", w)
	}
	return res, nil
}

// groundingOn reports whether steps read targets and extras.
func (e *Engine) groundingOn() bool { return e.set.Grounding.On() }

// Element's errors (kinds, for errors.Is): a bid not in the page (it is
// action.ErrNoElement too), and an element that is in the page but not
// displayed (no box to act on).
var (
	ErrNoElement    error = noElement{}
	ErrNotDisplayed       = errors.New("the element is not displayed")
)

// noElement is ErrNoElement: it is action.ErrNoElement too, for errors.Is.
type noElement struct{}

func (noElement) Error() string        { return "no element with that bid in the page" }
func (noElement) Is(target error) bool { return target == action.ErrNoElement }

// Element returns the element with BrowserGym id bid in the current page of
// the active tab, scrolled into view first when its centre is off-screen:
// its tag, role, accessible name, box (viewport CSS pixels, frame offsets
// included) and a selector. Elements are marked first (bids a page already
// has stay as they are), so it works with grounding off too. A bid not in
// the page is an error matching ErrNoElement; one that is not displayed
// (display: none, detached from layout) returns its description with an
// error matching ErrNotDisplayed.
func (e *Engine) Element(ctx context.Context, bid string) (action.Target, error) {
	return e.element(ctx, bid, false)
}

// FocusElement is Element that also gives the element the keyboard focus
// (for fill and press).
func (e *Engine) FocusElement(ctx context.Context, bid string) (action.Target, error) {
	return e.element(ctx, bid, true)
}

func (e *Engine) element(ctx context.Context, bid string, focus bool) (action.Target, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return action.Target{}, engine.ErrClosed
	}
	if e.ep == nil || e.ep.done {
		return action.Target{}, engine.ErrResetBeforeStepping
	}
	if bid == "" {
		return action.Target{}, &engine.Error{Kind: ErrNoElement, Msg: "an empty bid names no element: use a bid from the latest observation"}
	}
	res, err := e.runMarks(ctx, e.ep.tab, markOpts{Op: "find", Bid: bid, Scroll: true, Focus: focus})
	if err != nil {
		return action.Target{}, fmt.Errorf("could not look up the element with bid %q: %w", bid, err)
	}
	if res.Target == nil {
		return action.Target{}, &engine.Error{Kind: ErrNoElement,
			Msg: fmt.Sprintf("no element with bid %q in the page (bids change when the page changes: read the latest observation)", bid)}
	}
	tg := *res.Target.target()
	e.ep.g.nameRole(&tg)
	if !res.Shown {
		return tg, &engine.Error{Kind: ErrNotDisplayed,
			Msg: fmt.Sprintf("the element with bid %q (%s) is not displayed: it has no box on the page to act on (choose a visible element from the latest observation)", bid, tg.Tag)}
	}
	return tg, nil
}

// grounding is an episode's grounding state.
type grounding struct {
	start time.Time
	// ax is role and accessible name by bid from the latest AXTree, so a
	// target read before an action gets them as Chromium computes them.
	ax map[string][2]string
	// axOn are the tabs whose Accessibility domain is enabled.
	axOn map[*tab]bool
}

// nameRole puts the AXTree's role and name on a target when its bid was in
// the latest tree (marks.js's own are an approximation).
func (g *grounding) nameRole(tg *action.Target) {
	if tg.Bid == "" || g.ax == nil {
		return
	}
	if rn, ok := g.ax[tg.Bid]; ok {
		if rn[0] != "" {
			tg.Role = rn[0]
		}
		tg.Name = rn[1]
	}
}

// readTarget is the element an action is aimed at, read before it: under
// the pointer for click, double click, move, drag and scroll; the focused
// element for type and key. nil when grounding is off, for other actions,
// or when the page could not tell (the action goes on regardless).
func (e *Engine) readTarget(ctx context.Context, ep *episode, a action.Action, x, y float64) *action.Target {
	if !e.groundingOn() {
		return nil
	}
	var o markOpts
	switch a.Op {
	case action.Click, action.DoubleClick, action.Move, action.Drag, action.SetValue, action.Select, action.MouseDown, action.MouseUp:
		o = markOpts{Op: "point", X: x, Y: y}
	case action.Scroll:
		o = markOpts{Op: "point", X: ep.px, Y: ep.py}
	case action.Type, action.Key, action.KeyDown, action.KeyUp, action.InsertText:
		o = markOpts{Op: "focused"}
	default:
		return nil
	}
	res, err := e.runMarks(ctx, ep.tab, o)
	if err != nil {
		e.logf("browser: could not read the action's target: %v", err)
		return nil
	}
	tg := res.Target.target()
	if tg != nil {
		ep.g.nameRole(tg)
	}
	return tg
}

// groundStep fills what extras know only after the step: the action in
// BrowserGym's words (a text typed into a password or payment field written
// as action.RedactedText), its error and the time since the reset.
func (e *Engine) groundStep(ep *episode, obs *action.Observation, a *action.Action) {
	if obs.Extras == nil {
		return
	}
	if a != nil {
		la := *a
		if obs.Redacted {
			la = la.Redact() // the text went into a password or payment field
		}
		obs.Extras.LastAction = action.BrowserGym(la)
		obs.Extras.LastActionError = string(obs.Error)
	}
	obs.Extras.ElapsedTimeSecs = time.Since(ep.g.start).Seconds()
}
