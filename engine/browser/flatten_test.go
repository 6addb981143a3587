package browser

import (
	"encoding/json"
	"testing"
)

// TestFlattenAXTree holds the flattener to flatten_axtree_to_str's rules
// with its defaults, on a tree built by hand.
func TestFlattenAXTree(t *testing.T) {
	const tree = `{"nodes": [
 {"nodeId": "1", "role": {"type": "internalRole", "value": "RootWebArea"}, "name": {"type": "computedString", "value": "Shop"},
  "properties": [{"name": "focusable", "value": {"type": "booleanOrUndefined", "value": true}},
                 {"name": "focused", "value": {"type": "booleanOrUndefined", "value": true}}], "childIds": ["2", "3", "9", "12"]},
 {"nodeId": "2", "role": {"type": "role", "value": "generic"}, "name": {"type": "computedString", "value": ""},
  "browsergym_id": "7", "childIds": ["4"]},
 {"nodeId": "4", "role": {"type": "role", "value": "button"}, "name": {"type": "computedString", "value": "  Buy it's  "},
  "browsergym_id": "8", "properties": [{"name": "expanded", "value": {"type": "booleanOrUndefined", "value": false}},
  {"name": "required", "value": {"type": "boolean", "value": false}}, {"name": "level", "value": {"type": "integer", "value": 2}}],
  "childIds": ["5", "6"]},
 {"nodeId": "5", "role": {"type": "role", "value": "StaticText"}, "name": {"type": "computedString", "value": "Buy"}, "childIds": []},
 {"nodeId": "6", "role": {"type": "role", "value": "StaticText"}, "name": {"type": "computedString", "value": "now\tor \"never\""}},
 {"nodeId": "3", "role": {"type": "role", "value": "LineBreak"}, "name": {"type": "computedString", "value": "\n"}, "childIds": ["10"]},
 {"nodeId": "10", "role": {"type": "role", "value": "slider"}, "name": {"type": "computedString", "value": "Size"}, "browsergym_id": "11",
  "value": {"type": "number", "value": 0.5},
  "properties": [{"name": "valuemin", "value": {"type": "number", "value": 0}}, {"name": "valuemax", "value": {"type": "number", "value": 1.0}},
                 {"name": "atomic", "value": {"type": "boolean", "value": true}}, {"name": "describedby", "value": {"type": "idrefList", "relatedNodes": []}}],
  "childIds": ["10"]},
 {"nodeId": "9", "role": {"type": "role", "value": "generic"}, "name": {"type": "computedString", "value": ""}, "browsergym_id": "12",
  "properties": [{"name": "live", "value": {"type": "token", "value": "polite"}}], "childIds": ["13"]},
 {"nodeId": "13", "role": {"type": "role", "value": "none"}, "ignored": true, "childIds": ["14", "99"]},
 {"nodeId": "14", "role": {"type": "role", "value": "textbox"}, "name": {"type": "computedString", "value": "Note"}, "browsergym_id": "a3",
  "value": {"type": "string", "value": "line1\nline2\u00a0é\\"}, "properties": [{"name": "invalid", "value": {"type": "token", "value": "false"}}]},
 {"nodeId": "12", "role": {"type": "role", "value": "StaticText"}, "name": {"type": "computedString", "value": ""}}
]}`
	var tr axTree
	if err := json.Unmarshal([]byte(tree), &tr); err != nil {
		t.Fatal(err)
	}
	// The generic without properties is skipped (its button moves up a
	// level), so are the LineBreak, the StaticText inside the button's name,
	// the ignored node without a name and the empty StaticText; level,
	// focusable and invalid are never printed, a false required is not
	// either, a property without a value (describedby) neither; the slider's
	// child that is itself is not followed.
	want := "RootWebArea 'Shop', focused\n" +
		"\t[8] button \"Buy it's\", expanded=False\n" +
		"\t\tStaticText 'now\\tor \"never\"'\n" +
		"\t[11] slider 'Size' value=0.5, valuemin=0, valuemax=1.0, atomic\n" +
		"\t[12] generic, live='polite'\n" +
		"\t\t[a3] textbox 'Note' value='line1\\nline2\\xa0é\\\\'"
	if got := flattenAXTree(&tr); got != want {
		t.Errorf("flattened\n got %q\nwant %q", got, want)
	}
}

// JSON values are written as Python's repr() of what json.loads makes of
// them (the strings and floats themselves by pyrepr, tested there).
func TestPyReprJSON(t *testing.T) {
	for in, want := range map[string]string{"1": "1", "1.0": "1.0", "0.1": "0.1", "1e16": "1e+16", "0.00001": "1e-05",
		"123456.5": "123456.5", "-2": "-2", "true": "True", "null": "None", `"x"`: "'x'"} {
		if got := pyReprJSON(json.RawMessage(in)); got != want {
			t.Errorf("pyReprJSON(%s) = %s, want %s", in, got, want)
		}
	}
}
