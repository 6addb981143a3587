package openenv

import (
	"encoding/json"
	"testing"

	"waymark/engine/openenv/control"
)

// The observation an agent gets for an action not performed, literally:
// the page after the person's last step, error action_not_executed, the
// person's steps in metadata.intervention (the title only with details),
// the last step's reward and done.
func TestInterventionObservationLiteral(t *testing.T) {
	r := 1.0
	steps := []control.WatchStep{
		{Step: 3, Actor: "human:ann", Action: json.RawMessage(`{"op":"click","x":1,"y":2}`), URL: "http://a.test/1", Error: ""},
		{Step: 4, Actor: "human:ann", Action: json.RawMessage(`{"op":"finish"}`), URL: "http://a.test/2", Title: "Two", Error: "", Done: true,
			Screenshot: []byte{1, 2, 3}, Reward: &r},
	}
	got := string(interventionData(steps[1], steps, false))
	want := `{"observation":{"screenshot":"AQID","url":"http://a.test/2","error":"action_not_executed","metadata":{"intervention":{"by":"human:ann",` +
		`"steps":[{"step":3,"action":{"op":"click","x":1,"y":2},"url":"http://a.test/1","error":""},{"step":4,"action":{"op":"finish"},"url":"http://a.test/2","error":""}],` +
		`"action_executed":false,"message":"A person (human:ann) took control and made 2 step(s) since your last observation; your action was not performed. This is the page now."}}},` +
		`"reward":1.0,"done":true}`
	if got != want {
		t.Errorf("intervention:\n got %s\nwant %s", got, want)
	}
	one := steps[:1]
	got = string(interventionData(one[0], one, true))
	want = `{"observation":{"screenshot":"","url":"http://a.test/1","error":"action_not_executed","metadata":{"intervention":{"by":"human:ann",` +
		`"steps":[{"step":3,"action":{"op":"click","x":1,"y":2},"url":"http://a.test/1","error":""}],` +
		`"action_executed":false,"message":"A person (human:ann) took control and made 1 step(s) since your last observation; your action was not performed. This is the page now."},"title":""}},` +
		`"reward":0,"done":false}`
	if got != want {
		t.Errorf("intervention with details:\n got %s\nwant %s", got, want)
	}
}
