package openenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// testdata/pydantic_*.json were produced by pydantic 2.13.4 from models
// reproducing openenv-core's Action/Observation/State and the helium
// BrowserAction/BrowserObservation (testdata/pydantic_models.py.txt).

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
				Code   string
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
