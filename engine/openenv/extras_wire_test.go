package openenv

import (
	"encoding/json"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// An observation's element grounding (Target, Extras) never reaches the
// OpenEnv wire: with them set, every frame and HTTP body is byte for byte the
// one without, which is the reference's form.
func TestExtrasNeverOnTheWire(t *testing.T) {
	one := 1.0
	bbox := [4]float64{1, 2, 3, 4}
	grounded := func(o engine.Observation) engine.Observation {
		o.Target = &action.Target{Bid: "a51", Tag: "button", Role: "button", Name: "Buy", BBox: bbox, Selector: "#buy"}
		o.Extras = &action.Extras{
			AXTree:          json.RawMessage(`{"nodes":[{"nodeId":"1","browsergym_id":"a51"}]}`),
			DOM:             json.RawMessage(`{"documents":[],"strings":[]}`),
			AXTreeTxt:       "[a51] button 'Buy'",
			ElementProps:    map[string]action.ElementProps{"a51": {Visibility: 1, BBox: &bbox, Clickable: true, SetOfMarks: true}},
			FocusedBid:      "a51",
			OpenPagesURLs:   []string{"http://a/"},
			OpenPagesTitles: []string{"A"},
			ActivePageIndex: 0,
			LastAction:      "click('a51')",
			LastActionError: `ValueError: Could not find element with bid "a9"`,
			ElapsedTimeSecs: 1.5,
		}
		return o
	}
	base := []engine.Observation{
		{Step: 1, URL: "http://a/", Title: "A", Screenshot: []byte{1, 2, 3}},
		{Step: 2, URL: "http://a/b", Error: "x", Done: true, Reward: &one, Redacted: true,
			Timings: action.Timings{ActionMS: 1, SettleMS: 2, CaptureMS: 3, TotalMS: 6, SettledBy: "quiet"}},
	}
	want := []string{
		`{"type":"observation","data":{"observation":{"screenshot":"AQID","url":"http://a/","error":""},"reward":0,"done":false}}`,
		`{"type":"observation","data":{"observation":{"screenshot":"","url":"http://a/b","error":"x","metadata":{"redacted":true}},"reward":1.0,"done":true}}`,
	}
	for i, o := range base {
		g := grounded(o)
		if got := string(frame("observation", observationData(g, wsReward(g), false))); got != want[i] {
			t.Errorf("observation %d with extras:\n got %s\nwant %s", i, got, want[i])
		}
		for _, details := range []bool{false, true} {
			plain := string(frame("observation", observationData(o, wsReward(o), details)))
			with := string(frame("observation", observationData(g, wsReward(g), details)))
			if plain != with {
				t.Errorf("observation %d, details %v: extras change the frame:\n%s\n%s", i, details, plain, with)
			}
			plainHTTP := string(observationData(o, httpReward(o), details))
			withHTTP := string(observationData(g, httpReward(g), details))
			if plainHTTP != withHTTP {
				t.Errorf("observation %d, details %v: extras change the HTTP body:\n%s\n%s", i, details, plainHTTP, withHTTP)
			}
		}
		pj, _ := json.Marshal(o)
		gj, _ := json.Marshal(g)
		if string(pj) != string(gj) {
			t.Errorf("observation %d: extras change its JSON:\n%s\n%s", i, pj, gj)
		}
	}
}
