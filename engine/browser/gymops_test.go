package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
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

// Text that the browsergym set's insert_text, key_down or a key
// combination puts into a password field is a secret, as typed text is:
// the observation says redacted (so the store keeps [redacted]); the same
// actions in a plain field are not.
func TestGymOpsRedactSecrets(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>s</title><body style="margin:0"><input id="pw" type="password" style="position:absolute;left:0;top:0;width:200px;height:30px">
<input id="q" style="position:absolute;left:0;top:100px;width:200px;height:30px"></body>`)
	}))
	defer ts.Close()
	e := newEngine(t, "headless", func(o *Options) { o.Settings.ActionSet = action.SetBrowserGym })
	reset(t, e, ts.URL+"/")
	for _, field := range []struct {
		y      int
		secret bool
	}{{15, true}, {115, false}} {
		step(t, e, action.ClickAt(50, field.y))
		for _, a := range []action.Action{
			{Op: action.InsertText, Text: "hunter2"},
			{Op: action.KeyDown, Text: "x"},
			{Op: action.KeyUp, Text: "x"},
			{Op: action.Key, Text: "Shift+Y"},
		} {
			if obs := step(t, e, a); obs.Redacted != field.secret || obs.Error != "" {
				t.Errorf("%s in the field at y=%d: redacted %v (want %v), error %q", a, field.y, obs.Redacted, field.secret, obs.Error)
			}
		}
	}
	if got := eval[string](t, e, `document.getElementById('pw').value + '|' + document.getElementById('q').value`); got != "hunter2xY|hunter2xY" {
		t.Errorf("the fields hold %q", got)
	}
}
