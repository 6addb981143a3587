package openenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// testdata/pydantic_*.json were produced by pydantic 2.13.4 (gen_golden.py)
// from testdata/reference_models.py, which reproduces openenv-core's
// Action/Observation/State and the helium BrowserAction/BrowserObservation.

// /schema is byte for byte what pydantic emits for those models.
func TestSchemaMatchesPydantic(t *testing.T) {
	want, err := os.ReadFile("testdata/pydantic_schema.json")
	if err != nil {
		t.Fatal(err)
	}
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	resp, err := http.Get(hs.URL + "/schema")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != string(bytes.TrimSpace(want)) {
		t.Errorf("/schema differs from pydantic's:\n got %s\nwant %s", got, want)
	}
}

// Every VALIDATION_ERROR's errors list is pydantic's for the same input
// (custom-validator errors carry ctx.error as text, as pydantic's JSON does).
func TestValidationErrorsMatchPydantic(t *testing.T) {
	raw, err := os.ReadFile("testdata/pydantic_action_errors.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Input  json.RawMessage `json:"input"`
		Errors []any           `json:"errors"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	for _, c := range cases {
		reply := r.call(`{"type":"step","data":` + string(c.Input) + `}`)
		var m struct {
			Type string
			Data struct {
				Code   Code
				Errors []any
			}
		}
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatal(err)
		}
		if len(c.Errors) == 0 {
			if m.Type != "observation" {
				t.Errorf("%s: pydantic accepts it, Waymark answered %.200s", c.Input, reply)
			}
			continue
		}
		if m.Data.Code != CodeValidation || !reflect.DeepEqual(m.Data.Errors, c.Errors) {
			g, _ := json.Marshal(m.Data.Errors)
			w, _ := json.Marshal(c.Errors)
			t.Errorf("%.80s:\n got %s\nwant %s", strings.ReplaceAll(string(c.Input), "\n", ""), g, w)
		}
	}
}

// The reference client's strict models accept Waymark's replies: real
// replies from a real browser session are validated with pydantic
// (BrowserObservation forbids unknown keys and needs screenshot and url).
// Skipped where python3 with pydantic 2 is not installed.
func TestRepliesPassTheReferenceModels(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pydantic; assert pydantic.VERSION.startswith('2')").Run(); err != nil {
		t.Skip("python3 with pydantic 2 is not installed; the golden files still check the schema and errors")
	}
	s := newSite(t)
	var es engines
	_, hs := testServer(t, Options{NewEngine: browserFactory(t, &es)})
	r := dialRaw(t, hs)
	replies := [][]byte{
		r.call(`{"type":"reset","data":{"start_url":"` + s.URL + `"}}`),
		r.call(`{"type":"step","data":{"metadata":{},"op":"scroll","x":null,"y":null,"text":"","dy":500}}`),
		r.call(`{"type":"state"}`),
	}
	script := `
import json, sys
sys.path.insert(0, "testdata")
from reference_models import BrowserObservation, State
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "observation":
        o = BrowserObservation.model_validate(m["data"]["observation"])
        assert isinstance(m["data"]["reward"], int) and m["data"]["reward"] == 0, m["data"]["reward"]
        print("observation", o.url, len(o.screenshot) > 100, m["data"]["done"] or o.done)
    else:
        print("state", State.model_validate(m["data"]).step_count)
`
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = strings.NewReader(string(bytes.Join(replies, []byte("\n"))) + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pydantic refused a reply: %v\n%s", err, out)
	}
	want := "observation " + s.URL + "/ True False\nobservation " + s.URL + "/ True False\nstate 1\n"
	if string(out) != want {
		t.Errorf("pydantic read:\n%s\nwant:\n%s", out, want)
	}
}
