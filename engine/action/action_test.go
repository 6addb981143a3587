package action

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// parseErr parses and returns the validation error (failing when there is none).
func parseErr(t *testing.T, js string, set Set) *ValidationError {
	t.Helper()
	_, err := Parse([]byte(js), set)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s: got %v, want a validation error", js, err)
	}
	return ve
}

func TestParseValidDefault(t *testing.T) {
	cases := []struct {
		in   string
		want Action
	}{
		{`{"op":"click","x":0,"y":0}`, ClickAt(0, 0)},
		{`{"op":"click","x":799,"y":599,"metadata":{"why":"button"}}`, Action{Op: Click, X: Int(799), Y: Int(599), Metadata: map[string]any{"why": "button"}}},
		{`{"metadata":{},"op":"scroll","x":null,"y":null,"text":"","dy":500}`, ScrollBy(500)},
		{`{"op":"scroll","dy":-1200}`, ScrollBy(-1200)},
		{`{"op":"scroll","dy":1200}`, ScrollBy(1200)},
		{`{"op":"type","text":"red shoes"}`, TypeText("red shoes")},
		{`{"op":"type","text":"` + strings.Repeat("é", 2000) + `"}`, TypeText(strings.Repeat("é", 2000))},
		{`{"op":"key","text":"CTRL+A"}`, PressKey("CTRL+A")},
		{`{"op":"back"}`, Action{Op: Back}},
		{`{"op":"wait"}`, Action{Op: Wait}},
		{`{"op":"finish"}`, Action{Op: Finish}},
		{`{"op":"finish","text":"42"}`, FinishWith("42")},
		{`{"op":"click","x":12.0,"y":"7"}`, ClickAt(12, 7)},
		{`{"op":"click","x":true,"y":false}`, ClickAt(1, 0)},
	}
	for _, c := range cases {
		got, err := Parse([]byte(c.in), SetDefault)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.want)
		if string(gj) != string(wj) {
			t.Errorf("%s: got %s, want %s", c.in, gj, wj)
		}
	}
	for _, k := range DefaultKeys {
		if _, err := Parse([]byte(`{"op":"key","text":"`+k+`"}`), SetDefault); err != nil {
			t.Errorf("key %s: %v", k, err)
		}
	}
}

func TestParseFieldErrors(t *testing.T) {
	cases := []struct {
		in, typ, msg string
		loc          string
	}{
		{`{}`, "missing", "Field required", "op"},
		{`{"op":"jump"}`, "literal_error", "Input should be 'click', 'type', 'key', 'scroll', 'back', 'wait' or 'finish'", "op"},
		{`{"op":7}`, "literal_error", "Input should be 'click', 'type', 'key', 'scroll', 'back', 'wait' or 'finish'", "op"},
		{`{"op":"click","x":-1,"y":0}`, "greater_than_equal", "Input should be greater than or equal to 0", "x"},
		{`{"op":"click","x":800,"y":0}`, "less_than", "Input should be less than 800", "x"},
		{`{"op":"click","x":0,"y":600}`, "less_than", "Input should be less than 600", "y"},
		{`{"op":"click","x":1.5,"y":0}`, "int_from_float", "Input should be a valid integer, got a number with a fractional part", "x"},
		{`{"op":"click","x":"a","y":0}`, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", "x"},
		{`{"op":"click","x":[1],"y":0}`, "int_type", "Input should be a valid integer", "x"},
		{`{"op":"scroll","dy":1201}`, "less_than_equal", "Input should be less than or equal to 1200", "dy"},
		{`{"op":"scroll","dy":-1201}`, "greater_than_equal", "Input should be greater than or equal to -1200", "dy"},
		{`{"op":"scroll","dy":null}`, "int_type", "Input should be a valid integer", "dy"},
		{`{"op":"type","text":5}`, "string_type", "Input should be a valid string", "text"},
		{`{"op":"type","text":"` + strings.Repeat("a", 2001) + `"}`, "string_too_long", "String should have at most 2000 characters", "text"},
		{`{"op":"wait","metadata":[]}`, "dict_type", "Input should be a valid dictionary", "metadata"},
		{`{"op":"wait","extra":1}`, "extra_forbidden", "Extra inputs are not permitted", "extra"},
		{`{"op":"click","x":1,"y":1,"x2":3}`, "extra_forbidden", "Extra inputs are not permitted", "x2"},
		{`{"op":"wait","url":"http://a.b/"}`, "extra_forbidden", "Extra inputs are not permitted", "url"},
	}
	for _, c := range cases {
		ve := parseErr(t, c.in, SetDefault)
		if len(ve.Errors) != 1 {
			t.Errorf("%s: %d errors %+v", c.in, len(ve.Errors), ve.Errors)
			continue
		}
		fe := ve.Errors[0]
		if fe.Type != c.typ || fe.Msg != c.msg || len(fe.Loc) != 1 || fe.Loc[0] != c.loc {
			t.Errorf("%s: got %s %v %q", c.in, fe.Type, fe.Loc, fe.Msg)
		}
		if fe.URL != "https://errors.pydantic.dev/2.13/v/"+c.typ {
			t.Errorf("%s: url %q", c.in, fe.URL)
		}
	}
	// Several bad fields are all reported, in the model's field order.
	ve := parseErr(t, `{"op":"click","x":900,"y":-3,"zzz":1}`, SetDefault)
	var locs []string
	for _, fe := range ve.Errors {
		locs = append(locs, fe.Loc[0].(string))
	}
	if strings.Join(locs, ",") != "x,y,zzz" {
		t.Errorf("locs %v", locs)
	}
	if got := ve.Error(); got != "x: Input should be less than 800; y: Input should be greater than or equal to 0; zzz: Extra inputs are not permitted" {
		t.Errorf("Error() = %q", got)
	}
}

func TestParseCrossFieldRules(t *testing.T) {
	cases := []struct {
		in  string
		set Set
		msg string
	}{
		{`{"op":"click"}`, SetDefault, MsgClickNeedsXY},
		{`{"op":"click","x":5}`, SetDefault, MsgClickNeedsXY},
		{`{"op":"click","x":null,"y":5}`, SetDefault, MsgClickNeedsXY},
		{`{"op":"type"}`, SetDefault, MsgTypeNeedsText},
		{`{"op":"type","text":""}`, SetDefault, MsgTypeNeedsText},
		{`{"op":"key","text":"F5"}`, SetDefault, MsgUnsupportedKey},
		{`{"op":"key","text":"enter"}`, SetDefault, MsgUnsupportedKey},
		{`{"op":"key"}`, SetDefault, MsgUnsupportedKey},
		{`{"op":"key","text":"PAGE_DOWN"}`, SetDefault, MsgUnsupportedKey},
		{`{"op":"double_click","x":1}`, SetExtended, "double_click needs x and y"},
		{`{"op":"move"}`, SetExtended, "move needs x and y"},
		{`{"op":"drag","x":1,"y":1,"x2":2}`, SetExtended, "drag needs x, y, x2 and y2"},
		{`{"op":"goto","url":"ftp://a.b/"}`, SetExtended, "goto needs " + MsgBadURL},
		{`{"op":"goto"}`, SetExtended, "goto needs " + MsgBadURL},
	}
	for _, c := range cases {
		ve := parseErr(t, c.in, c.set)
		if len(ve.Errors) != 1 {
			t.Fatalf("%s: %+v", c.in, ve.Errors)
		}
		fe := ve.Errors[0]
		if fe.Type != "value_error" || fe.Msg != "Value error, "+c.msg || len(fe.Loc) != 0 || fe.Ctx["error"] != c.msg {
			t.Errorf("%s: %+v", c.in, fe)
		}
		if ve.Error() != c.msg {
			t.Errorf("%s: Error() = %q", c.in, ve.Error())
		}
	}
}

func TestSets(t *testing.T) {
	// Extended ops are refused by the default set, with a hint.
	for _, op := range []string{"goto", "double_click", "move", "drag"} {
		ve := parseErr(t, `{"op":"`+op+`"}`, SetDefault)
		if ve.Errors[0].Type != "literal_error" || !strings.Contains(ve.Error(), "extended action") {
			t.Errorf("%s: %v", op, ve)
		}
	}
	ok := []string{
		`{"op":"goto","url":"https://example.com/a"}`,
		`{"op":"double_click","x":1,"y":2}`,
		`{"op":"move","x":799,"y":599}`,
		`{"op":"drag","x":1,"y":2,"x2":3,"y2":4}`,
		`{"op":"key","text":"SHIFT+TAB"}`,
		`{"op":"click","x":1,"y":2}`,
	}
	for _, in := range ok {
		if _, err := Parse([]byte(in), SetExtended); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	ve := parseErr(t, `{"op":"drag","x":1,"y":2,"x2":800,"y2":4}`, SetExtended)
	if ve.Errors[0].Type != "less_than" || ve.Errors[0].Loc[0] != "x2" {
		t.Errorf("x2 range: %+v", ve.Errors)
	}
	if exp := parseErr(t, `{"op":"jump"}`, SetExtended).Errors[0].Msg; !strings.HasSuffix(exp, "'goto', 'double_click', 'move' or 'drag'") {
		t.Errorf("extended literal message %q", exp)
	}
	for in, want := range map[string]Set{"": SetDefault, "default": SetDefault, "helium": SetDefault, " Extended ": SetExtended} {
		if got, err := ParseSet(in); err != nil || got != want {
			t.Errorf("ParseSet(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSet("fancy"); err == nil {
		t.Error("ParseSet accepted an unknown set")
	}
	if len(SetDefault.Keys()) != 9 || len(SetExtended.Keys()) != 16 || len(SetDefault.Ops()) != 7 || len(SetExtended.Ops()) != 11 {
		t.Error("set sizes")
	}
}

func TestParseNotAnObject(t *testing.T) {
	if ve := parseErr(t, `{"op":`, SetDefault); ve.Errors[0].Type != "json_invalid" {
		t.Errorf("%+v", ve.Errors)
	}
	if ve := parseErr(t, `[1,2]`, SetDefault); ve.Errors[0].Type != "model_attributes_type" {
		t.Errorf("%+v", ve.Errors)
	}
	if _, err := FromValue("click", SetDefault); err == nil {
		t.Error("a string was accepted")
	}
}

func TestJSONShape(t *testing.T) {
	cases := map[string]Action{
		`{"metadata":{},"op":"scroll","x":null,"y":null,"text":"","dy":500}`:               ScrollBy(500),
		`{"metadata":{},"op":"click","x":0,"y":599,"text":"","dy":0}`:                      ClickAt(0, 599),
		`{"metadata":{"a":1},"op":"type","x":null,"y":null,"text":"hi \"you\"","dy":0}`:    {Op: Type, Text: `hi "you"`, Metadata: map[string]any{"a": 1}},
		`{"metadata":{},"op":"drag","x":1,"y":2,"text":"","dy":0,"x2":3,"y2":4}`:           {Op: Drag, X: Int(1), Y: Int(2), X2: Int(3), Y2: Int(4)},
		`{"metadata":{},"op":"goto","x":null,"y":null,"text":"","dy":0,"url":"http://a/"}`: {Op: Goto, URL: "http://a/"},
	}
	for want, a := range cases {
		got, err := json.Marshal(a)
		if err != nil || string(got) != want {
			t.Errorf("marshal %s:\n got %s\nwant %s", a, got, want)
		}
		set := SetDefault
		if a.Op == Drag || a.Op == Goto {
			set = SetExtended
		}
		back, err := Parse(got, set)
		if err != nil {
			t.Errorf("round trip %s: %v", got, err)
			continue
		}
		again, _ := json.Marshal(back)
		if string(again) != want {
			t.Errorf("round trip %s gave %s", want, again)
		}
	}
	if err := ClickAt(5, 5).Validate(SetDefault); err != nil {
		t.Error(err)
	}
	if err := (Action{Op: Click, X: Int(5)}).Validate(SetDefault); err == nil || err.Error() != MsgClickNeedsXY {
		t.Errorf("Validate: %v", err)
	}
}

func TestString(t *testing.T) {
	cases := map[string]Action{
		"click 312,188":    ClickAt(312, 188),
		`type "red shoes"`: TypeText("red shoes"),
		"key ENTER":        PressKey("ENTER"),
		"scroll -300":      ScrollBy(-300),
		"back":             {Op: Back},
		"finish":           {Op: Finish},
		`finish "42"`:      FinishWith("42"),
		"drag 1,2→3,4":     {Op: Drag, X: Int(1), Y: Int(2), X2: Int(3), Y2: Int(4)},
		"goto http://x/":   {Op: Goto, URL: "http://x/"},
		"click ?,?":        {Op: Click},
		"double_click 7,8": {Op: DoubleClick, X: Int(7), Y: Int(8)},
	}
	for want, a := range cases {
		if got := a.String(); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	good := []string{"http://example.com", "https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "http://localhost/", "http://[::1]:80/", " https://x.org "}
	bad := []string{"", "example.com", "ftp://example.com", "file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi",
		"http://", "http:///path", "http://user@example.com/", "http://user:pw@example.com/", "https://:pw@example.com/", "about:blank", "http://%zz/"}
	for _, u := range good {
		if err := CheckURL(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
	for _, u := range bad {
		err := CheckURL(u)
		if err == nil || err.Error() != "expected an HTTP(S) URL without credentials" || !errors.Is(err, ErrBadURL) {
			t.Errorf("%q: %v", u, err)
		}
	}
}

func TestCheck(t *testing.T) {
	c := Check{Kind: CheckKindAnswer, Answer: "$1,299.00|twelve ninety-nine"}
	for _, a := range []string{"$1,299.00", "1299", " 1,299 ", "Twelve Ninety Nine"} {
		if !c.MatchAnswer(a) {
			t.Errorf("%q should match", a)
		}
	}
	for _, a := range []string{"", "1298", "12.99", "$"} {
		if c.MatchAnswer(a) {
			t.Errorf("%q should not match", a)
		}
	}
	if Normalize("  Hello,   World!  ") != "hello world" || Normalize("3.50") != "3.50" || Normalize("4.0") != "4" {
		t.Errorf("normalize: %q %q %q", Normalize("  Hello,   World!  "), Normalize("3.50"), Normalize("4.0"))
	}
	u := Check{Kind: CheckKindURL, URL: `/cart$`}
	if ok, err := u.MatchURL("http://shop.waymark.test/cart"); !ok || err != nil {
		t.Error("url should match")
	}
	if ok, _ := u.MatchURL("http://shop.waymark.test/cart/x"); ok {
		t.Error("url should not match")
	}
	if _, err := (Check{URL: "("}).MatchURL("x"); err == nil {
		t.Error("bad pattern accepted")
	}
}
