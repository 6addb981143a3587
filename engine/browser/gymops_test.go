package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"waymark/engine"
)

// typedInputsPage has one input of each type whose value Playwright's fill
// sets rather than types, a date input among them.
const typedInputsPage = `<!doctype html><title>typed</title><body style="margin:0">
<input id="date" type="date" aria-label="Date">
<input id="time" type="time" aria-label="Time">
<input id="dtl" type="datetime-local" aria-label="When">
<input id="month" type="month" aria-label="Month">
<input id="week" type="week" aria-label="Week">
<input id="color" type="color" aria-label="Colour">
<input id="range" type="range" aria-label="Volume">
</body>`

// Every accessibility node of a page carries a bid of its own: the parts
// Chromium draws inside a date or time input (the month, day and year
// fields, the spin buttons) are nodes of their own in the tree but not
// elements, so they carry no bid; only the input does.
func TestAXTreeBidsUnique(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, typedInputsPage)
	}))
	defer ts.Close()
	e := newEngine(t, "headless", func(o *Options) { o.Settings.Grounding = engine.GroundingOn })
	obs := reset(t, e, ts.URL+"/")
	if obs.Extras == nil {
		t.Fatal("no extras")
	}
	var tree axTree
	if err := json.Unmarshal(obs.Extras.AXTree, &tree); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	inputs := 0
	for _, n := range tree.Nodes {
		if n.BrowsergymID == nil {
			continue
		}
		bid := *n.BrowsergymID
		desc := fmt.Sprintf("%s %q (node %s)", n.Role.str(), n.Name.str(), n.NodeID)
		if prev, dup := seen[bid]; dup {
			t.Errorf("bid %q on two nodes: %s and %s", bid, prev, desc)
			continue
		}
		seen[bid] = desc
		switch n.Name.str() {
		case "Date", "Time", "When", "Month", "Week", "Colour", "Volume":
			inputs++
		}
	}
	if inputs != 7 {
		t.Errorf("%d of the 7 inputs have a bid in the tree: %v", inputs, seen)
	}
}
