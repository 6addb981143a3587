package action

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// The element form of every action, written out.
func TestBrowserGymElement(t *testing.T) {
	a51 := &Target{Bid: "a51", Tag: "button", Role: "button", Name: "Add to cart"}
	a12 := &Target{Bid: "a12", Tag: "input", Role: "textbox"}
	nobid := &Target{Tag: "body"}
	for _, c := range []struct {
		a    Action
		t    *Target
		want string
	}{
		{ClickAt(312, 188), a51, "click('a51')"},
		{Action{Op: DoubleClick, X: Int(1), Y: Int(2)}, a51, "dblclick('a51')"},
		{Action{Op: Move, X: Int(1), Y: Int(2)}, a51, "hover('a51')"},
		{TypeText("red shoes"), a12, "fill('a12', 'red shoes')"},
		{PressKey("ENTER"), a12, "press('a12', 'Enter')"},
		{PressKey("CTRL+A"), a12, "press('a12', 'ControlOrMeta+a')"},
		{PressKey("SHIFT+TAB"), a12, "press('a12', 'Shift+Tab')"},
		{PressKey("PAGE_DOWN"), a12, "press('a12', 'PageDown')"},
		{PressKey("F5"), a12, "press('a12', 'F5')"}, // not a Waymark key: passed through
		{ScrollBy(300), nil, "scroll(0, 300)"},
		{ScrollBy(-1200), a51, "scroll(0, -1200)"},
		{Action{Op: Back}, nil, "go_back()"},
		{Action{Op: Wait}, nil, "noop(3000)"},
		{FinishWith("42"), nil, "send_msg_to_user('42')"},
		{Action{Op: Goto, URL: "https://shop.test/?q=a&b='c'"}, nil, `goto('https://shop.test/?q=a&b=\'c\'')`},
		// an element action without a bid has no element form
		{ClickAt(1, 2), nil, ""},
		{ClickAt(1, 2), nobid, ""},
		{TypeText("x"), nobid, ""},
		{PressKey("ENTER"), nil, ""},
		{Action{Op: Move, X: Int(1), Y: Int(2)}, nobid, ""},
		// one target cannot name a drag's drop element
		{Action{Op: Drag, X: Int(1), Y: Int(2), X2: Int(3), Y2: Int(4)}, a51, ""},
		{Action{Op: "teleport"}, a51, ""},
		// frame-prefixed bids and odd ones are quoted like any string
		{ClickAt(1, 2), &Target{Bid: "aB3"}, "click('aB3')"},
		{ClickAt(1, 2), &Target{Bid: `x'y\`}, `click('x\'y\\')`},
	} {
		if got := BrowserGymElement(c.a, c.t); got != c.want {
			t.Errorf("%v on %+v: got %q, want %q", c.a, c.t, got, c.want)
		}
	}
	if got := BrowserGymDragAndDrop(&Target{Bid: "a1"}, &Target{Bid: "a2"}); got != "drag_and_drop('a1', 'a2')" {
		t.Errorf("drag: %q", got)
	}
	for _, c := range [][2]*Target{{nil, {Bid: "a2"}}, {{Bid: "a1"}, nil}, {{Bid: "a1"}, {}}, {{}, {Bid: "a2"}}} {
		if got := BrowserGymDragAndDrop(c[0], c[1]); got != "" {
			t.Errorf("drag %+v → %+v: %q, want none", c[0], c[1], got)
		}
	}
}

// tricky strings and their literals, as Python's repr would write them in
// single quotes.
var pyTricky = []struct{ in, want string }{
	{"", `''`},
	{"red shoes", `'red shoes'`},
	{"it's", `'it\'s'`},
	{`say "hi"`, `'say "hi"'`},
	{`back\slash`, `'back\\slash'`},
	{`\'`, `'\\\''`},
	{"two\nlines\r\n", `'two\nlines\r\n'`},
	{"tab\there", `'tab\there'`},
	{"nul\x00bell\x07del\x7f", `'nul\x00bell\x07del\x7f'`},
	{"é ü 日本 🙂", `'é ü 日本 🙂'`},
	{"nbsp\u00a0soft\u00adhyphen", `'nbsp\xa0soft\xadhyphen'`},
	{"line\u2028sep zw\u200bsp", `'line\u2028sep zw\u200bsp'`},
	{"private\U000F0000", `'private\U000f0000'`},
	{"bad\xffbyte", "'bad\uFFFDbyte'"},
	{"<script>&amp;", `'<script>&amp;'`},
	{"#not a comment) , noop()", `'#not a comment) , noop()'`},
}

func TestPyQuoteSingle(t *testing.T) {
	for _, c := range pyTricky {
		got := pyQuoteSingle(c.in)
		if got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("%q: the literal spans lines: %s", c.in, got)
		}
	}
	if got := BrowserGymElement(TypeText("it's\n\"ok\"\\"), &Target{Bid: "a12"}); got != `fill('a12', 'it\'s\n"ok"\\')` {
		t.Errorf("fill: %s", got)
	}
}

// Python itself reads every literal back as the string (when python3 is
// installed): the independent check of the escapes.
func TestPyQuoteSingleReadByPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the literals are checked against the written-out table only")
	}
	var lines []string
	for _, c := range pyTricky {
		lines = append(lines, pyQuoteSingle(c.in))
	}
	prog := `import ast, json, sys
print(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().split("\n")]))`
	cmd := exec.Command(py, "-c", prog)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n"))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3: %v: %s", err, stderr.String())
	}
	var got []string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(pyTricky) {
		t.Fatalf("python read %d strings, want %d", len(got), len(pyTricky))
	}
	for i, c := range pyTricky {
		want := strings.ToValidUTF8(c.in, "\uFFFD")
		if got[i] != want {
			t.Errorf("python read %s as %q, want %q", lines[i], got[i], want)
		}
	}
}
