package action

import (
	"strings"
	"testing"
)

// The browsergym set takes the BrowserGym operations and Playwright key
// combinations; the default and extended sets refuse them, saying which set
// has them. A stored action reads back as it was written.
func TestBrowserGymSet(t *testing.T) {
	for _, c := range []struct {
		in  string
		set Set
		err string // "" when accepted
	}{
		{`{"op":"select","x":1,"y":2,"values":["Red","b"]}`, SetBrowserGym, ""},
		{`{"op":"select","x":1,"y":2,"values":[]}`, SetBrowserGym, ""},
		{`{"op":"select","x":1,"y":2,"values":[3]}`, SetBrowserGym, "values.0: Input should be a valid string"},
		{`{"op":"select","x":1,"y":2,"values":["a"]}`, SetExtended, `"select" is a BrowserGym action; this episode uses the extended action set`},
		{`{"op":"set_value","x":1,"y":2,"text":"2024-01-15"}`, SetBrowserGym, ""},
		{`{"op":"set_value","text":"2024-01-15"}`, SetBrowserGym, "set_value needs x and y"},
		{`{"op":"mouse_down","x":1,"y":2}`, SetBrowserGym, ""},
		{`{"op":"mouse_up"}`, SetBrowserGym, "mouse_up needs x and y"},
		{`{"op":"key_down","text":"Shift"}`, SetBrowserGym, ""},
		{`{"op":"key_up","text":"Hyper"}`, SetBrowserGym, "key_up needs one of Playwright's key names"},
		{`{"op":"insert_text","text":"héllo"}`, SetBrowserGym, ""},
		{`{"op":"key","text":"Control+c"}`, SetBrowserGym, ""},
		{`{"op":"key","text":"Shift++"}`, SetBrowserGym, ""},
		{`{"op":"key","text":"Control+c"}`, SetExtended, "unsupported key"},
		{`{"op":"key","text":"Hyper+c"}`, SetBrowserGym, "unsupported key"},
		{`{"op":"key","text":"ENTER"}`, SetBrowserGym, ""},
		{`{"op":"forward"}`, SetBrowserGym, ""},
		{`{"op":"new_tab"}`, SetBrowserGym, ""},
		{`{"op":"tab_focus","index":1}`, SetBrowserGym, ""},
		{`{"op":"tab_focus"}`, SetBrowserGym, "tab_focus needs index"},
		{`{"op":"tab_focus","index":-1}`, SetBrowserGym, "index: Input should be greater than or equal to 0"},
		{`{"op":"tab_close"}`, SetBrowserGym, ""},
		{`{"op":"tab_close"}`, SetDefault, `"tab_close" is a BrowserGym action; this episode uses the default action set`},
		{`{"op":"click","x":1,"y":2,"values":["a"]}`, SetExtended, "values: Extra inputs are not permitted"},
	} {
		a, err := Parse([]byte(c.in), c.set)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s in %s: %v", c.in, c.set, err)
				continue
			}
			again, err := Parse(mustJSON(t, a), c.set)
			if err != nil || again.String() != a.String() {
				t.Errorf("%s: wrote %s, read back %s (%v)", c.in, mustJSON(t, a), again, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s in %s: error %v, want %q", c.in, c.set, err, c.err)
		}
	}
	if s, err := ParseSet("browsergym"); err != nil || s != SetBrowserGym {
		t.Errorf("ParseSet(browsergym) = %v, %v", s, err)
	}
}

func mustJSON(t *testing.T, a Action) []byte {
	t.Helper()
	b, err := a.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Playwright's key names and combinations, as its keyboard reads them.
func TestPlaywrightKeys(t *testing.T) {
	for _, c := range []struct {
		in   string
		keys string // key/code of each, joined by " "
	}{
		{"Enter", "Enter/Enter"},
		{"Control+c", "Control/ControlLeft c/KeyC"},
		{"ControlOrMeta+a", "Control/ControlLeft a/KeyA"},
		{"Shift++", "Shift/ShiftLeft +/Equal"},
		{"Meta+Shift+KeyZ", "Meta/MetaLeft Shift/ShiftLeft z/KeyZ"},
		{"F5", "F5/F5"},
		{"é", "é/"},
		{"!", "!/Digit1"},
	} {
		ks, err := SplitKeyCombo(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		var got []string
		for _, k := range ks {
			got = append(got, k.Key+"/"+k.Code)
		}
		if strings.Join(got, " ") != c.keys {
			t.Errorf("%q: %s, want %s", c.in, strings.Join(got, " "), c.keys)
		}
	}
	for _, bad := range []string{"", "Hyper", "Control+", "Ctrl+c", "enter"} {
		if _, err := SplitKeyCombo(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The BrowserGym operations written back in BrowserGym's vocabularies
// (exports, the timeline) read back as the same Waymark actions.
func TestBrowserGymOpsWritten(t *testing.T) {
	el := &Target{Bid: "a12", InputType: "date", BBox: [4]float64{0, 0, 100, 20}}
	sel := &Target{Bid: "s1", Tag: "select", BBox: [4]float64{0, 0, 100, 20}}
	for _, c := range []struct {
		a             Action
		target        *Target
		coord, elemnt string
	}{
		{Action{Op: SetValue, X: Int(50), Y: Int(10), Text: "2024-01-15"}, el, "", "fill('a12', '2024-01-15')"},
		{Action{Op: Select, X: Int(50), Y: Int(10), Values: []string{"b"}}, sel, "", "select_option('s1', 'b')"},
		{Action{Op: Select, X: Int(50), Y: Int(10), Values: []string{"r", "b"}}, sel, "", "select_option('s1', ['r', 'b'])"},
		{Action{Op: MouseDown, X: Int(5), Y: Int(6)}, nil, "mouse_down(5, 6)", ""},
		{Action{Op: MouseUp, X: Int(5), Y: Int(6)}, nil, "mouse_up(5, 6)", ""},
		{Action{Op: KeyDown, Text: "Shift"}, nil, `keyboard_down("Shift")`, "keyboard_down('Shift')"},
		{Action{Op: KeyUp, Text: "Shift"}, nil, `keyboard_up("Shift")`, "keyboard_up('Shift')"},
		{Action{Op: InsertText, Text: "hé"}, nil, `keyboard_insert_text("hé")`, "keyboard_insert_text('hé')"},
		{Action{Op: Key, Text: "Control+c"}, nil, `keyboard_press("Control+c")`, ""},
		{Action{Op: Forward}, nil, "go_forward()", "go_forward()"},
		{Action{Op: NewTab}, nil, "new_tab()", "new_tab()"},
		{Action{Op: TabFocus, Index: Int(1)}, nil, "tab_focus(1)", "tab_focus(1)"},
		{Action{Op: TabClose}, nil, "tab_close()", "tab_close()"},
	} {
		if got := BrowserGym(c.a); got != c.coord {
			t.Errorf("%s: BrowserGym %q, want %q", c.a, got, c.coord)
		}
		if got := BrowserGymElement(c.a, c.target); got != c.elemnt {
			t.Errorf("%s: BrowserGymElement %q, want %q", c.a, got, c.elemnt)
		}
		for _, s := range []string{BrowserGym(c.a), BrowserGymElement(c.a, c.target)} {
			if s == "" {
				continue
			}
			call, err := ParseBrowserGym(s)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", c.a, s, err)
				continue
			}
			acts, err := call.Waymark(func(bid string) (Target, error) {
				if bid == "s1" {
					return *sel, nil
				}
				return *el, nil
			})
			if err != nil || len(acts) == 0 || acts[len(acts)-1].String() != c.a.String() {
				t.Errorf("%s: %s reads back as %v (%v)", c.a, s, acts, err)
			}
		}
	}
}
