package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// mouse sends one mouse event at a viewport pixel.
func mouse(ctx context.Context, typ input.DispatchMouseEventType, x, y float64, button input.MouseButton, buttons, clicks int64) error {
	_, err := chromedp.Call(ctx, input.DispatchMouseEvent, input.DispatchMouseEventParams{
		Type: typ, X: x, Y: y, Button: button, Buttons: buttons, ClickCount: clicks,
	})
	return err
}

// click moves the pointer to x,y and presses and releases the left button
// there, count times (2 = a double click).
func click(ctx context.Context, x, y float64, count int) error {
	if err := mouse(ctx, input.DispatchMouseEventTypeMouseMoved, x, y, input.MouseButtonNone, 0, 0); err != nil {
		return err
	}
	for c := int64(1); c <= int64(count); c++ {
		if err := mouse(ctx, input.DispatchMouseEventTypeMousePressed, x, y, input.MouseButtonLeft, 1, c); err != nil {
			return err
		}
		if err := mouse(ctx, input.DispatchMouseEventTypeMouseReleased, x, y, input.MouseButtonLeft, 0, c); err != nil {
			return err
		}
	}
	return nil
}

// wheel scrolls by dy at x,y. It is sent raw: the typed params leave out a
// zero deltaX and Chrome then refuses the event.
func wheel(ctx context.Context, x, y float64, dy int) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return t.Call(ctx, input.CommandDispatchMouseEvent, map[string]any{
			"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": dy,
		}, nil)
	}))
}

// drag presses at x,y, moves to x2,y2 in steps and releases; HTML5 drag and
// drop pages get their drop too.
func drag(ctx context.Context, x, y, x2, y2 float64) error {
	return chromedp.Do(ctx, chromedp.DragAndDropXY(x, y, x2, y2, 10))
}

// keyTypedRunes is how many runes of a text are typed as key events; the
// rest of a longer text is inserted at once (a key event costs a round trip
// to the renderer, about 2 ms here, and a 2000-character text would take
// seconds).
const keyTypedRunes = 200

// typeText types text as key events, one rune at a time: keydown with the
// character (the page sees keydown, keypress, beforeinput, input) and keyup,
// as a keyboard would. Past keyTypedRunes the remainder is inserted as text
// (input events, no key events).
func typeText(ctx context.Context, text string) error {
	runes := []rune(text)
	for i, r := range runes {
		if i == keyTypedRunes {
			_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: string(runes[i:])})
			return err
		}
		evs := kb.Encode(r)
		if len(evs) == 3 && evs[1].Type == kb.KeyChar {
			// keyDown carrying the text does what keyDown + char do, in one call.
			down := *evs[0]
			down.Text, down.UnmodifiedText = evs[1].Text, evs[1].UnmodifiedText
			evs = []*input.DispatchKeyEventParams{&down, evs[2]}
		}
		for _, ev := range evs {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, *ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyDef is one named key of the action sets.
type keyDef struct {
	key, code string
	vk        int64
	text      string
	mods      int64 // Alt 1, Ctrl 2, Meta 4, Shift 8
	commands  []string
}

var namedKeys = map[string]keyDef{
	"ENTER":     {key: "Enter", code: "Enter", vk: 13, text: "\r"},
	"TAB":       {key: "Tab", code: "Tab", vk: 9},
	"ESCAPE":    {key: "Escape", code: "Escape", vk: 27},
	"BACKSPACE": {key: "Backspace", code: "Backspace", vk: 8},
	"CTRL+A":    {key: "a", code: "KeyA", vk: 65, mods: 2, commands: []string{"selectAll"}},
	"UP":        {key: "ArrowUp", code: "ArrowUp", vk: 38},
	"DOWN":      {key: "ArrowDown", code: "ArrowDown", vk: 40},
	"LEFT":      {key: "ArrowLeft", code: "ArrowLeft", vk: 37},
	"RIGHT":     {key: "ArrowRight", code: "ArrowRight", vk: 39},
	"PAGE_UP":   {key: "PageUp", code: "PageUp", vk: 33},
	"PAGE_DOWN": {key: "PageDown", code: "PageDown", vk: 34},
	"HOME":      {key: "Home", code: "Home", vk: 36},
	"END":       {key: "End", code: "End", vk: 35},
	"DELETE":    {key: "Delete", code: "Delete", vk: 46},
	"SPACE":     {key: " ", code: "Space", vk: 32, text: " "},
	"SHIFT+TAB": {key: "Tab", code: "Tab", vk: 9, mods: 8},
}

// modifierKeys are pressed around a key that needs them.
var modifierKeys = []struct {
	bit int64
	def keyDef
}{
	{2, keyDef{key: "Control", code: "ControlLeft", vk: 17}},
	{8, keyDef{key: "Shift", code: "ShiftLeft", vk: 16}},
}

func keyEvent(ctx context.Context, typ input.DispatchKeyEventType, k keyDef, mods int64, text string, commands []string) error {
	_, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{
		Type: typ, Key: k.key, Code: k.code, WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk,
		Modifiers: mods, Text: text, UnmodifiedText: text, Commands: commands,
	})
	return err
}

// pressKey presses one named key with its modifiers.
func pressKey(ctx context.Context, name string) error {
	k, ok := namedKeys[name]
	if !ok {
		return fmt.Errorf("unsupported key %q", name)
	}
	var held int64
	for _, m := range modifierKeys {
		if k.mods&m.bit != 0 {
			held |= m.bit
			if err := keyEvent(ctx, input.DispatchKeyEventTypeRawKeyDown, m.def, held, "", nil); err != nil {
				return err
			}
		}
	}
	down := input.DispatchKeyEventTypeRawKeyDown
	if k.text != "" {
		down = input.DispatchKeyEventTypeKeyDown
	}
	if err := keyEvent(ctx, down, k, k.mods, k.text, k.commands); err != nil {
		return err
	}
	if err := keyEvent(ctx, input.DispatchKeyEventTypeKeyUp, k, k.mods, "", nil); err != nil {
		return err
	}
	for i := len(modifierKeys) - 1; i >= 0; i-- {
		m := modifierKeys[i]
		if k.mods&m.bit != 0 {
			held &^= m.bit
			if err := keyEvent(ctx, input.DispatchKeyEventTypeKeyUp, m.def, held, "", nil); err != nil {
				return err
			}
		}
	}
	return nil
}
