package openenv

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// The wire helpers one by one, with the values CPython 3 gives for the
// same inputs (repr of floats, str of values, json error positions).

func TestWireFloatsAsPython(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", 0: "0.0", 0.5: "0.5", -2: "-2.0", 100: "100.0", 1e6: "1000000.0", 1e15: "1000000000000000.0",
		9999999999999998: "9999999999999998.0", 1e16: "1e+16", 1e21: "1e+21", 1.2345678901234568e+17: "1.2345678901234568e+17",
		0.0001: "0.0001", 1e-5: "1e-05", 2.5e-5: "2.5e-05", 1e-7: "1e-07", -1e-7: "-1e-07",
		-1e16: "-1e+16", 123.456: "123.456",
	} {
		if got := string(pyFloat(f)); got != want {
			t.Errorf("pyFloat(%v) = %s, want %s", f, got, want)
		}
	}
	a, b := 0.1, 0.2
	if got := string(pyFloat(a + b)); got != "0.30000000000000004" {
		t.Errorf("pyFloat(0.1+0.2) = %s", got)
	}
	if got := string(pyFloat(math.Copysign(0, -1))); got != "-0.0" {
		t.Errorf("pyFloat(-0) = %s", got)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(pyFloat(f)); got != "null" {
			t.Errorf("pyFloat(%v) = %s, want null", f, got)
		}
	}
	one, half := 1.0, 0.25
	for _, c := range []struct {
		r        *float64
		ws, http string
	}{{nil, "0", "0.0"}, {&one, "1.0", "1.0"}, {&half, "0.25", "0.25"}} {
		o := engine.Observation{Reward: c.r}
		if got := string(wsReward(o)); got != c.ws {
			t.Errorf("wsReward(%v) = %s, want %s", c.r, got, c.ws)
		}
		if got := string(httpReward(o)); got != c.http {
			t.Errorf("httpReward(%v) = %s, want %s", c.r, got, c.http)
		}
	}
	// The reward of a task-pack episode reaches the socket as a float.
	got := string(observationData(engine.Observation{URL: "http://a/<b>&", Error: "x", Done: true, Screenshot: []byte{1, 2, 3}}, wsReward(engine.Observation{Reward: &one}), false))
	if got != `{"observation":{"screenshot":"AQID","url":"http://a/<b>&","error":"x"},"reward":1.0,"done":true}` {
		t.Errorf("observationData = %s", got)
	}
}

func TestWirePythonStr(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "None"}, {true, "True"}, {false, "False"}, {"it's", "it's"},
		{json.Number("5"), "5"}, {json.Number("-1.50"), "-1.50"}, {1.5, "1.5"}, {float64(2), "2.0"},
		// Python's own str() of these (python3 -c 'print(str(...))').
		{[]any{"it's", nil, true, []any{}}, `["it's", None, True, []]`},
		{[]any{`back\slash`, "tab\t"}, `['back\\slash', 'tab\t']`},
		{map[string]any{"b": false, "a": json.Number("1"), "c": map[string]any{}}, "{'a': 1, 'b': False, 'c': {}}"},
		{[]any{}, "[]"}, {map[string]any{}, "{}"}, {7, "7"},
	} {
		if got := pyStr(c.v); got != c.want {
			t.Errorf("pyStr(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := pyRepr("a"); got != "'a'" {
		t.Errorf("pyRepr string %q", got)
	}
	if got := pyRepr(nil); got != "None" {
		t.Errorf("pyRepr nil %q", got)
	}
}

func TestWireJSONErrorsAsPython(t *testing.T) {
	// Each message is CPython's json.loads error for the same text.
	for in, want := range map[string]string{
		`{"a":`:                  "Expecting value: line 1 column 6 (char 5)",
		"{\n\"a\" 1}":            "Expecting ':' delimiter: line 2 column 5 (char 6)",
		"[1,\n 2,\n x]":          "Expecting value: line 3 column 2 (char 9)",
		"{\"a\":1}\n\n  x":       "Extra data: line 3 column 3 (char 11)",
		`{"é":1,}`:               "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)",
		"\n\n":                   "Expecting value: line 3 column 1 (char 2)",
		"{\"a\":1,\n\"b\"\t2}":   "Expecting ':' delimiter: line 2 column 5 (char 12)",
		`[1]]`:                   "Extra data: line 1 column 4 (char 3)",
		"\n}":                    "Expecting value: line 2 column 1 (char 1)",
		" \n x":                  "Expecting value: line 2 column 2 (char 3)",
		`{"type":"state",}`:      "Expecting property name enclosed in double quotes: line 1 column 17 (char 16)",
		`["a" "b"]`:              "Expecting ',' delimiter: line 1 column 6 (char 5)",
		"{\"type\":\"st\nate\"}": "Invalid control character at: line 1 column 12 (char 11)",
	} {
		_, err := decodeJSON([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("decodeJSON(%q) = %v, want %s", in, err, want)
		}
	}
	for _, in := range []string{`{}`, " {\"a\":[1,2.5,\"x\"]} \n\t", `[]`, `"s"`, `null`} {
		if _, err := decodeJSON([]byte(in)); err != nil {
			t.Errorf("decodeJSON(%q): %v", in, err)
		}
	}
	v, err := decodeJSON([]byte(`{"n":12345678901234567890}`))
	if err != nil || v.(map[string]any)["n"] != json.Number("12345678901234567890") {
		t.Errorf("numbers stay json.Number: %#v %v", v, err)
	}
}

func TestWireEncoding(t *testing.T) {
	if got := string(enc(make(chan int))); got != "null" {
		t.Errorf("enc(chan) = %s", got)
	}
	if got := string(enc(math.NaN())); got != "null" {
		t.Errorf("enc(NaN) = %s", got)
	}
	if got := string(enc("<a&b>")); got != `"<a&b>"` {
		t.Errorf("enc escapes HTML: %s", got)
	}
	if got := string(obj()); got != "{}" {
		t.Errorf("obj() = %s", got)
	}
	if got := string(obj(field{"b", 1}, field{"a", json.RawMessage(`[true]`)})); got != `{"b":1,"a":[true]}` {
		t.Errorf("obj = %s", got)
	}
	errs := []action.FieldError{
		{Type: "t", Msg: "m", Input: 1},
		{Type: "u", Loc: []any{"x", 0}, Msg: "n", Input: nil, Ctx: map[string]any{"lt": 3}, URL: "https://e/u"},
	}
	want := `[{"type":"t","loc":[],"msg":"m","input":1},{"type":"u","loc":["x",0],"msg":"n","input":null,"ctx":{"lt":3},"url":"https://e/u"}]`
	if got := string(fieldErrors(errs)); got != want {
		t.Errorf("fieldErrors =\n%s\nwant\n%s", got, want)
	}
	if got := string(fieldErrors(nil)); got != "[]" {
		t.Errorf("fieldErrors(nil) = %s", got)
	}
	if got := string(stateData(engine.State{})); got != `{"episode_id":null,"step_count":0}` {
		t.Errorf("stateData = %s", got)
	}
	if got := string(stateData(engine.State{EpisodeID: "e", StepCount: 4})); got != `{"episode_id":"e","step_count":4}` {
		t.Errorf("stateData = %s", got)
	}
}

// Action metadata bounds: numbers beyond float64 are refused (at most ten
// reported), and the encoded metadata may be 65536 bytes, not one more.
func TestWireMetadataBounds(t *testing.T) {
	huge := json.Number("1e400")
	md := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		md[k] = huge
	}
	errs := checkMetadata(map[string]any{"metadata": md})
	if len(errs) != 10 || errs[0].Type != "finite_number" || fmt.Sprint(errs[0].Loc) != "[metadata a]" || errs[9].Loc[1] != "j" {
		t.Errorf("12 infinite numbers: %d errors %+v", len(errs), errs)
	}
	if errs := checkMetadata(map[string]any{"metadata": map[string]any{"n": []any{json.Number("1"), map[string]any{"x": huge}}}}); len(errs) != 1 || fmt.Sprint(errs[0].Loc) != "[metadata n 1 x]" || errs[0].Input != "1e400" {
		t.Errorf("nested infinite number: %+v", errs)
	}
	if errs := checkMetadata(map[string]any{"metadata": map[string]any{"n": json.Number("1e308"), "s": "x"}}); len(errs) != 0 {
		t.Errorf("finite numbers refused: %+v", errs)
	}
	if errs := checkMetadata(map[string]any{"metadata": "not an object"}); errs != nil {
		t.Errorf("a non-object is left to the parser: %+v", errs)
	}
	// {"a":"…"} is 8 bytes around the text.
	at := map[string]any{"a": strings.Repeat("x", 65536-8)}
	if n := len(enc(at)); n != 65536 {
		t.Fatalf("fixture encodes to %d bytes", n)
	}
	if errs := checkMetadata(map[string]any{"metadata": at}); len(errs) != 0 {
		t.Errorf("65536 bytes refused: %+v", errs)
	}
	over := map[string]any{"a": strings.Repeat("x", 65536-7)}
	errs = checkMetadata(map[string]any{"metadata": over})
	if len(errs) != 1 || errs[0].Type != "value_error" || !strings.Contains(errs[0].Msg, "metadata is 65537 bytes once encoded; at most 65536 bytes (64 KiB)") {
		t.Errorf("65537 bytes: %+v", errs)
	}
	// An infinite number is reported before the size.
	over["n"] = huge
	if errs := checkMetadata(map[string]any{"metadata": over}); len(errs) != 1 || errs[0].Type != "finite_number" {
		t.Errorf("infinite and oversized: %+v", errs)
	}
}
