package action

import (
	"errors"
	"strings"
	"testing"
)

// TestParseHostile: inputs made to slip past validation are refused with a
// message that says what is wrong.
func TestParseHostile(t *testing.T) {
	for _, c := range []struct {
		in, want, typ string
	}{
		{`{"op":"click","x":1e30,"y":5}`, "x: Input should be less than 800", "less_than"},
		{`{"op":"click","x":-1e30,"y":5}`, "x: Input should be greater than or equal to 0", "greater_than_equal"},
		{`{"op":"click","x":99999999999999999999999,"y":5}`, "x: Input should be less than 800", "less_than"},
		{`{"op":"click","x":"99999999999999999999999","y":5}`, "x: Input should be less than 800", "less_than"},
		{`{"op":"scroll","dy":1e400}`, "dy: Input should be a finite number", "finite_number"},
		{`{"op":"click","x":10,"y":1e308}`, "y: Input should be less than 600", "less_than"},
		{"{\"op\":\"type\",\"text\":\"caf\xe9\"}", "not valid UTF-8", "string_unicode"},
		{"{\"op\":\"type\",\"text\":\"ok\"}\xff", "not valid UTF-8", "string_unicode"},
		{`{"op":"click","x":1,"y":2}{"op":"finish"}`, "Invalid JSON: Extra data: line 1 column 27 (char 26)", "json_invalid"},
		{"{\"op\":\"wait\"}\n x", "Invalid JSON: Extra data: line 2 column 2 (char 15)", "json_invalid"},
		{`{"op":"wait"} {"op":"back"}`, "Extra data", "json_invalid"},
	} {
		_, err := Parse([]byte(c.in), SetDefault)
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) || ve.Errors[0].Type != c.typ {
			t.Errorf("%q: %v (%+v)\n   want a %s error saying %q", c.in, err, ve, c.typ, c.want)
		}
	}
	// Whitespace after the object is not extra data.
	if _, err := Parse([]byte("{\"op\":\"wait\"}  \n"), SetDefault); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
	// A typed action with invalid UTF-8 is refused too (json.Marshal would
	// have turned it into U+FFFD).
	if err := TypeText("caf\xe9").Validate(SetDefault); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("Validate of invalid UTF-8: %v", err)
	}
	// A decoded value (the OpenEnv path) with invalid UTF-8 in text.
	if _, err := FromValue(map[string]any{"op": "type", "text": "a\xffb"}, SetDefault); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("FromValue of invalid UTF-8: %v", err)
	}
	if _, err := FromValue(map[string]any{"op": "goto", "url": "http://a.test/\xff"}, SetExtended); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("FromValue of an invalid UTF-8 url: %v", err)
	}
}
