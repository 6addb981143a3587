package action

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// testPage is a page's elements by bid, as an element resolver sees them.
var testPage = map[string]Target{
	"a51":  {Bid: "a51", Tag: "button", BBox: [4]float64{100, 200, 50, 20}},
	"a12":  {Bid: "a12", Tag: "input", BBox: [4]float64{10.5, 30.25, 200, 24}, InputType: "text"},
	"d1":   {Bid: "d1", Tag: "input", BBox: [4]float64{0, 0, 100, 20}, InputType: "date"},
	"c1":   {Bid: "c1", Tag: "input", BBox: [4]float64{0, 20, 100, 20}, InputType: "color"},
	"s1":   {Bid: "s1", Tag: "select", BBox: [4]float64{0, 40, 100, 20}},
	"edge": {Bid: "edge", Tag: "div", BBox: [4]float64{700, 550, 300, 300}},     // partly off screen
	"gone": {Bid: "gone", Tag: "div", BBox: [4]float64{0, 0, 0, 0}},             // display:none
	"far":  {Bid: "far", Tag: "div", BBox: [4]float64{10, 1500, 100, 40}},       // below the fold
	"wide": {Bid: "wide", Tag: "div", BBox: [4]float64{-100, -100, 1000, 1000}}, // bigger than the viewport
}

func resolveTestPage(bid string) (Target, error) {
	if bid == "broken" {
		return Target{}, errors.New("renderer timed out")
	}
	if t, ok := testPage[bid]; ok {
		return t, nil
	}
	return Target{}, fmt.Errorf("looking up %q: %w", bid, ErrNoElement)
}

func translate(t *testing.T, in string, resolve Resolver) (string, error) {
	t.Helper()
	c, err := ParseBrowserGym(in)
	if err != nil {
		t.Fatalf("%s: does not parse: %v", in, err)
	}
	as, err := c.Waymark(resolve)
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.String()
	}
	return strings.Join(parts, " ; "), err
}

func TestGymToWaymark(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`click('a51')`, `click 125,210`},
		{`click('a12')`, `click 110,42`},
		{`click('edge')`, `click 750,575`},
		{`click('wide')`, `click 400,300`},
		{`dblclick('a51')`, `double_click 125,210`},
		{`hover('a51')`, `move 125,210`},
		{`focus('a12')`, `click 110,42`},
		{`fill('a12', 'red shoes')`, `click 110,42 ; key CTRL+A ; type "red shoes"`},
		{`fill('a12', '')`, `click 110,42 ; key CTRL+A ; key BACKSPACE`},
		{`clear('a12')`, `click 110,42 ; key CTRL+A ; key BACKSPACE`},
		{`press('a12', 'Enter')`, `click 110,42 ; key ENTER`},
		{`press('a12', 'ControlOrMeta+a')`, `click 110,42 ; key CTRL+A`},
		{`press('a12', 'x')`, `click 110,42 ; type "x"`},
		{`drag_and_drop('a51', 'a12')`, `drag 125,210→110,42`},
		{`scroll(0, 300)`, `scroll 300`},
		{`scroll(0.0, -250.5)`, `scroll -251`},
		{`scroll_at(10, 20, 0, 120)`, `move 10,20 ; scroll 120`},
		{`mouse_click(312, 188)`, `click 312,188`},
		{`mouse_click(312.5, 187.4)`, `click 313,187`},
		{`mouse_click(0, 599.4)`, `click 0,599`},
		{`mouse_dblclick(5, 6)`, `double_click 5,6`},
		{`mouse_move(5, 6)`, `move 5,6`},
		{`mouse_drag_and_drop(1, 2, 3, 4)`, `drag 1,2→3,4`},
		{`keyboard_type('red shoes')`, `type "red shoes"`},
		{`keyboard_press('Enter')`, `key ENTER`},
		{`keyboard_press('Control+a')`, `key CTRL+A`},
		{`keyboard_press('Shift+Tab')`, `key SHIFT+TAB`},
		{`keyboard_press(' ')`, `key SPACE`},
		{`keyboard_press('é')`, `type "é"`},
		{`goto('https://example.com/')`, `goto https://example.com/`},
		{`go_back()`, `back`},
		{`noop()`, `wait`},
		{`noop(500)`, `wait`},
		{`send_msg_to_user('42')`, `finish "42"`},
		{`report_infeasible('no such item')`, `finish "no such item"`},
		{`fill('d1', '2024-01-15')`, `set_value 50,10 "2024-01-15"`},
		{`fill('c1', '#00ff00')`, `set_value 50,30 "#00ff00"`},
		{`fill('d1', '')`, `set_value 50,10 ""`},
		{`clear('d1')`, `set_value 50,10 ""`},
		{`select_option('s1', 'Blue')`, `select 50,50 ["Blue"]`},
		{`select_option('s1', ['red', "green"])`, `select 50,50 ["red", "green"]`},
		{`mouse_down(1, 2)`, `mouse_down 1,2`},
		{`mouse_up(3.4, 2)`, `mouse_up 3,2`},
		{`mouse_click(800, 10)`, ``},
		{`mouse_click(-0.6, 10)`, ``},
		{`mouse_dblclick(5, 600)`, ``},
		{`mouse_down(5, 900)`, ``},
		{`keyboard_down('Shift')`, `key_down Shift`},
		{`keyboard_up('a')`, `key_up a`},
		{`keyboard_insert_text('x y')`, `insert_text "x y"`},
		{`keyboard_press('Shift+Tab')`, `key SHIFT+TAB`},
		{`keyboard_press('F5')`, `key F5`},
		{`keyboard_press('Meta+a')`, `key Meta+a`},
		{`press('a12', 'Control+c')`, `click 110,42 ; key Control+c`},
		{`press('a12', 'Shift++')`, `click 110,42 ; key Shift++`},
		{`go_forward()`, `forward`},
		{`new_tab()`, `new_tab`},
		{`tab_focus(1)`, `tab_focus 1`},
		{`tab_close()`, `tab_close`},
	} {
		got, err := translate(t, c.in, resolveTestPage)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestGymToWaymarkRefuses(t *testing.T) {
	keys := "Enter, Tab, Escape, Backspace, ControlOrMeta+a, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, PageUp, PageDown, Home, End, Delete, Space, Shift+Tab"
	for _, c := range []struct{ in, want string }{
		{`upload_file('a1', 'x.pdf')`, `upload_file is not supported: Waymark does not upload files`},
		{`click('a51', button='right')`, `click: button='right' is not supported: Waymark clicks with the left button only`},
		{`mouse_click(1, 2, 'middle')`, `mouse_click: button='middle' is not supported: Waymark clicks with the left button only`},
		{`click('a51', modifiers=['Shift'])`, `click: modifiers=['Shift'] are not supported: Waymark clicks without modifier keys`},
		{`scroll(10, 0)`, `scroll: horizontal scrolling (delta_x=10) is not supported: give delta_x=0`},
		{`scroll_at(1, 2, -5, 0)`, `scroll_at: horizontal scrolling (dx=-5) is not supported: give dx=0`},
		{`scroll(0, 1200.6)`, `scroll: delta_y=1200.6 is outside -1200…1200: scroll in several steps`},
		{`mouse_move(800, 10)`, `mouse_move: (800, 10) is outside the 800×600 viewport: x must be 0–799 and y 0–599`},
		{`mouse_move(-0.6, 10)`, `mouse_move: (-0.6, 10) is outside the 800×600 viewport: x must be 0–799 and y 0–599`},
		{`keyboard_down('Hyper')`, `keyboard_down: Unknown key: "Hyper": give one of Playwright's key names (Shift, Control, Enter, ArrowLeft, KeyA, F5, ...) or one character`},
		{`tab_focus(-1)`, `tab_focus: index=-1 must be the index of an open tab (0, 1, ...), as open_pages_urls lists them`},
		{`mouse_drag_and_drop(1, 2, 3, 600)`, `mouse_drag_and_drop: (3, 600) is outside the 800×600 viewport: to_x must be 0–799 and to_y 0–599`},
		{`keyboard_press('enter')`, `keyboard_press: Unknown key: "enter" (did you mean "Enter"? key names are case-sensitive): give a Playwright key or combination (` + keys + `, Control+c, Meta+a, F5, ...) or one character such as 'a'`},
		{`press('nope', 'Hyper+a')`, `press: Unknown key: "Hyper+a": give a Playwright key or combination (` + keys + `, Control+c, Meta+a, F5, ...) or one character such as 'a'`},
		{`keyboard_type('')`, `keyboard_type needs text: keyboard_type('') types nothing`},
		{`keyboard_type('` + strings.Repeat("x", 2001) + `')`, `keyboard_type: text has 2001 characters, more than the 2000 Waymark takes`},
		{`goto('ftp://example.com/')`, `goto: 'ftp://example.com/' is not an http(s) URL without credentials: write goto('https://example.com/')`},
		{`noop(-1)`, `noop: wait_ms=-1 must not be negative`},
	} {
		got, err := translate(t, c.in, resolveTestPage)
		var ee *ElementError
		if err == nil || errors.As(err, &ee) {
			t.Errorf("%s: not refused: %q %v", c.in, got, err)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, err, c.want)
		}
	}
}

func TestGymElementErrors(t *testing.T) {
	for _, c := range []struct{ in, bid, want string }{
		{`click('zz')`, "zz", `ValueError: Could not find element with bid "zz"`},
		{`fill('zz', 'x')`, "zz", `ValueError: Could not find element with bid "zz"`},
		{`drag_and_drop('a51', 'zz')`, "zz", `ValueError: Could not find element with bid "zz"`},
		{`hover('gone')`, "gone", `ValueError: element with bid "gone" has no box (it is not rendered)`},
		{`click('far')`, "far", `ValueError: element with bid "far" is outside the viewport (box x=10 y=1500 w=100 h=40): scroll it into view first, e.g. scroll(0, 300)`},
		{`click('broken')`, "broken", `Error: could not find element with bid "broken": renderer timed out`},
	} {
		got, err := translate(t, c.in, resolveTestPage)
		var ee *ElementError
		if !errors.As(err, &ee) {
			t.Errorf("%s: not an element error: %q %v", c.in, got, err)
			continue
		}
		if ee.Bid != c.bid || err.Error() != c.want {
			t.Errorf("%s:\n got %s (bid %q)\nwant %s", c.in, err, ee.Bid, c.want)
		}
	}
	// Without a resolver (an engine that gives no bids) element actions are
	// refused, coordinate ones still work.
	_, err := translate(t, `click('a51')`, nil)
	if err == nil || err.Error() != "click needs the page's elements (bids), which this engine does not give: use the coordinate actions (mouse_click(x, y), ...)" {
		t.Errorf("nil resolver: %v", err)
	}
	if got, err := translate(t, `mouse_click(1, 2)`, nil); err != nil || got != "click 1,2" {
		t.Errorf("nil resolver, coordinates: %q %v", got, err)
	}
}

// Every Waymark action written in BrowserGym's coordinate form by
// BrowserGym, and in its element form by BrowserGymElement, reads back as
// the action (a wait as a wait, whatever its noop milliseconds).
func TestGymRoundTrip(t *testing.T) {
	acts := []Action{ClickAt(312, 188), ClickAt(0, 599), {Op: DoubleClick, X: Int(5), Y: Int(6)},
		{Op: Move, X: Int(799), Y: Int(0)}, {Op: Drag, X: Int(1), Y: Int(2), X2: Int(3), Y2: Int(4)},
		TypeText("red 'shoes' \"x\" \\ \n\t é 😀 \x01"), ScrollBy(-1200), ScrollBy(300), {Op: Back}, {Op: Wait},
		{Op: Goto, URL: "https://example.com/a?q='1'#x"}, FinishWith("42"), FinishWith("")}
	for _, k := range append(DefaultKeys, ExtendedKeys...) {
		acts = append(acts, PressKey(k))
	}
	for _, a := range acts {
		s := BrowserGym(a)
		c, err := ParseBrowserGym(s)
		if err != nil {
			t.Errorf("%s (from %s): %v", s, a, err)
			continue
		}
		got, err := c.Waymark(nil)
		if err != nil || len(got) != 1 || got[0].String() != a.String() {
			t.Errorf("%s: got %v %v, want %s", s, got, err, a)
		}
	}
	el := testPage["a51"]
	for _, c := range []struct {
		a    Action
		want string
	}{
		{ClickAt(125, 210), "click 125,210"},
		{Action{Op: DoubleClick, X: Int(125), Y: Int(210)}, "double_click 125,210"},
		{Action{Op: Move, X: Int(125), Y: Int(210)}, "move 125,210"},
		{TypeText("it's"), `click 125,210 ; key CTRL+A ; type "it's"`},
		{PressKey("SHIFT+TAB"), "click 125,210 ; key SHIFT+TAB"},
	} {
		s := BrowserGymElement(c.a, &el)
		got, err := translate(t, s, resolveTestPage)
		if err != nil || got != c.want {
			t.Errorf("%s: got %q %v, want %q", s, got, err, c.want)
		}
	}
}

// FuzzParseBrowserGym: any line. A refusal says something; an accepted call
// writes itself back as a call that parses to the same call, and the
// Waymark actions it translates to (on a page where every bid is one
// element) are valid in the extended set.
func FuzzParseBrowserGym(f *testing.F) {
	for _, s := range []string{`click('a51')`, `click("a51", button="right")`, `fill('a12', 'red shoes')`,
		`press('a12', 'ControlOrMeta+a')`, `scroll(0, 300)`, `noop()`, `noop(500)`, `send_msg_to_user('42')`,
		`mouse_click(312, 188)`, `mouse_drag_and_drop(1, 2.5, 3e1, -4)`, `keyboard_type('\x41\u00e9\n')`,
		`select_option('a1', ['x', "y",])`, `goto('https://a.b/#c') # go`, `click('a1') click('a2')`,
		`fill('a1', '\N{X}')`, `scroll(0, 1_0.5e-1)`, `click(bid='a', 'b')`, "fill('a', 'caf\xe9')"} {
		f.Add(s)
	}
	page := func(bid string) (Target, error) {
		return Target{Bid: bid, BBox: [4]float64{10, 20, 30, 40}}, nil
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseBrowserGym(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty refusal", line)
			}
			return
		}
		if !utf8.ValidString(line) {
			t.Fatalf("%q: invalid UTF-8 accepted", line)
		}
		again, err := ParseBrowserGym(c.String())
		if err != nil || again.String() != c.String() {
			t.Fatalf("%q: wrote %s, which reads back as %s (%v)", line, c.String(), again.String(), err)
		}
		as, err := c.Waymark(page)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty translation error", line)
			}
			return
		}
		if len(as) == 0 && !strings.HasPrefix(c.Name, "mouse_") && c.Name != "keyboard_insert_text" {
			t.Fatalf("%q: no actions and no error", line)
		}
		for _, a := range as {
			if err := a.Validate(SetBrowserGym); err != nil {
				t.Fatalf("%q: translated to %s, which the browsergym set refuses: %v", line, a, err)
			}
		}
	})
}
