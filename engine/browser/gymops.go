package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
)

// The BrowserGym operations (action.SetBrowserGym): what BrowserGym's
// actions do that clicks and named keys do not. gymStep performs a; ok is
// false for any other operation.
func (e *Engine) gymStep(ctx context.Context, ep *episode, a action.Action, x, y float64, secret *bool) (ok bool, err error) {
	t := ep.tab
	op := e.set.OpTimeout
	switch a.Op {
	case action.SetValue, action.Select:
		o := markOpts{Op: "setvalue", X: x, Y: y, Value: a.Text}
		if a.Op == action.Select {
			o = markOpts{Op: "select", X: x, Y: y, Values: a.Values}
			if o.Values == nil {
				o.Values = []string{}
			}
		}
		res, err := e.runMarks(ctx, t, o)
		if err == nil && res.Error != "" {
			err = errors.New(res.Error)
		}
		return true, err
	case action.MouseDown, action.MouseUp:
		err = t.do(ctx, op, func(c context.Context) error {
			if err := mouse(c, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, ep.buttons, 0); err != nil {
				return err
			}
			if a.Op == action.MouseDown {
				ep.buttons = 1
				return mouse(c, input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonLeft, 1, 1)
			}
			ep.buttons = 0
			return mouse(c, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, 0, 1)
		})
		ep.px, ep.py = x, y
		return true, err
	case action.KeyDown, action.KeyUp:
		k, _ := action.LookupPWKey(a.Text)
		return true, t.do(ctx, op, func(c context.Context) error {
			guardKey(c, k, secret)
			return ep.pwKey(c, k, a.Op == action.KeyDown)
		})
	case action.Type:
		if ep.mods == 0 {
			return false, nil // typed as text (step.go)
		}
		// Keys held by key_down modify each character, as Playwright's
		// keyboard.type and press do: Control held and 'a' selects all.
		return true, t.do(ctx, op+time.Duration(len([]rune(a.Text)))*5*time.Millisecond, func(c context.Context) error {
			for i, r := range a.Text {
				k, _ := action.LookupPWKey(string(r))
				if i == 0 {
					guardKey(c, k, secret)
				}
				if err := ep.pwKey(c, k, true); err != nil {
					return err
				}
				if err := ep.pwKey(c, k, false); err != nil {
					return err
				}
			}
			return nil
		})
	case action.Key:
		var keys []action.PWKey
		if nk, named := namedKeys[a.Text]; !named {
			var err error
			if keys, err = action.SplitKeyCombo(a.Text); err != nil {
				return true, err
			}
		} else if ep.mods == 0 {
			return false, nil // pressed with its own modifiers (input.go)
		} else {
			keys = nk.pwKeys() // and those key_down holds
		}
		return true, t.do(ctx, op, func(c context.Context) error {
			guardKey(c, keys[len(keys)-1], secret)
			// Playwright's press: the keys before the last held, the last
			// pressed and released, the held ones released in reverse.
			for i, k := range keys {
				if err := ep.pwKey(c, k, true); err != nil {
					return err
				}
				if i == len(keys)-1 {
					if err := ep.pwKey(c, k, false); err != nil {
						return err
					}
				}
			}
			for i := len(keys) - 2; i >= 0; i-- {
				if err := ep.pwKey(c, keys[i], false); err != nil {
					return err
				}
			}
			return nil
		})
	case action.InsertText:
		return true, t.do(ctx, op, func(c context.Context) error {
			// Text inserted into a password or payment field is a secret,
			// as typed text is (secret.go).
			s, err := focusedSecret(c)
			*secret = s || err != nil
			_, err = chromedp.Call(c, input.InsertText, input.InsertTextParams{Text: a.Text})
			return err
		})
	case action.Forward:
		return true, e.history(ctx, t, +1)
	case action.NewTab:
		return true, e.newTab(ctx, ep)
	case action.TabFocus:
		live := ep.liveTabs()
		i := *a.Index
		if i >= len(live) {
			return true, fmt.Errorf("IndexError: list index out of range: tab_focus(%d) with %d tabs open (0–%d)", i, len(live), len(live)-1)
		}
		return true, e.focusTab(ctx, ep, live[i])
	case action.TabClose:
		return true, e.closeTab(ctx, ep)
	}
	return false, nil
}

// pwKeys is a named key as Playwright's keys: its modifiers, then the key.
func (k keyDef) pwKeys() []action.PWKey {
	var keys []action.PWKey
	for _, m := range modifierKeys {
		if k.mods&m.bit != 0 {
			pk, _ := action.LookupPWKey(m.def.key)
			keys = append(keys, pk)
		}
	}
	pk, _ := action.LookupPWKey(k.key)
	return append(keys, pk)
}

// guardKey marks the step secret when k types a character into a password
// or payment field (or when that cannot be told), as typed text is
// (secret.go): the character is then not stored.
func guardKey(ctx context.Context, k action.PWKey, secret *bool) {
	if k.Text == "" || k.Key == "Enter" {
		return
	}
	s, err := focusedSecret(ctx)
	*secret = *secret || s || err != nil
}

// pwKey presses (down) or releases one key of Playwright's layout with the
// modifiers held, as Playwright's keyboard.down and keyboard.up: a
// modifier key changes what is held; a key's text goes with its keydown
// unless Control, Alt or Meta is held.
func (ep *episode) pwKey(ctx context.Context, k action.PWKey, down bool) error {
	if down && k.Modifier != 0 {
		ep.mods |= k.Modifier
	}
	if !down && k.Modifier != 0 {
		ep.mods &^= k.Modifier
	}
	key, text := k.Key, k.Text
	if ep.mods&8 != 0 && k.ShiftKey != "" {
		key, text = k.ShiftKey, k.ShiftText
	}
	if ep.mods&^8 != 0 {
		text = ""
	}
	p := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: key, Code: k.Code,
		WindowsVirtualKeyCode: k.KeyCode, NativeVirtualKeyCode: k.KeyCode, Modifiers: ep.mods}
	if down {
		p.Type = input.DispatchKeyEventTypeRawKeyDown
		if text != "" {
			p.Type, p.Text, p.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, text, text
		}
	}
	_, err := chromedp.Call(ctx, input.DispatchKeyEvent, p)
	return err
}

// history goes by entries back (-1) or forward (+1) in the tab's history;
// with no entry there it does nothing, as a browser's buttons.
func (e *Engine) history(ctx context.Context, t *tab, by int) error {
	var hist page.GetNavigationHistoryResult
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		var err error
		hist, err = chromedp.Call(c, page.GetNavigationHistory, cdp.Empty{})
		return err
	})
	if err != nil {
		return err
	}
	i := int(hist.CurrentIndex) + by
	if i < 0 || i >= len(hist.Entries) || (by < 0 && i == 0 && hist.Entries[0].URL == "about:blank") {
		return nil
	}
	t.expectNavigation()
	err = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		_, err := chromedp.Call(c, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: hist.Entries[i].ID})
		return err
	})
	if err != nil {
		t.clearNavigation()
	}
	return err
}

// liveTabs are the episode's open tabs in opening order (BrowserGym's
// open_pages_urls order).
func (ep *episode) liveTabs() []*tab {
	var live []*tab
	for _, t := range ep.order {
		if !t.gone() {
			live = append(live, t)
		}
	}
	return live
}

// newTab opens a blank tab in the episode's browser context and makes it
// the active one.
func (e *Engine) newTab(ctx context.Context, ep *episode) error {
	c := chromedp.FromContext(ep.ctx)
	if c == nil || c.Browser == nil {
		return errors.New("the episode has no browser to open a tab in")
	}
	var id target.ID
	cctx, cancel := context.WithTimeout(ep.ctx, e.set.OpTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(cctx, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: c.BrowserContextID})
	if err != nil {
		return fmt.Errorf("could not open a tab: %w", err)
	}
	id = res.TargetID
	nt, err := e.attachTab(ctx, ep, id)
	if err != nil {
		return fmt.Errorf("could not open a tab: %w", err)
	}
	return e.focusTab(ctx, ep, nt)
}

// focusTab brings t to the front and makes it the active tab.
func (e *Engine) focusTab(ctx context.Context, ep *episode, t *tab) error {
	ep.tab = t
	return t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		_, err := chromedp.Call(c, page.BringToFront, cdp.Empty{})
		return err
	})
}

// closeTab closes the active tab; the newest tab left becomes the active
// one, and a blank tab opens when none is left (BrowserGym's tab_close).
func (e *Engine) closeTab(ctx context.Context, ep *episode) error {
	t := ep.tab
	cctx, cancel := context.WithTimeout(ep.ctx, e.set.OpTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(cctx, target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		return fmt.Errorf("could not close the tab: %w", err)
	}
	if t.detachedCh != nil {
		select {
		case <-t.detachedCh:
		case <-cctx.Done():
			return fmt.Errorf("the tab did not close in %v", e.set.OpTimeout)
		}
	}
	live := ep.liveTabs()
	if len(live) == 0 {
		return e.newTab(ctx, ep)
	}
	return e.focusTab(ctx, ep, live[len(live)-1])
}
