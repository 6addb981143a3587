package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The action contract, pinned with literal values written from the
// documented vocabulary (x 0–799, y 0–599, dy −1200…1200, text ≤ 2000
// characters, the key names of each set), never with the package's own
// constants: a changed bound or a renamed key fails here.

// edgeCase is one field value at or around an edge of its range.
type edgeCase struct {
	v       int
	ok      bool
	typ     string // pydantic error type when refused
	msg     string
	ctxKey  string
	ctxWant int
}

func geEdge(v, lo int) edgeCase {
	return edgeCase{v: v, typ: "greater_than_equal", msg: fmt.Sprintf("Input should be greater than or equal to %d", lo), ctxKey: "ge", ctxWant: lo}
}
func ltEdge(v, hi int) edgeCase {
	return edgeCase{v: v, typ: "less_than", msg: fmt.Sprintf("Input should be less than %d", hi), ctxKey: "lt", ctxWant: hi}
}
func leEdge(v, hi int) edgeCase {
	return edgeCase{v: v, typ: "less_than_equal", msg: fmt.Sprintf("Input should be less than or equal to %d", hi), ctxKey: "le", ctxWant: hi}
}
func okEdge(v int) edgeCase { return edgeCase{v: v, ok: true} }

// coordinateEdges: 0 ≤ v < hi, written out value by value.
func coordinateEdges(hi int) []edgeCase {
	return []edgeCase{
		geEdge(math.MinInt32, 0), geEdge(-800, 0), geEdge(-2, 0), geEdge(-1, 0),
		okEdge(0), okEdge(1), okEdge(2), okEdge(hi / 2), okEdge(hi - 2), okEdge(hi - 1),
		ltEdge(hi, hi), ltEdge(hi+1, hi), ltEdge(hi+200, hi), ltEdge(1000000, hi), ltEdge(math.MaxInt32, hi),
	}
}

func TestContractFieldRanges(t *testing.T) {
	type fieldCase struct {
		field string
		set   Set
		// frame builds the action JSON around the value (other fields valid).
		frame func(v int) string
		edges []edgeCase
	}
	cases := []fieldCase{
		{"x", SetDefault, func(v int) string { return fmt.Sprintf(`{"op":"click","x":%d,"y":10}`, v) }, coordinateEdges(800)},
		{"y", SetDefault, func(v int) string { return fmt.Sprintf(`{"op":"click","x":10,"y":%d}`, v) }, coordinateEdges(600)},
		{"x", SetExtended, func(v int) string { return fmt.Sprintf(`{"op":"move","x":%d,"y":10}`, v) }, coordinateEdges(800)},
		{"y", SetExtended, func(v int) string { return fmt.Sprintf(`{"op":"double_click","x":10,"y":%d}`, v) }, coordinateEdges(600)},
		{"x2", SetExtended, func(v int) string { return fmt.Sprintf(`{"op":"drag","x":1,"y":2,"x2":%d,"y2":3}`, v) }, coordinateEdges(800)},
		{"y2", SetExtended, func(v int) string { return fmt.Sprintf(`{"op":"drag","x":1,"y":2,"x2":3,"y2":%d}`, v) }, coordinateEdges(600)},
		{"dy", SetDefault, func(v int) string { return fmt.Sprintf(`{"op":"scroll","dy":%d}`, v) }, []edgeCase{
			geEdge(math.MinInt32, -1200), geEdge(-5000, -1200), geEdge(-1202, -1200), geEdge(-1201, -1200),
			okEdge(-1200), okEdge(-1199), okEdge(-1), okEdge(0), okEdge(1), okEdge(1199), okEdge(1200),
			leEdge(1201, 1200), leEdge(1202, 1200), leEdge(5000, 1200), leEdge(math.MaxInt32, 1200),
		}},
		{"dy", SetExtended, func(v int) string { return fmt.Sprintf(`{"op":"scroll","dy":%d}`, v) }, []edgeCase{
			geEdge(-1201, -1200), okEdge(-1200), okEdge(1200), leEdge(1201, 1200),
		}},
	}
	for _, c := range cases {
		for _, e := range c.edges {
			in := c.frame(e.v)
			a, err := Parse([]byte(in), c.set)
			if e.ok {
				if err != nil {
					t.Errorf("%s set %s: %s=%d refused: %v", c.set, in, c.field, e.v, err)
					continue
				}
				got := map[string]*int{"x": a.X, "y": a.Y, "x2": a.X2, "y2": a.Y2, "dy": &a.DY}[c.field]
				if got == nil || *got != e.v {
					t.Errorf("%s set %s: %s parsed as %v", c.set, in, c.field, got)
				}
				// The typed action validates the same way.
				if err := a.Validate(c.set); err != nil {
					t.Errorf("%s set %s: Validate: %v", c.set, in, err)
				}
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) != 1 {
				t.Errorf("%s set %s: %s=%d: got %v, want one %s error", c.set, in, c.field, e.v, err, e.typ)
				continue
			}
			fe := ve.Errors[0]
			if fe.Type != e.typ || fe.Msg != e.msg || !reflect.DeepEqual(fe.Loc, []any{c.field}) ||
				!reflect.DeepEqual(fe.Ctx, map[string]any{e.ctxKey: e.ctxWant}) || fe.Input != int64(e.v) ||
				fe.URL != "https://errors.pydantic.dev/2.13/v/"+e.typ {
				t.Errorf("%s set %s:\n got %+v\nwant type %s msg %q loc [%s] ctx %s=%d input %d", c.set, in, fe, e.typ, e.msg, c.field, e.ctxKey, e.ctxWant, e.v)
			}
			if want := c.field + ": " + e.msg; ve.Error() != want {
				t.Errorf("%s: Error() = %q, want %q", in, ve.Error(), want)
			}
		}
	}
}

// Numbers arrive in every JSON shape pydantic's lax mode takes.
func TestContractNumberForms(t *testing.T) {
	ok := map[string][2]int{
		`{"op":"click","x":799.0,"y":599.0}`:   {799, 599},
		`{"op":"click","x":"799","y":" 599 "}`: {799, 599},
		`{"op":"click","x":0.0,"y":"0"}`:       {0, 0},
		`{"op":"click","x":true,"y":true}`:     {1, 1},
		`{"op":"click","x":1e2,"y":2E1}`:       {100, 20},
	}
	for in, want := range ok {
		a, err := Parse([]byte(in), SetDefault)
		if err != nil || a.X == nil || a.Y == nil || *a.X != want[0] || *a.Y != want[1] {
			t.Errorf("%s: %+v %v, want %v", in, a, err, want)
		}
	}
	bad := map[string]string{
		`{"op":"click","x":800.0,"y":0}`:                "less_than",
		`{"op":"click","x":"800","y":0}`:                "less_than",
		`{"op":"click","x":"-1","y":0}`:                 "greater_than_equal",
		`{"op":"click","x":-0.5,"y":0}`:                 "int_from_float",
		`{"op":"click","x":0.5,"y":0}`:                  "int_from_float",
		`{"op":"click","x":"1.0","y":0}`:                "int_parsing",
		`{"op":"click","x":"","y":0}`:                   "int_parsing",
		`{"op":"click","x":{},"y":0}`:                   "int_type",
		`{"op":"click","x":99999999999999999999,"y":0}`: "less_than",
		`{"op":"scroll","dy":"1201"}`:                   "less_than_equal",
		`{"op":"scroll","dy":-1200.5}`:                  "int_from_float",
		`{"op":"scroll","dy":1e10}`:                     "less_than_equal",
		`{"op":"scroll","dy":-1e10}`:                    "greater_than_equal",
	}
	for in, typ := range bad {
		_, err := Parse([]byte(in), SetDefault)
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Type != typ {
			t.Errorf("%s: got %v, want one %s", in, err, typ)
		}
	}
	// Values decoded as float64 (not json.Number) and Go ints take the same rules.
	for _, v := range []any{float64(799), 799} {
		if a, err := FromValue(map[string]any{"op": "click", "x": v, "y": 0}, SetDefault); err != nil || *a.X != 799 {
			t.Errorf("x=%T %v: %v", v, v, err)
		}
	}
	for _, v := range []any{float64(800), 800, 1.5, math.Inf(1), math.NaN()} {
		if _, err := FromValue(map[string]any{"op": "click", "x": v, "y": 0}, SetDefault); err == nil {
			t.Errorf("x=%T %v accepted", v, v)
		}
	}
}

func TestContractTextLength(t *testing.T) {
	for _, op := range []string{"type", "finish"} {
		for _, c := range []struct {
			text string
			ok   bool
		}{
			{"a", true},
			{strings.Repeat("a", 1999), true},
			{strings.Repeat("a", 2000), true},
			{strings.Repeat("a", 2001), false},
			{strings.Repeat("a", 2002), false},
			{strings.Repeat("a", 5000), false},
			// characters, not bytes: 2000 two-byte and four-byte runes pass
			{strings.Repeat("é", 2000), true},
			{strings.Repeat("😀", 2000), true},
			{strings.Repeat("é", 2001), false},
			{strings.Repeat("😀", 1999) + "ab", false},
		} {
			in, _ := json.Marshal(map[string]string{"op": op, "text": c.text})
			a, err := Parse(in, SetDefault)
			n := len([]rune(c.text))
			if c.ok {
				if err != nil || a.Text != c.text {
					t.Errorf("%s with %d characters refused: %v", op, n, err)
				}
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) != 1 {
				t.Errorf("%s with %d characters: %v", op, n, err)
				continue
			}
			fe := ve.Errors[0]
			if fe.Type != "string_too_long" || fe.Msg != "String should have at most 2000 characters" ||
				!reflect.DeepEqual(fe.Ctx, map[string]any{"max_length": 2000}) || !reflect.DeepEqual(fe.Loc, []any{"text"}) || fe.Input != c.text {
				t.Errorf("%s with %d characters: %+v", op, n, fe)
			}
		}
	}
	// An empty type text is the custom validator's, an empty finish is fine.
	if _, err := Parse([]byte(`{"op":"finish","text":""}`), SetDefault); err != nil {
		t.Errorf("empty finish: %v", err)
	}
	if _, err := Parse([]byte(`{"op":"type","text":" "}`), SetDefault); err != nil {
		t.Errorf("a space is text: %v", err)
	}
}

func TestContractKeyNames(t *testing.T) {
	defaultKeys := []string{"ENTER", "TAB", "ESCAPE", "BACKSPACE", "CTRL+A", "UP", "DOWN", "LEFT", "RIGHT"}
	extendedOnly := []string{"PAGE_UP", "PAGE_DOWN", "HOME", "END", "DELETE", "SPACE", "SHIFT+TAB"}
	if got := SetDefault.Keys(); !reflect.DeepEqual(got, defaultKeys) {
		t.Errorf("default keys %q", got)
	}
	if got := SetExtended.Keys(); !reflect.DeepEqual(got, append(append([]string{}, defaultKeys...), extendedOnly...)) {
		t.Errorf("extended keys %q", got)
	}
	key := func(k string, set Set) error {
		b, _ := json.Marshal(map[string]string{"op": "key", "text": k})
		_, err := Parse(b, set)
		return err
	}
	for _, k := range defaultKeys {
		for _, set := range []Set{SetDefault, SetExtended} {
			if err := key(k, set); err != nil {
				t.Errorf("key %s in %s: %v", k, set, err)
			}
		}
	}
	for _, k := range extendedOnly {
		if err := key(k, SetExtended); err != nil {
			t.Errorf("key %s in extended: %v", k, err)
		}
		if err := key(k, SetDefault); err == nil || err.Error() != "unsupported key" {
			t.Errorf("key %s in default: %v", k, err)
		}
	}
	for _, k := range []string{"", "enter", "Enter", " ENTER", "ENTER ", "CTRL+a", "ctrl+a", "CTRL+B", "F5", "SHIFT", "PAGEDOWN", "ALT+LEFT", "RETURN", "ESC"} {
		for _, set := range []Set{SetDefault, SetExtended} {
			err := key(k, set)
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Type != "value_error" ||
				ve.Errors[0].Msg != "Value error, unsupported key" || !reflect.DeepEqual(ve.Errors[0].Ctx, map[string]any{"error": "unsupported key"}) {
				t.Errorf("key %q in %s: %v", k, set, err)
			}
		}
	}
	for _, k := range []string{"", "ENTER", "SHIFT+TAB", "x"} {
		if SetDefault.HasKey(k) != (k == "ENTER") || SetExtended.HasKey(k) != (k == "ENTER" || k == "SHIFT+TAB") {
			t.Errorf("HasKey(%q)", k)
		}
	}
}

func TestContractOpsAndFields(t *testing.T) {
	defaultOps := []Op{"click", "type", "key", "scroll", "back", "wait", "finish"}
	extendedOps := append(append([]Op{}, defaultOps...), "goto", "double_click", "move", "drag")
	if got := SetDefault.Ops(); !reflect.DeepEqual(got, defaultOps) {
		t.Errorf("default ops %q", got)
	}
	if got := SetExtended.Ops(); !reflect.DeepEqual(got, extendedOps) {
		t.Errorf("extended ops %q", got)
	}
	// Ops() hands out copies: changing one does not change the set.
	SetDefault.Ops()[0] = "zap"
	SetExtended.Keys()[0] = "zap"
	if !SetDefault.HasOp("click") || SetDefault.HasOp("zap") || !SetExtended.HasKey("ENTER") {
		t.Error("a caller changed the set through Ops()/Keys()")
	}
	for _, op := range []Op{"", "CLICK", "Click", "goto ", "jump", "scroll_down"} {
		if SetDefault.HasOp(op) || SetExtended.HasOp(op) {
			t.Errorf("HasOp(%q)", op)
		}
	}
	if got := parseLiteral(t, `{"op":"jump"}`, SetDefault); got != "'click', 'type', 'key', 'scroll', 'back', 'wait' or 'finish'" {
		t.Errorf("default literal %q", got)
	}
	if got := parseLiteral(t, `{"op":null}`, SetExtended); got != "'click', 'type', 'key', 'scroll', 'back', 'wait', 'finish', 'goto', 'double_click', 'move' or 'drag'" {
		t.Errorf("extended literal %q", got)
	}
	if got := literalExpected([]Op{"only"}); got != "'only'" {
		t.Errorf("one literal %q", got)
	}
	// Fields each set accepts; anything else is extra_forbidden, reported
	// after the known fields and in name order.
	ve := parseErr(t, `{"zeta":1,"op":"wait","alpha":2,"url":"http://a/","x2":1,"y2":1}`, SetDefault)
	var locs []string
	for _, fe := range ve.Errors {
		if fe.Type != "extra_forbidden" || fe.Msg != "Extra inputs are not permitted" {
			t.Errorf("%+v", fe)
		}
		locs = append(locs, fmt.Sprint(fe.Loc[0]))
	}
	if strings.Join(locs, ",") != "x2,y2,url,alpha,zeta" {
		t.Errorf("extra fields reported as %v", locs)
	}
	ve = parseErr(t, `{"op":"wait","zeta":1,"alpha":2,"mid":3}`, SetExtended)
	if len(ve.Errors) != 3 || ve.Errors[0].Loc[0] != "alpha" || ve.Errors[1].Loc[0] != "mid" || ve.Errors[2].Loc[0] != "zeta" {
		t.Errorf("extended extras %+v", ve.Errors)
	}
	a, err := Parse([]byte(`{"metadata":{"agent":"a","n":1},"op":"goto","x":null,"y":null,"x2":null,"y2":null,"text":"","dy":0,"url":"https://example.org/"}`), SetExtended)
	if err != nil || a.URL != "https://example.org/" || a.X2 != nil || a.Y2 != nil || a.Metadata["agent"] != "a" || a.Metadata["n"] != int64(1) {
		t.Errorf("all extended fields: %+v %v", a, err)
	}
	// url must be a string; null is not.
	for _, in := range []string{`{"op":"goto","url":5}`, `{"op":"goto","url":null}`} {
		ve := parseErr(t, in, SetExtended)
		if ve.Errors[0].Type != "string_type" || !reflect.DeepEqual(ve.Errors[0].Loc, []any{"url"}) || ve.Errors[0].Msg != "Input should be a valid string" {
			t.Errorf("%s: %+v", in, ve.Errors)
		}
	}
	// metadata must be an object; null is not.
	for _, in := range []string{`{"op":"wait","metadata":null}`, `{"op":"wait","metadata":"x"}`} {
		if ve := parseErr(t, in, SetDefault); ve.Errors[0].Type != "dict_type" {
			t.Errorf("%s: %+v", in, ve.Errors)
		}
	}
	// x and y may be null; dy, text and op may not.
	if _, err := Parse([]byte(`{"op":"wait","x":null,"y":null}`), SetDefault); err != nil {
		t.Errorf("null x,y: %v", err)
	}
	for in, typ := range map[string]string{`{"op":"type","text":null}`: "string_type", `{"op":"scroll","dy":null}`: "int_type", `{"op":null}`: "literal_error"} {
		if ve := parseErr(t, in, SetDefault); ve.Errors[0].Type != typ {
			t.Errorf("%s: %+v", in, ve.Errors)
		}
	}
	// The hint for an extended op in the default set names it.
	if got := parseErr(t, `{"op":"drag","x":1,"y":1,"x2":2,"y2":2}`, SetDefault).Error(); got != `"drag" is an extended action; this episode uses the default action set` {
		t.Errorf("hint %q", got)
	}
	if got := parseErr(t, `{"op":"jump"}`, SetDefault).Hint; got != "" {
		t.Errorf("unknown op got a hint %q", got)
	}
}

func parseLiteral(t *testing.T, in string, set Set) string {
	t.Helper()
	ve := parseErr(t, in, set)
	if len(ve.Errors) != 1 || ve.Errors[0].Type != "literal_error" {
		t.Fatalf("%s: %+v", in, ve.Errors)
	}
	return ve.Errors[0].Ctx["expected"].(string)
}

// Answer normalisation, case by case (the automatic check of information
// tasks compares normalised answers).
func TestContractNormalize(t *testing.T) {
	cases := map[string]string{
		"  Hello,   World!  ": "hello world",
		"$1,299.00":           "1299",
		"3.50":                "3.50",
		"4.0":                 "4",
		"4.000 km":            "4 km",
		"12.05":               "12.05",
		".5":                  "5",
		"5.":                  "5",
		"a.5":                 "a5",
		"5.a":                 "5a",
		"v1.2.3":              "v1.2.3",
		"1-2/3":               "1 2 3",
		"a_b":                 "ab",
		"e-mail / post":       "e mail post",
		"Ünïcödé ÀB":          "ünïcödé àb",
		"x\ty\nz":             "x y z",
		"--":                  "",
		"":                    "",
		"٣.٥":                 "٣.٥",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	c := Check{Kind: "answer", Answer: "Paris|| 75 000 |"}
	for a, want := range map[string]bool{"paris": true, "PARIS.": true, "75000": false, "75 000": true, "": false, "|": false, " ": false} {
		if got := c.MatchAnswer(a); got != want {
			t.Errorf("MatchAnswer(%q) = %v, want %v", a, got, want)
		}
	}
	if (Check{Answer: ""}).MatchAnswer("x") || (Check{Answer: "|"}).MatchAnswer("") {
		t.Error("an empty expected answer matched")
	}
}

// Redaction replaces the text of type actions only, with "[redacted]".
func TestContractRedact(t *testing.T) {
	r := TypeText("hunter2").Redact()
	if r.Op != "type" || r.Text != "[redacted]" || !r.IsRedacted() {
		t.Errorf("redacted type: %+v", r)
	}
	for _, a := range []Action{PressKey("ENTER"), FinishWith("hunter2"), ClickAt(1, 2), {Op: Type, Text: "x"}} {
		if a.Op != Type {
			if got := a.Redact(); got.Text != a.Text || got.IsRedacted() {
				t.Errorf("%v redacted to %+v", a, got)
			}
		} else if a.IsRedacted() {
			t.Errorf("%v counts as redacted", a)
		}
	}
	if (Action{Op: Finish, Text: "[redacted]"}).IsRedacted() {
		t.Error("a finish with the marker text counts as redacted")
	}
}

// Text that is not UTF-8 is refused with the first bad byte and its offset.
func TestContractInvalidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"{\"op\":\"type\",\"text\":\"ab\xffcd\"}":   "bad byte 0xff at byte 23",
		"{\"op\":\"type\",\"text\":\"\xff\"}":       "bad byte 0xff at byte 21",
		"{\"op\":\"type\",\"text\":\"\u00e9\xc3\"}": "bad byte 0xc3 at byte 23",
		"{\"op\":\"key\",\"text\":\"x\xe2\x82\"}":   "bad byte 0xe2 at byte 21",
		"{\"op\":\"wait\"}\xff":                     "bad byte 0xff at byte 13",
		"\x80":                                      "bad byte 0x80 at byte 0",
	} {
		_, err := Parse([]byte(in), SetDefault)
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Type != "string_unicode" ||
			ve.Errors[0].Msg != "Input should be a valid string, unable to parse raw data as a unicode string: it is not valid UTF-8 ("+want+"); send text as UTF-8" {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}
