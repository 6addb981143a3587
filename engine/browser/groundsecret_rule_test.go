package browser

import (
	"encoding/json"
	"slices"
	"testing"
)

// The secret-field rule, field type by field type, in Go alone (the
// browser test compares it with the JavaScript form on live elements).
func TestSecretFieldRule(t *testing.T) {
	for _, c := range []struct {
		tag, typ, ac string
		want         bool
	}{
		{"input", "password", "", true},
		{"INPUT", "PASSWORD", "", true}, // a snapshot's node names are upper case
		{"input", "text", "", false},
		{"input", "", "", false},
		{"input", " password", "", false},
		{"input", "text", "current-password", true},
		{"input", "text", "new-password", true},
		{"input", "text", "section-x shipping New-Password", true},
		{"input", "text", "password-hint", false}, // ends in password, not starts
		{"input", "text", "cc-number", true},
		{"input", "tel", "billing cc-csc", true},
		{"input", "text", "cc-exp", false},
		{"input", "text", "cc-name", false},
		{"input", "text", "cc-numbers", false},
		{"input", "text", "one-time-code", false},
		{"textarea", "", "current-password", true},
		{"textarea", "", "cc-number", true},
		{"textarea", "password", "", false}, // only an input has a type
		{"select", "", "cc-number", false},
		{"div", "password", "current-password", false},
	} {
		if got := secretField(c.tag, c.typ, c.ac); got != c.want {
			t.Errorf("secretField(%q, %q, %q) = %v, want %v", c.tag, c.typ, c.ac, got, c.want)
		}
	}
}

// A DOM snapshot's secret values are masked wherever they come from — the
// value attribute, inputValue, textValue — for each kind of secret field,
// and every string holding one (from minSecretPart characters on) with
// them; plain fields, a select and shorter values inside longer strings
// are kept. Each string of the table is checked.
func TestDOMSnapshotMasksEachSecretFieldType(t *testing.T) {
	strs := []string{
		0: "INPUT", 1: "type", 2: "password", 3: "value", 4: "pw-attr-1",
		5: "autocomplete", 6: "cc-number", 7: "4111111111111111",
		8: "TEXTAREA", 9: "new-password", 10: "long secret text",
		11: "cc-csc", 12: "123",
		13: "text", 14: "plain value",
		15: "SELECT", 16: "cc-number-in-select",
		17: "Card 4111111111111111 on file", // holds a secret: masked
		18: "code 123 here",                 // holds a 3-character one: kept
		19: "#text",
		20: "pw-a", // a 4-character secret
		21: "xpw-ay",
	}
	snap := map[string]any{
		"documents": []any{map[string]any{"nodes": map[string]any{
			"nodeName": []int{0, 0, 8, 0, 0, 15, 19, 19, 0, 19},
			"attributes": [][]int{
				{1, 2, 3, 4},   // 0: input type=password value=pw-attr-1
				{5, 6},         // 1: input autocomplete=cc-number (inputValue)
				{5, 9},         // 2: textarea autocomplete=new-password (textValue)
				{1, 13, 5, 11}, // 3: input type=text autocomplete=cc-csc (inputValue 123)
				{1, 13},        // 4: a plain input (inputValue "plain value")
				{5, 6},         // 5: a select marked cc-number
				{}, {},         // 6, 7: text nodes
				{1, 2}, // 8: input type=password (inputValue pw-a)
				{},
			},
			"inputValue": map[string]any{"index": []int{1, 3, 4, 5, 8}, "value": []int{7, 12, 14, 16, 20}},
			"textValue":  map[string]any{"index": []int{2}, "value": []int{10}},
		}}},
		"strings": strs,
	}
	raw, _ := json.Marshal(snap)
	var s domSnap
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	out, ok := s.maskSecrets(raw)
	if !ok {
		t.Fatal("the snapshot could not be written back")
	}
	var got struct {
		Strings []string `json:"strings"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	const R = "[redacted]"
	want := slices.Clone(strs)
	for _, i := range []int{4, 7, 10, 12, 17, 20, 21} {
		want[i] = R
	}
	if !slices.Equal(got.Strings, want) {
		for i := range max(len(got.Strings), len(want)) {
			var g, w string
			if i < len(got.Strings) {
				g = got.Strings[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("string %d = %q, want %q", i, g, w)
			}
		}
	}
	// A snapshot with no secret field comes back as it was, byte for byte.
	plain := []byte(`{"documents":[{"nodes":{"nodeName":[0],"attributes":[[1,2]],"inputValue":{"index":[0],"value":[3]}}}],"strings":["INPUT","type","text","hello"]}`)
	var p domSnap
	if err := json.Unmarshal(plain, &p); err != nil {
		t.Fatal(err)
	}
	if out, ok := p.maskSecrets(plain); !ok || string(out) != string(plain) {
		t.Errorf("a snapshot without secrets became %s (%v)", out, ok)
	}
}
