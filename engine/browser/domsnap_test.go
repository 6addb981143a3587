package browser

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// TestReadDOMSnapshot reads a hand-written snapshot once for both uses: the
// password field's value (its attribute, its inputValue and the text that
// holds it) is masked, and the clickable bids are read, skipping indexes
// out of the nodes or the string table.
func TestReadDOMSnapshot(t *testing.T) {
	// strings: 0 INPUT, 1 type, 2 password, 3 value, 4 hunter22, 5 bid,
	// 6 a1, 7 BUTTON, 8 a2, 9 "Pay hunter22 now", 10 #text
	raw := json.RawMessage(`{"documents":[{"nodes":{
		"nodeName":[0,7,10],
		"attributes":[[1,2,3,4,5,6],[5,8,99,5],[]],
		"inputValue":{"index":[0],"value":[4]},
		"isClickable":{"index":[1,7,-1]}},
		"layout":{"text":[9]}}],
		"strings":["INPUT","type","password","value","hunter22","bid","a1","BUTTON","a2","Pay hunter22 now","#text"]}`)
	masked, click, ok := readDOMSnapshot(raw)
	if !ok {
		t.Fatal("the snapshot was not read")
	}
	var got struct {
		Documents []json.RawMessage `json:"documents"`
		Strings   []string          `json:"strings"`
	}
	if err := json.Unmarshal(masked, &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"INPUT", "type", "password", "value", "[redacted]", "bid", "a1", "BUTTON", "a2", "[redacted]", "#text"}
	if !slices.Equal(got.Strings, want) {
		t.Errorf("strings:\n got %q\nwant %q", got.Strings, want)
	}
	if len(got.Documents) != 1 {
		t.Errorf("documents: %d, want 1", len(got.Documents))
	}
	if keys := slices.Sorted(maps.Keys(click)); !slices.Equal(keys, []string{"a2"}) {
		t.Errorf("clickable bids: %q, want [a2]", keys)
	}

	// Nothing secret: the raw snapshot is returned as it came.
	plain := json.RawMessage(`{"documents":[{"nodes":{"nodeName":[0],"attributes":[[1,2]],"isClickable":{"index":[0]}}}],"strings":["A","bid","a7"]}`)
	masked, click, ok = readDOMSnapshot(plain)
	if !ok || string(masked) != string(plain) || len(click) != 1 || !click["a7"] {
		t.Errorf("plain snapshot: ok %v, %s, %v", ok, masked, click)
	}

	if _, _, ok := readDOMSnapshot(json.RawMessage(`{"strings":7}`)); ok {
		t.Error("a snapshot whose strings are not a list was read")
	}
}
