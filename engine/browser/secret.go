package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Secret fields: text typed into them is a password or card data. The page
// gets the real keystrokes; the observation says Redacted, and whatever
// stores the action keeps action.RedactedText in place of its text.
//
// A field is secret when it is an <input type=password>, or an input or
// textarea whose autocomplete attribute has a token ending in "password"
// (current-password, new-password), or cc-number, or cc-csc (the rule is
// in secretfield.go, shared with element grounding).
//
// focusWalk runs with `this` set to a Document or a ShadowRoot and follows
// the keyboard focus down from it: into open shadow roots and same-origin
// frames by itself. It answers true or false for a field it can classify;
// otherwise it returns the element where it stopped (a frame of another
// origin, or an element that may host a closed shadow root), and the Go
// side goes on through CDP.
const focusWalk = `function () {
  const isSecret = ` + secretFieldJS + `;
  let el = this.activeElement;
  for (let i = 0; el && i < 64; i++) {
    const sr = el.shadowRoot;
    if (sr && sr.activeElement) { el = sr.activeElement; continue; }
    const tag = el.localName;
    if (tag === 'iframe' || tag === 'frame' || tag === 'object' || tag === 'embed') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (doc) { el = doc.activeElement; continue; }
      return el;
    }
    if (tag === 'input' || tag === 'textarea') return isSecret(el);
    if (sr) return false;
    return el;
  }
  return false;
}`

// secretGroup names the remote objects focusedSecret makes, so one call
// releases them.
const secretGroup = "waymark-secret"

// maxFocusHops bounds how many frames and closed shadow roots focusedSecret
// follows; focus nested deeper counts as a secret field.
const maxFocusHops = 16

// errFocusTooDeep is the failure of a focus nested past maxFocusHops.
var errFocusTooDeep = errors.New("the focus is nested in too many frames and shadow roots")

// focusedSecret reports whether the element that has the keyboard focus in
// the tab of ctx is a secret field, wherever it is: in the page, in an open
// or closed shadow root, in a frame of the same origin, of another origin in
// the same process, or of another site (an out-of-process frame, which is a
// target of its own and gets a short-lived session).
func focusedSecret(ctx context.Context) (secret bool, err error) {
	sess := ctx
	var sessions []context.Context // sessions holding objects of secretGroup
	var detach []context.CancelFunc
	defer func() {
		for _, s := range sessions {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(s), time.Second)
			chromedp.Call(rctx, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: secretGroup})
			cancel()
		}
		for _, d := range detach {
			d()
		}
	}()
	var (
		world runtime.ExecutionContextID // 0: the main world of the session's top frame
		root  runtime.RemoteObjectID     // "": the document
	)
	for range maxFocusHops {
		obj, err := walkFocus(sess, world, root)
		if err != nil {
			return true, err
		}
		if obj.Type == runtime.RemoteObjectTypeBoolean {
			return string(obj.Value) == "true", nil
		}
		if obj.ObjectID != "" && (len(sessions) == 0 || sessions[len(sessions)-1] != sess) {
			sessions = append(sessions, sess)
		}
		if obj.Subtype != runtime.RemoteObjectSubtypeNode || obj.ObjectID == "" {
			return true, fmt.Errorf("the focus walk answered %s %s", obj.Type, obj.Subtype)
		}
		d, err := chromedp.Call(sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj.ObjectID})
		if err != nil {
			return true, fmt.Errorf("describe the focused element: %w", err)
		}
		n := d.Node
		switch {
		case n == nil:
			return true, errors.New("describe the focused element: no node")
		case n.FrameID != "":
			// A frame of another origin: in this process an isolated world
			// reaches it; out of process it is a target of its own.
			w, werr := chromedp.Call(sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: n.FrameID, WorldName: secretGroup})
			if werr == nil {
				world, root = w.ExecutionContextID, ""
				continue
			}
			fctx, cancel, err := attachFrameTarget(sess, target.ID(n.FrameID))
			if err != nil {
				return true, fmt.Errorf("reach the focused frame (%v): %w", werr, err)
			}
			detach = append(detach, cancel)
			sess, world, root = fctx, 0, ""
		case len(n.ShadowRoots) > 0:
			// A closed shadow root: page scripts cannot see into it, CDP can.
			r, err := chromedp.Call(sess, dom.ResolveNode, dom.ResolveNodeParams{
				BackendNodeID: n.ShadowRoots[0].BackendNodeID, ExecutionContextID: world, ObjectGroup: secretGroup})
			if err != nil || r.Object == nil || r.Object.ObjectID == "" {
				return true, fmt.Errorf("reach the focused shadow root: %v", err)
			}
			root = r.Object.ObjectID
		default:
			return false, nil // a focused element that is no field (a page, a button)
		}
	}
	return true, errFocusTooDeep
}

// walkFocus runs focusWalk from root (a shadow root) or from the document
// of world (0: the main world).
func walkFocus(sess context.Context, world runtime.ExecutionContextID, root runtime.RemoteObjectID) (*runtime.RemoteObject, error) {
	var (
		obj *runtime.RemoteObject
		exc *runtime.ExceptionDetails
		err error
	)
	if root != "" {
		var r runtime.CallFunctionOnResult
		r, err = chromedp.Call(sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: focusWalk, ObjectID: root, ObjectGroup: secretGroup})
		obj, exc = r.Result, r.ExceptionDetails
	} else {
		var r runtime.EvaluateResult
		r, err = chromedp.Call(sess, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "(" + focusWalk + ").call(document)", ContextID: world, ObjectGroup: secretGroup})
		obj, exc = r.Result, r.ExceptionDetails
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("read the focused element: %w", err)
	case exc != nil:
		return nil, fmt.Errorf("read the focused element: %s", exc.Text)
	case obj == nil:
		return nil, errors.New("read the focused element: no result")
	}
	return obj, nil
}

// attachFrameTarget opens a session on an out-of-process frame. Cancelling
// it only detaches: the frame stays.
func attachFrameTarget(ctx context.Context, id target.ID) (context.Context, context.CancelFunc, error) {
	fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	// The first Do attaches; the caller's deadline cancels the frame's
	// context itself, which only detaches.
	stop := context.AfterFunc(ctx, cancel)
	err := chromedp.Do(fctx)
	if !stop() {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return fctx, cancel, nil
}

// focusLookTries is how often a failed look at the focus is tried before the
// text counts as secret (a look fails while the page navigates away, for
// example after a line break submitted a form).
const focusLookTries = 3

// typeGuarded types text as typeText does and sets *secret when any of it
// went into a secret field. The focus is looked at before the text, after
// every Tab or line break in it (they can move the focus) and after it, so a
// page that moves the focus from a plain field into a secret one while the
// text is typed is caught too. A look that keeps failing counts as a secret
// field: a lost text is better than a stored password.
func (e *Engine) typeGuarded(ctx context.Context, text string, secret *bool) error {
	look := func() {
		if *secret || ctx.Err() != nil {
			return
		}
		var err error
		for try := range focusLookTries {
			var s bool
			if s, err = focusedSecret(ctx); err == nil {
				*secret = s
				return
			}
			if try < focusLookTries-1 {
				select {
				case <-time.After(25 * time.Millisecond):
				case <-ctx.Done():
					return
				}
			}
		}
		if ctx.Err() == nil {
			e.logf("browser: could not tell whether the focused field is a password or payment field (%v); the typed text counts as secret", err)
			*secret = true
		}
	}
	look()
	typed := 0 // runes typed as key events
	for rest := text; rest != ""; {
		if typed >= keyTypedRunes {
			// As typeText does past keyTypedRunes: the rest at once, as
			// text (no key events, so no Tab moves the focus).
			if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: rest}); err != nil {
				return err
			}
			look()
			return nil
		}
		seg := rest
		if i := strings.IndexAny(rest, "\t\r\n"); i >= 0 {
			seg = rest[:i+1]
		}
		if r := []rune(seg); typed+len(r) > keyTypedRunes {
			seg = string(r[:keyTypedRunes-typed])
		}
		rest = rest[len(seg):]
		typed += utf8.RuneCountInString(seg)
		if err := typeText(ctx, seg); err != nil {
			return err
		}
		look()
	}
	return nil
}
