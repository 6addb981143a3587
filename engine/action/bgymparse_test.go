package action

import (
	"strings"
	"testing"
)

func TestParseBrowserGymAccepts(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`click('a51')`, `click(bid='a51', button='left', modifiers=[])`},
		{`click("a51", button="left")`, `click(bid='a51', button='left', modifiers=[])`},
		{`  click ( 'a51' , )  # the buy button`, `click(bid='a51', button='left', modifiers=[])`},
		{`click(bid='a51', modifiers=['Shift', 'Alt',])`, `click(bid='a51', button='left', modifiers=['Shift', 'Alt'])`},
		{`click('a51', 'right')`, `click(bid='a51', button='right', modifiers=[])`},
		{`dblclick('12')`, `dblclick(bid='12', button='left', modifiers=[])`},
		{`hover('b3')`, `hover(bid='b3')`},
		{`fill('a12', 'red shoes')`, `fill(bid='a12', value='red shoes', enable_autocomplete_menu=False)`},
		{`fill('a12', "", enable_autocomplete_menu=True)`, `fill(bid='a12', value='', enable_autocomplete_menu=True)`},
		{`press('a12', 'ControlOrMeta+a')`, `press(bid='a12', key_comb='ControlOrMeta+a')`},
		{`focus('a1')`, `focus(bid='a1')`},
		{`clear('a1')`, `clear(bid='a1')`},
		{`select_option('a3', ['Red', "Blue"])`, `select_option(bid='a3', options=['Red', 'Blue'])`},
		{`select_option('a3', 'Red')`, `select_option(bid='a3', options='Red')`},
		{`drag_and_drop('a1', to_bid='a2')`, `drag_and_drop(from_bid='a1', to_bid='a2')`},
		{`scroll(0, 300)`, `scroll(delta_x=0, delta_y=300)`},
		{`scroll(-0.0, -1_000.5)`, `scroll(delta_x=-0, delta_y=-1000.5)`},
		{`scroll(0, +3e2)`, `scroll(delta_x=0, delta_y=300)`},
		{`scroll(0, .5)`, `scroll(delta_x=0, delta_y=0.5)`},
		{`scroll_at(10, 20, 0, -300)`, `scroll_at(x=10, y=20, dx=0, dy=-300)`},
		{`go_back()`, `go_back()`},
		{`go_forward()`, `go_forward()`},
		{`goto('https://example.com/a?b=1#c')`, `goto(url='https://example.com/a?b=1#c')`},
		{`noop()`, `noop(wait_ms=1000)`},
		{`noop(500)`, `noop(wait_ms=500)`},
		{`noop(wait_ms=2.5)`, `noop(wait_ms=2.5)`},
		{`send_msg_to_user('42')`, `send_msg_to_user(text='42')`},
		{`report_infeasible('there is no such item')`, `report_infeasible(reason='there is no such item')`},
		{`mouse_click(312, 188)`, `mouse_click(x=312, y=188, button='left')`},
		{`mouse_click(312.7, 188, button='left')`, `mouse_click(x=312.7, y=188, button='left')`},
		{`mouse_dblclick(1, 2)`, `mouse_dblclick(x=1, y=2, button='left')`},
		{`mouse_move(1, 2)`, `mouse_move(x=1, y=2)`},
		{`mouse_drag_and_drop(1, 2, 3, 4)`, `mouse_drag_and_drop(from_x=1, from_y=2, to_x=3, to_y=4)`},
		{`keyboard_type('red shoes')`, `keyboard_type(text='red shoes')`},
		{`keyboard_press('Enter')`, `keyboard_press(key='Enter')`},
		{`tab_focus(0)`, `tab_focus(index=0)`},
		{`mouse_click(100000000000000000000, 0)`, `mouse_click(x=1e+20, y=0, button='left')`},
	} {
		got, err := ParseBrowserGym(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got.String(), c.want)
		}
		if got.Source != strings.TrimSpace(c.in) {
			t.Errorf("%s: source %q", c.in, got.Source)
		}
	}
}

func TestParseBrowserGymStrings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`keyboard_type('it\'s "x"')`, `it's "x"`},
		{`keyboard_type("it's \"x\"")`, `it's "x"`},
		{`keyboard_type('a\nb\tc\\d\re')`, "a\nb\tc\\d\re"},
		{`keyboard_type('\x41\u00e9\U0001F600')`, "Aé😀"},
		{`keyboard_type('\101\0\7')`, "A\x00\x07"},
		{`keyboard_type('\a\b\f\v')`, "\a\b\f\v"},
		{`keyboard_type('\d\w')`, `\d\w`}, // Python keeps unknown escapes
		{`keyboard_type('# not a comment')`, `# not a comment`},
		{`keyboard_type('café ☕')`, "café ☕"},
	} {
		got, err := ParseBrowserGym(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if s := got.Args["text"].Str; s != c.want {
			t.Errorf("%s: got %q, want %q", c.in, s, c.want)
		}
	}
	c, err := ParseBrowserGym(`mouse_click(312.7, 188)`)
	if err != nil || c.Args["x"].Kind != GymNumber || c.Args["x"].Num != 312.7 || c.Args["x"].Int || !c.Args["y"].Int {
		t.Errorf("typed numbers: %+v %v", c.Args, err)
	}
	c, _ = ParseBrowserGym(`fill('a1', 'x', True)`)
	if v := c.Args["enable_autocomplete_menu"]; v.Kind != GymBool || !v.Bool {
		t.Errorf("typed bool: %+v", v)
	}
}

func TestParseBrowserGymRefuses(t *testing.T) {
	names := "noop, send_msg_to_user, report_infeasible, scroll, fill, select_option, click, dblclick, hover, press, focus, clear, drag_and_drop, upload_file, scroll_at, mouse_move, mouse_up, mouse_down, mouse_click, mouse_dblclick, mouse_drag_and_drop, mouse_upload_file, keyboard_down, keyboard_up, keyboard_press, keyboard_type, keyboard_insert_text, goto, go_back, go_forward, new_tab, tab_close, tab_focus"
	clickSig := "write click(bid, button='left', modifiers=[])"
	for _, c := range []struct{ in, want string }{
		{``, `no action: write one BrowserGym call such as click('a51') or mouse_click(312, 188)`},
		{`# only a comment`, `no action: write one BrowserGym call such as click('a51') or mouse_click(312, 188)`},
		{`42`, `expected an action call such as click('a51') at column 1, got "42"`},
		{`{"op":"click","x":1,"y":2}`, `expected an action call such as click('a51') at column 1, got "{\"op\":\"click\",\"x\":1,…"`},
		{`foo('a')`, `unknown action "foo": the BrowserGym actions are ` + names},
		{`Click('a1')`, `unknown action "Click": the BrowserGym actions are ` + names},
		{`click`, `click at column 6: expected ( after the action's name, got the end of the line`},
		{`click('a51') click('a52')`, `only one call per action (multiaction is off): found "click('a52')" after the call at column 14`},
		{`click('a51');`, `unexpected ";" after the call at column 13: an action is one call, optionally followed by a # comment`},
		{`click('a51'`, `click: missing ) at the end of the call`},
		{`click('a51' # x`, `click: missing ) at the end of the call`},
		{`click('a51)`, `click: unterminated string starting at column 7: close it with '`},
		{`click('a51' 'a52')`, `click: two strings side by side at column 13: join them into one string`},
		{`click('a51' 3)`, `click: expected , or ) at column 13, got "3)"`},
		{`click()`, `click is missing its argument bid: ` + clickSig},
		{`click(a51)`, `click: unknown name a51 at column 7: arguments are literal values ('text', 12, 0.5, True, None, [...]), not names`},
		{`click(51)`, `click: bid must be a string, got the number 51: ` + clickSig},
		{`click(None)`, `click: bid must be a string, got None: ` + clickSig},
		{`click('')`, `click: bid must not be empty (a bid names an element, e.g. 'a51'): ` + clickSig},
		{`click('a1', button='top')`, `click: button must be one of 'left', 'middle', 'right', got the string 'top': ` + clickSig},
		{`click('a1', modifiers=['Hyper'])`, `click: modifiers must name modifiers among 'Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift', got the string 'Hyper': ` + clickSig},
		{`click('a1', modifiers='Shift')`, `click: modifiers must be a list of strings, got the string 'Shift': ` + clickSig},
		{`click('a1', modifiers=[1])`, `click: modifiers must be a list of strings, got a list holding the number 1: ` + clickSig},
		{`click('a1', force=True)`, `click has no argument "force": ` + clickSig},
		{`click(bid='a1', 'left')`, `click: positional argument at column 17 after a keyword argument: write the positional arguments first`},
		{`click('a1', bid='a2')`, `click got two values for bid: ` + clickSig},
		{`click(bid='a1', bid='a2')`, `click: keyword argument bid given twice (column 17)`},
		{`fill('a1', 'x', False, 'z')`, `fill takes at most 3 arguments, got 4: write fill(bid, value, enable_autocomplete_menu=False)`},
		{`fill('a1', 'x', 1)`, `fill: enable_autocomplete_menu must be True or False, got the number 1: write fill(bid, value, enable_autocomplete_menu=False)`},
		{`fill('a1', r'x')`, `fill: the string prefix r at column 12 is not accepted: write a plain '...' string`},
		{`fill('a1', '''x''')`, `fill: a triple-quoted string at column 12 is not accepted: write '...' with \n for line breaks`},
		{`fill('a1', '\x4')`, `fill: truncated \x escape at column 13: write \x followed by 2 hex digits`},
		{`fill('a1', '\ud800')`, `fill: the escape \ud800 at column 13 is not a Unicode character`},
		{`fill('a1', '\N{BULLET}')`, `fill: a \N{...} escape at column 13 is not accepted: write the character itself or \uXXXX`},
		{"fill('a1', 'a\x00')", `fill: a NUL character in the string at column 14: write \x00 instead`},
		{"fill('a1', 'caf\xe9')", `the action is not valid UTF-8 text: send it as UTF-8`},
		{`mouse_click('1', 2)`, `mouse_click: x must be a number, got the string '1': write mouse_click(x, y, button='left')`},
		{`mouse_click(0x10, 2)`, `mouse_click: malformed number "0x10" at column 13: write a decimal number such as 12, -3 or 0.5`},
		{`mouse_click(12px, 2)`, `mouse_click: malformed number "12px" at column 13: write a decimal number such as 12, -3 or 0.5`},
		{`mouse_click(1__0, 2)`, `mouse_click: malformed number "1__0" at column 13: write a decimal number such as 12, -3 or 0.5`},
		{`mouse_click(012, 2)`, `mouse_click: the number 012 at column 13 has a leading zero, which Python refuses: write 12`},
		{`mouse_click(-, 2)`, `mouse_click: expected a number after - at column 13, got ", 2)"`},
		{`mouse_click(1, )`, `mouse_click is missing its argument y: write mouse_click(x, y, button='left')`},
		{`mouse_click(1, ,)`, `mouse_click: expected a value at column 16, got ",)"`},
		{`noop(1e999)`, `noop: the number 1e999 at column 6 is too large`},
		{`scroll(0, true)`, `scroll: unknown name true at column 11: write True, False or None`},
		{`click(('a1'))`, `click: a tuple or parenthesis at column 7 is not accepted: write a list [...] or the value itself`},
		{`click({'a': 1})`, `click: a dict or set at column 7 is not accepted: BrowserGym's arguments are strings, numbers, True/False/None and lists`},
		{`select_option('a1', ['x'`, `select_option: missing ] for the list that starts at column 21`},
		{`select_option('a1', ['x' 'y'])`, `select_option: two strings side by side at column 26: join them into one string`},
		{`select_option('a1', ['x';])`, `select_option: expected , or ] in the list at column 25, got ";])"`},
		{`select_option('a1', [[[[[[[[[1]]]]]]]]])`, `select_option: lists nested more than 8 deep at column 29`},
		{`go_back(1)`, `go_back takes at most 0 arguments, got 1: write go_back()`},
	} {
		_, err := ParseBrowserGym(c.in)
		if err == nil {
			t.Errorf("%s: accepted", c.in)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, err, c.want)
		}
	}
}

// Every bid argument of every BrowserGym action refuses an empty string,
// given by position or by keyword — not only the ones named bid.
func TestParseBrowserGymRefusesEveryEmptyBid(t *testing.T) {
	const empty = " must not be empty (a bid names an element, e.g. 'a51'): write "
	sigs := map[string]string{
		"fill":          "fill(bid, value, enable_autocomplete_menu=False)",
		"select_option": "select_option(bid, options)",
		"click":         "click(bid, button='left', modifiers=[])",
		"dblclick":      "dblclick(bid, button='left', modifiers=[])",
		"hover":         "hover(bid)",
		"press":         "press(bid, key_comb)",
		"focus":         "focus(bid)",
		"clear":         "clear(bid)",
		"drag_and_drop": "drag_and_drop(from_bid, to_bid)",
		"upload_file":   "upload_file(bid, file)",
	}
	cases := []struct{ in, fn, arg string }{
		{`fill('', 'x')`, "fill", "bid"},
		{`fill(bid='', value='x')`, "fill", "bid"},
		{`select_option('', 'red')`, "select_option", "bid"},
		{`select_option(options=['red'], bid='')`, "select_option", "bid"},
		{`click('')`, "click", "bid"},
		{`click(bid="")`, "click", "bid"},
		{`dblclick('')`, "dblclick", "bid"},
		{`dblclick(bid='', button='right')`, "dblclick", "bid"},
		{`hover('')`, "hover", "bid"},
		{`hover(bid='')`, "hover", "bid"},
		{`press('', 'Enter')`, "press", "bid"},
		{`press(bid='', key_comb='Enter')`, "press", "bid"},
		{`focus('')`, "focus", "bid"},
		{`focus(bid='')`, "focus", "bid"},
		{`clear('')`, "clear", "bid"},
		{`clear(bid='')`, "clear", "bid"},
		{`drag_and_drop('', 'a2')`, "drag_and_drop", "from_bid"},
		{`drag_and_drop('a1', '')`, "drag_and_drop", "to_bid"},
		{`drag_and_drop(from_bid='', to_bid='a2')`, "drag_and_drop", "from_bid"},
		{`drag_and_drop('a1', to_bid='')`, "drag_and_drop", "to_bid"},
		{`drag_and_drop(to_bid="", from_bid='a1')`, "drag_and_drop", "to_bid"},
		{`upload_file('', 'a.txt')`, "upload_file", "bid"},
		{`upload_file(bid='', file=['a.txt'])`, "upload_file", "bid"},
	}
	for _, c := range cases {
		want := c.fn + ": " + c.arg + empty + sigs[c.fn]
		_, err := ParseBrowserGym(c.in)
		if err == nil {
			t.Errorf("%s: accepted", c.in)
			continue
		}
		if err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, err, want)
		}
	}
	// The cases above cover every bid argument the parser knows: a new
	// action taking a bid must be added to them.
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.fn+"."+c.arg] = true
	}
	for _, f := range gymFunctions {
		for _, p := range f.params {
			if strings.Contains(p.name, "bid") && !covered[f.name+"."+p.name] {
				t.Errorf("%s's argument %s is a bid no case above tries empty", f.name, p.name)
			}
		}
	}
	if len(covered) != 11 {
		t.Errorf("the cases cover %d bid arguments, want 11", len(covered))
	}
}

// GymLastActionError writes a refused action string as BrowserGym's
// last_action_error: the Python exception BrowserGym raises for the case,
// in BrowserGym's words where it has them.
func TestGymLastActionError(t *testing.T) {
	sig := "write click(bid, button='left', modifiers=[])"
	for _, c := range []struct{ in, want string }{
		{``, `ValueError: Received an empty action.`},
		{`# only a comment`, `ValueError: Received an empty action.`},
		{`foo('a')`, `NameError: Invalid action type 'foo'. The BrowserGym actions are noop, send_msg_to_user, `},
		{`click('a51') click('a52')`, `ValueError: Received a multi-action, only single-actions are allowed. Found "click('a52')" after the call at column 14 (multiaction is off: one call per action).`},
		{`click()`, `TypeError: click is missing its argument bid: ` + sig},
		{`go_back(1)`, `TypeError: go_back takes at most 0 arguments, got 1: write go_back()`},
		{`click('a1', force=True)`, `TypeError: click has no argument "force": ` + sig},
		{`click('a1', bid='a2')`, `TypeError: click got two values for bid: ` + sig},
		{`click(51)`, `ValueError: click: bid must be a string, got the number 51: ` + sig},
		{`click('a51'`, `ValueError: click: missing ) at the end of the call`},
		{`upload_file('a1', 'x.pdf')`, `NotImplementedError: upload_file is not supported: Waymark does not upload files`},
		{`click('a1', button='right')`, `NotImplementedError: click: button='right' is not supported: Waymark clicks with the left button only`},
		{`scroll(10, 0)`, `NotImplementedError: scroll: horizontal scrolling (delta_x=10) is not supported: give delta_x=0`},
		{`mouse_move(900, 1)`, `ValueError: mouse_move: (900, 1) is outside the 800×600 viewport: x must be 0–799 and y 0–599`},
		{`click('a9')`, `ValueError: Could not find element with bid "a9"`},
	} {
		call, err := ParseBrowserGym(c.in)
		if err == nil {
			_, err = call.Waymark(func(string) (Target, error) { return Target{}, ErrNoElement })
		}
		if err == nil {
			t.Errorf("%s: accepted", c.in)
			continue
		}
		if got := GymLastActionError(err); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
