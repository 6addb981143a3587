package action

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrNoElement is what an element resolver returns (wrapped or not) when
// the page has no element with the bid asked for.
var ErrNoElement = errors.New("no element with this bid")

// ElementError says why an element action cannot run in the page as it is
// now: no element has the bid, or the element has no box in the viewport.
// It is a step error (BrowserGym's last_action_error), not a refusal of the
// action string: the same string may work on another page state.
type ElementError struct {
	Bid string
	// Msg is BrowserGym's wording, e.g. `ValueError: Could not find
	// element with bid "a99"`.
	Msg string
}

func (e *ElementError) Error() string { return e.Msg }

// Resolver finds the element with a bid in the current page. It returns an
// error wrapping ErrNoElement when there is none.
type Resolver func(bid string) (Target, error)

// The reasons Waymark gives for the BrowserGym functions it cannot perform.
var gymUnsupported = map[string]string{
	"upload_file":       "Waymark does not upload files",
	"mouse_upload_file": "Waymark does not upload files",
}

// GymAccepted lists the BrowserGym functions Waymark performs.
var GymAccepted = []string{"click", "dblclick", "hover", "fill", "select_option", "press", "focus", "clear", "drag_and_drop",
	"scroll", "scroll_at", "mouse_click", "mouse_dblclick", "mouse_move", "mouse_down", "mouse_up", "mouse_drag_and_drop",
	"keyboard_type", "keyboard_press", "keyboard_down", "keyboard_up", "keyboard_insert_text",
	"goto", "go_back", "go_forward", "new_tab", "tab_focus", "tab_close", "noop", "send_msg_to_user", "report_infeasible"}

// setValueTypes are the input types Playwright's fill sets the value of
// instead of typing into.
var setValueTypes = map[string]bool{"color": true, "date": true, "time": true, "datetime-local": true,
	"month": true, "range": true, "week": true}

// Waymark translates c into the Waymark actions that perform it, in order.
// Element actions find their element with resolve and act at the centre of
// its part inside the viewport; a nil resolve refuses them. The error is an
// *ElementError when the element is missing or off screen (or resolve
// fails otherwise), any other error a refusal of c itself.
//
//	click(bid)             click at the element's centre
//	dblclick(bid)          double_click there; hover(bid): move there
//	focus(bid)             click there (Waymark focuses with the pointer)
//	fill(bid, text)        click, key CTRL+A, type text (key BACKSPACE when text is "");
//	                       on a date, time, datetime-local, month, week, color or
//	                       range input: set_value there (Playwright's fill; clear
//	                       sets "" likewise)
//	select_option(bid, o)  select there, o one value or label or a list of them
//	clear(bid)             click, key CTRL+A, key BACKSPACE
//	press(bid, key)        click, then the key (see keyboard_press)
//	drag_and_drop(a, b)    drag from a's centre to b's
//	scroll(0, dy)          scroll dy at the pointer; scroll_at(x, y, 0, dy): move, scroll
//	mouse_click(x, y)      click; mouse_dblclick, mouse_move, mouse_drag_and_drop,
//	                       mouse_down, mouse_up likewise; a click, double click,
//	                       press or release outside the viewport does nothing
//	keyboard_type(text)    type; keyboard_press(key): key (a Playwright key
//	                       combination such as Control+c too), or type for one character
//	keyboard_down(key)     key_down; keyboard_up: key_up; keyboard_insert_text: insert_text
//	goto(url), go_back()   goto, back; go_forward(): forward
//	new_tab(), tab_focus(i), tab_close()  new_tab, tab_focus, tab_close
//	noop(ms)               wait (the engine's explicit wait, whatever ms)
//	send_msg_to_user(text) finish with text; report_infeasible(reason) too
func (c GymCall) Waymark(resolve Resolver) ([]Action, error) {
	if why, ok := gymUnsupported[c.Name]; ok {
		return nil, notImplemented("%s is not supported: %s", c.Name, why)
	}
	arg := func(n string) GymValue { return c.Args[n] }
	if b, ok := c.Args["button"]; ok && b.Str != "left" {
		return nil, notImplemented("%s: button=%s is not supported: Waymark clicks with the left button only", c.Name, b.python())
	}
	if m, ok := c.Args["modifiers"]; ok && len(m.List) > 0 {
		return nil, notImplemented("%s: modifiers=%s are not supported: Waymark clicks without modifier keys", c.Name, m.python())
	}
	for _, n := range []string{"text", "value", "reason"} {
		if v, ok := c.Args[n]; ok && utf8.RuneCountInString(v.Str) > MaxTextLen {
			return nil, fmt.Errorf("%s: %s has %d characters, more than the %d Waymark takes", c.Name, n, utf8.RuneCountInString(v.Str), MaxTextLen)
		}
	}
	// at resolves a bid to the point Waymark acts at.
	var target Target // the element of the bid argument
	at := func(n string) (*int, *int, error) {
		if resolve == nil {
			return nil, nil, fmt.Errorf("%s needs the page's elements (bids), which this engine does not give: use the coordinate actions (mouse_click(x, y), ...)", c.Name)
		}
		bid := arg(n).Str
		t, err := resolve(bid)
		if errors.Is(err, ErrNoElement) {
			return nil, nil, &ElementError{Bid: bid, Msg: fmt.Sprintf("ValueError: Could not find element with bid %s", strconv.Quote(bid))}
		}
		if err != nil {
			return nil, nil, &ElementError{Bid: bid, Msg: fmt.Sprintf("Error: could not find element with bid %s: %v", strconv.Quote(bid), err)}
		}
		target = t
		x, y, err := centre(bid, t.BBox)
		return Int(x), Int(y), err
	}
	var key Action // press's key, checked before the page is read
	if c.Name == "press" {
		var err error
		if key, err = gymKey(c.Name, arg("key_comb").Str); err != nil {
			return nil, err
		}
	}
	var pre []Action // the click that focuses an element
	switch c.Name {
	case "click", "dblclick", "hover", "focus", "fill", "clear", "press", "select_option":
		x, y, err := at("bid")
		if err != nil {
			return nil, err
		}
		switch c.Name {
		case "dblclick":
			return []Action{{Op: DoubleClick, X: x, Y: y}}, nil
		case "hover":
			return []Action{{Op: Move, X: x, Y: y}}, nil
		case "select_option":
			o := arg("options")
			values := []string{o.Str}
			if o.Kind == GymList {
				values = make([]string, len(o.List))
				for i, v := range o.List {
					values[i] = v.Str
				}
			}
			return []Action{{Op: Select, X: x, Y: y, Values: values}}, nil
		case "fill", "clear":
			if setValueTypes[target.InputType] {
				// Playwright's fill, and its clear (a fill with "").
				return []Action{{Op: SetValue, X: x, Y: y, Text: arg("value").Str}}, nil
			}
		}
		pre = []Action{{Op: Click, X: x, Y: y}}
	}
	switch c.Name {
	case "click", "focus":
		return pre, nil
	case "fill":
		if v := arg("value").Str; v != "" {
			return append(pre, PressKey("CTRL+A"), TypeText(v)), nil
		}
		return append(pre, PressKey("CTRL+A"), PressKey("BACKSPACE")), nil
	case "clear":
		return append(pre, PressKey("CTRL+A"), PressKey("BACKSPACE")), nil
	case "press":
		return append(pre, key), nil
	case "keyboard_press":
		k, err := gymKey(c.Name, arg("key").Str)
		return []Action{k}, err
	case "keyboard_type":
		if arg("text").Str == "" {
			return nil, errors.New("keyboard_type needs text: keyboard_type('') types nothing")
		}
		return []Action{TypeText(arg("text").Str)}, nil
	case "drag_and_drop":
		x, y, err := at("from_bid")
		if err != nil {
			return nil, err
		}
		x2, y2, err := at("to_bid")
		if err != nil {
			return nil, err
		}
		return []Action{{Op: Drag, X: x, Y: y, X2: x2, Y2: y2}}, nil
	case "scroll", "scroll_at":
		dxName, dyName := "delta_x", "delta_y"
		if c.Name == "scroll_at" {
			dxName, dyName = "dx", "dy"
		}
		if dx := arg(dxName).Num; dx != 0 {
			return nil, notImplemented("%s: horizontal scrolling (%s=%s) is not supported: give %s=0", c.Name, dxName, arg(dxName).python(), dxName)
		}
		dy := math.Round(arg(dyName).Num)
		if math.Abs(dy) > MaxScroll {
			return nil, fmt.Errorf("%s: %s=%s is outside -%d…%d: scroll in several steps", c.Name, dyName, arg(dyName).python(), MaxScroll, MaxScroll)
		}
		s := ScrollBy(int(dy))
		if c.Name == "scroll" {
			return []Action{s}, nil
		}
		x, y, err := gymXY(c, "x", "y")
		if err != nil {
			return nil, err
		}
		return []Action{{Op: Move, X: Int(x), Y: Int(y)}, s}, nil
	case "mouse_click", "mouse_dblclick", "mouse_move", "mouse_down", "mouse_up":
		x, y, err := gymXY(c, "x", "y")
		if err != nil && c.Name != "mouse_move" {
			// Chromium drops a press or release outside the viewport:
			// BrowserGym's step does nothing and reports no error.
			return []Action{}, nil
		}
		op := map[string]Op{"mouse_click": Click, "mouse_dblclick": DoubleClick, "mouse_move": Move, "mouse_down": MouseDown, "mouse_up": MouseUp}[c.Name]
		return []Action{{Op: op, X: Int(x), Y: Int(y)}}, err
	case "keyboard_down", "keyboard_up":
		k := arg("key").Str
		if _, ok := LookupPWKey(k); !ok {
			return nil, fmt.Errorf("%s: Unknown key: %s: give one of Playwright's key names (Shift, Control, Enter, ArrowLeft, KeyA, F5, ...) or one character", c.Name, strconv.Quote(k))
		}
		op := KeyDown
		if c.Name == "keyboard_up" {
			op = KeyUp
		}
		return []Action{{Op: op, Text: k}}, nil
	case "keyboard_insert_text":
		if arg("text").Str == "" {
			return []Action{}, nil // inserts nothing
		}
		return []Action{{Op: InsertText, Text: arg("text").Str}}, nil
	case "go_forward":
		return []Action{{Op: Forward}}, nil
	case "new_tab":
		return []Action{{Op: NewTab}}, nil
	case "tab_close":
		return []Action{{Op: TabClose}}, nil
	case "tab_focus":
		i := arg("index").Num
		if i != math.Trunc(i) || i < 0 || i >= 1000 {
			return nil, fmt.Errorf("tab_focus: index=%s must be the index of an open tab (0, 1, ...), as open_pages_urls lists them", arg("index").python())
		}
		return []Action{{Op: TabFocus, Index: Int(int(i))}}, nil
	case "mouse_drag_and_drop":
		x, y, err := gymXY(c, "from_x", "from_y")
		if err != nil {
			return nil, err
		}
		x2, y2, err := gymXY(c, "to_x", "to_y")
		return []Action{{Op: Drag, X: Int(x), Y: Int(y), X2: Int(x2), Y2: Int(y2)}}, err
	case "goto":
		if err := CheckURL(arg("url").Str); err != nil {
			return nil, fmt.Errorf("goto: %s is not an http(s) URL without credentials: write goto('https://example.com/')", arg("url").python())
		}
		return []Action{{Op: Goto, URL: arg("url").Str}}, nil
	case "go_back":
		return []Action{{Op: Back}}, nil
	case "noop":
		if ms := arg("wait_ms").Num; ms < 0 {
			return nil, fmt.Errorf("noop: wait_ms=%s must not be negative", arg("wait_ms").python())
		}
		return []Action{{Op: Wait}}, nil
	case "send_msg_to_user":
		return []Action{FinishWith(arg("text").Str)}, nil
	case "report_infeasible":
		return []Action{FinishWith(arg("reason").Str)}, nil
	}
	return nil, notImplemented("%s is not supported: Waymark performs %s", c.Name, strings.Join(GymAccepted, ", "))
}

// notImplemented refuses what BrowserGym performs and Waymark does not.
func notImplemented(format string, a ...any) error {
	return &GymError{Type: "NotImplementedError", Msg: fmt.Sprintf(format, a...)}
}

// centre is the middle of the part of bbox (x, y, w, h) inside the viewport.
func centre(bid string, b [4]float64) (int, int, error) {
	if !(b[2] > 0 && b[3] > 0) {
		return 0, 0, &ElementError{Bid: bid, Msg: fmt.Sprintf("ValueError: element with bid %s has no box (it is not rendered)", strconv.Quote(bid))}
	}
	x0, x1 := math.Max(b[0], 0), math.Min(b[0]+b[2], ViewportWidth)
	y0, y1 := math.Max(b[1], 0), math.Min(b[1]+b[3], ViewportHeight)
	if !(x1 > x0 && y1 > y0) {
		return 0, 0, &ElementError{Bid: bid, Msg: fmt.Sprintf("ValueError: element with bid %s is outside the viewport (box x=%g y=%g w=%g h=%g): scroll it into view first, e.g. scroll(0, 300)",
			strconv.Quote(bid), b[0], b[1], b[2], b[3])}
	}
	x := min(int(math.Floor((x0+x1)/2)), ViewportWidth-1)
	y := min(int(math.Floor((y0+y1)/2)), ViewportHeight-1)
	return x, y, nil
}

// gymXY reads a point, rounded to whole pixels, inside the viewport.
func gymXY(c GymCall, xn, yn string) (int, int, error) {
	x, y := math.Round(c.Args[xn].Num), math.Round(c.Args[yn].Num)
	if x < 0 || x >= ViewportWidth || y < 0 || y >= ViewportHeight {
		return 0, 0, fmt.Errorf("%s: (%s, %s) is outside the %d×%d viewport: %s must be 0–%d and %s 0–%d",
			c.Name, c.Args[xn].python(), c.Args[yn].python(), ViewportWidth, ViewportHeight, xn, ViewportWidth-1, yn, ViewportHeight-1)
	}
	return int(x), int(y), nil
}

// gymKeyAliases are the Playwright key names Waymark reads besides those
// action.BrowserGym writes.
var gymKeyAliases = map[string]string{
	"ControlOrMeta+A": "CTRL+A",
	"Control+a":       "CTRL+A",
	"Control+A":       "CTRL+A",
	" ":               "SPACE",
}

// gymKey turns a Playwright key (keyboard_press, press) into a key action,
// or a type action for one printable character.
func gymKey(fn, key string) (Action, error) {
	if k, ok := gymKeyAliases[key]; ok {
		return PressKey(k), nil
	}
	names := make([]string, 0, len(browserGymKeys))
	for _, w := range append(DefaultKeys, ExtendedKeys...) {
		pw := browserGymKeys[w]
		if pw == key {
			return PressKey(w), nil
		}
		names = append(names, pw)
	}
	if r, n := utf8.DecodeRuneInString(key); n == len(key) && n > 0 && unicode.IsPrint(r) {
		return TypeText(key), nil
	}
	if _, err := SplitKeyCombo(key); err == nil {
		return PressKey(key), nil // a Playwright key or combination (the browsergym set)
	}
	hint := ""
	for _, pw := range names {
		if strings.EqualFold(pw, key) {
			hint = fmt.Sprintf(" (did you mean %s? key names are case-sensitive)", strconv.Quote(pw))
		}
	}
	return Action{}, fmt.Errorf("%s: Unknown key: %s%s: give a Playwright key or combination (%s, Control+c, Meta+a, F5, ...) or one character such as 'a'",
		fn, strconv.Quote(key), hint, strings.Join(names, ", "))
}
