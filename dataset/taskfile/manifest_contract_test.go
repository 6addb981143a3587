package taskfile

import (
	"encoding/json"
	"strings"
	"testing"
)

// parseEntry reads one manifest entry written as a JSON object.
func parseEntry(t *testing.T, entry string) (Manifest, error) {
	t.Helper()
	tab, err := Read([]byte(entry), "m.json", "")
	if err != nil {
		t.Fatalf("%s: %v", entry, err)
	}
	if len(tab.Rows) != 1 {
		t.Fatalf("%s: %d rows", entry, len(tab.Rows))
	}
	return ParseManifest(tab.Rows[0])
}

// manifestJSON is the entry as it is stored with the task.
func manifestJSON(t *testing.T, m Manifest) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every field at the edges of what it accepts, nulls (taken as absent),
// and the text forms of lists and booleans; compared with the stored JSON
// written out by hand.
func TestParseManifestAcceptedValues(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{"taskId": "t", "goal": "g", "seed": null, "viewport": null, "goalObject": null, "validateEachStep": null,
		   "maxSteps": null, "humanBaseline": null, "cheatScript": null, "tags": null}`,
			`{"taskId":"t","goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 1, "height": 1, "deviceScaleFactor": null}}`,
			`{"taskId":"t","viewport":{"width":1,"height":1},"goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": "1024", "height": 768.0, "deviceScaleFactor": "1.5"}}`,
			`{"taskId":"t","viewport":{"width":1024,"height":768,"deviceScaleFactor":1.5},"goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "maxSteps": 1, "humanBaseline": 0}`,
			`{"taskId":"t","goal":"g","maxSteps":1,"humanBaseline":0}`},
		{`{"taskId": "t", "goal": "g", "maxSteps": 10000, "humanBaseline": 1}`,
			`{"taskId":"t","goal":"g","maxSteps":10000,"humanBaseline":1}`},
		{`{"taskId": "t", "goal": "g", "seed": 9007199254740992}`,
			`{"taskId":"t","seed":9007199254740992,"goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "seed": -9007199254740992}`,
			`{"taskId":"t","seed":-9007199254740992,"goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "seed": " 7 "}`, `{"taskId":"t","seed":7,"goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": true}`, `{"taskId":"t","goal":"g","validateEachStep":true}`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": " Yes "}`, `{"taskId":"t","goal":"g","validateEachStep":true}`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": "1"}`, `{"taskId":"t","goal":"g","validateEachStep":true}`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": "no"}`, `{"taskId":"t","goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": false}`, `{"taskId":"t","goal":"g"}`},
		{`{"taskId": "t", "goal": "g", "tags": "a|b, c||"}`, `{"taskId":"t","goal":"g","tags":["a","b, c"]}`},
		{`{"taskId": "t", "goal": "g", "tags": " a ,, b ,"}`, `{"taskId":"t","goal":"g","tags":["a","b"]}`},
		{`{"taskId": "t", "goal": "g", "tags": [" x ", "", "y"], "actionSubsets": "bid|nav", "allowedActions": "click, fill"}`,
			`{"taskId":"t","goal":"g","tags":["x","y"],"actionSubsets":["bid","nav"],"allowedActions":["click","fill"]}`},
		{`{"taskId": "t", "goal": "g", "cheatScript": " document.querySelector('a').click() "}`,
			`{"taskId":"t","goal":"g","cheatScript":"document.querySelector('a').click()"}`},
		{`{"taskId": "t", "goal": "g", "cheatScript": [{"tool": "chrome_click", "params": {"selector": "#go"}}]}`,
			`{"taskId":"t","goal":"g","cheatScript":"[{\"params\":{\"selector\":\"#go\"},\"tool\":\"chrome_click\"}]"}`},
		// A goal given and a goalObject: the goal is kept.
		{`{"taskId": "t", "goal": "mine", "goalObject": "theirs"}`, `{"taskId":"t","goal":"mine","goalObject":"theirs"}`},
		// A validateScript given and a grader: the script is kept; a grader
		// with a blank expression gives none; the grader is kept as extra.
		{`{"taskId": "t", "goal": "g", "validateScript": "ok()", "grader": {"expression": "other()"}}`,
			`{"taskId":"t","goal":"g","validateScript":"ok()","extra":{"grader":{"expression":"other()"}}}`},
		{`{"taskId": "t", "goal": "g", "grader": {"expression": "  "}}`,
			`{"taskId":"t","goal":"g","extra":{"grader":{"expression":"  "}}}`},
		{`{"taskId": "t", "goal": "g", "grader": {"expression": " done() "}}`,
			`{"taskId":"t","goal":"g","validateScript":"done()","extra":{"grader":{"expression":" done() "}}}`},
		// Numbers as text fields; keys matched whatever their case and spaces.
		{`{" TaskID ": 12, "GOAL": "g", "Locale": "pt-PT", "answer": 42.5}`,
			`{"taskId":"12","goal":"g","locale":"pt-PT","answer":"42.5"}`},
	} {
		m, err := parseEntry(t, c.entry)
		if err != nil {
			t.Errorf("%s: refused: %v", c.entry, err)
			continue
		}
		if got := manifestJSON(t, m); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.entry, got, c.want)
		}
	}
}

// Every refusal names the entry and the field and says what to write.
func TestParseManifestRefusalsAtTheEdges(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800, "height": 0}}`,
			`task "t", field viewport: width, height and deviceScaleFactor must be positive, e.g. {"width": 800, "height": 600}`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": -1, "height": 600}}`,
			`task "t", field viewport: width, height and deviceScaleFactor must be positive`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": "wide", "height": 600}}`,
			`task "t", field viewport: width and height must be whole numbers, e.g. {"width": 800, "height": 600}`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800, "height": 600.5}}`,
			`task "t", field viewport: width and height must be whole numbers`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800}}`,
			`task "t", field viewport: width and height must be whole numbers`},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800, "height": 600, "deviceScaleFactor": "x"}}`,
			`task "t", field viewport: deviceScaleFactor: "x" is not a number`},
		{`{"taskId": "t", "goal": "g", "viewport": [800, 600]}`, `task "t", field viewport: an array; write {"width": 800, "height": 600}`},
		{`{"taskId": "t", "goal": "g", "maxSteps": 10001}`,
			`task "t", field maxSteps: "10001" is not a step count; write a whole number from 1 to 10000`},
		{`{"taskId": "t", "goal": "g", "maxSteps": "many"}`, `task "t", field maxSteps: "many" is not a step count`},
		{`{"taskId": "t", "goal": "g", "humanBaseline": -0.1}`,
			`task "t", field humanBaseline: "-0.1" is not a success rate; write a number from 0 to 1, or null`},
		{`{"taskId": "t", "goal": "g", "humanBaseline": 1.01}`, `task "t", field humanBaseline: "1.01" is not a success rate`},
		{`{"taskId": "t", "goal": "g", "humanBaseline": "NaN"}`, `task "t", field humanBaseline: "NaN" is not a success rate`},
		{`{"taskId": "t", "goal": "g", "seed": "Inf"}`, `task "t", field seed: "Inf" is not a number; write a whole number, e.g. 101`},
		{`{"taskId": "t", "goal": "g", "seed": "-Infinity"}`, `task "t", field seed: "-Infinity" is not a number`},
		{`{"taskId": "t", "goal": "g", "seed": " "}`, `task "t", field seed: a string, not a number`},
		{`{"taskId": "t", "goal": "g", "seed": true}`, `task "t", field seed: a boolean, not a number`},
		{`{"taskId": "t", "goal": "g", "seed": 9007199254740994}`, `task "t", field seed: 9.007199254740994e+15 is not a whole number`},
		{`{"taskId": "t", "goal": "g", "seed": -9007199254740994}`, `task "t", field seed: -9.007199254740994e+15 is not a whole number`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": 1}`, `task "t", field validateEachStep: "1" is not true or false`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": []}`, `task "t", field validateEachStep: an array is not true or false`},
		{`{"taskId": "t", "goal": "g", "actionSubsets": [1]}`, `task "t", field actionSubsets: item 1 is a number, not text; write a list of strings`},
		{`{"taskId": "t", "goal": "g", "allowedActions": ["click", null]}`, `task "t", field allowedActions: item 2 is a null, not text`},
		{`{"taskId": "t", "goal": "g", "tags": {"a": 1}}`, `task "t", field tags: an object; write a list of strings`},
		{`{"taskId": "t", "goal": "g", "cheatScript": {"tool": "x"}}`,
			`task "t", field cheatScript: an object; write a JavaScript expression or body, or a list of {tool, params} steps`},
		{`{"taskId": "t", "goal": "g", "locale": true}`, `task "t", field locale: a boolean, not text`},
		{`{"taskId": "t", "goalObject": [{"role": "user", "content": "a"}, 3]}`, `task "t", field goalObject: a number is not a message`},
		{`{"taskId": "t", "goalObject": {"role": "user", "content": 3}}`, `task "t", field goalObject: a message without content`},
		// Names: taskId first, else id, else the row.
		{`{"id": "x", "taskId": "", "goal": "g", "maxSteps": 0}`, `task "x", field maxSteps`},
		{`{"id": "", "goal": "g", "validateScript": "v", "maxSteps": 0}`, `task row 1, field maxSteps`},
	} {
		_, err := parseEntry(t, c.entry)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.entry, err, c.want)
		}
	}
}

// The goal read from a goalObject: OpenAI-style messages (a list or one),
// a string, a content part given alone; text parts kept in order, blank
// ones and other parts left out.
func TestGoalObjectText(t *testing.T) {
	for _, c := range []struct{ obj, want string }{
		{`"  Book a table  "`, "Book a table"},
		{`{"role": "user", "content": "One message"}`, "One message"},
		{`{"type": "text", "text": "A part alone"}`, "A part alone"},
		{`[{"role": "system", "content": "Be brief."}, {"role": "user", "content": [
			{"type": "text", "text": "First"}, "not a part", {"type": "image_url", "image_url": "x"},
			{"type": "text", "text": "   "}, {"type": "text", "text": "Second"}]}]`, "Be brief.\nFirst\nSecond"},
		{`["a", "", "b"]`, "a\nb"},
		{`[]`, ""},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.obj), &v); err != nil {
			t.Fatal(err)
		}
		got, err := goalObjectText(v)
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.obj, got, err, c.want)
		}
	}
	m, err := parseEntry(t, `{"taskId": "t", "goalObject": {"role": "user", "content": [{"type": "text", "text": "From the object"}]}}`)
	if err != nil || m.Goal != "From the object" {
		t.Errorf("goal from a single message: %q, %v", m.Goal, err)
	}
}

// The kinds named in messages.
func TestAKind(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{}, "an object"}, {[]any{}, "an array"}, {"s", "a string"}, {json.Number("1"), "a number"},
		{true, "a boolean"}, {nil, "a null"}, {3.5, "a value"},
	} {
		if got := aKind(c.v); got != c.want {
			t.Errorf("aKind(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// A viewport differing in one dimension only, or at scale 1 given
// explicitly.
func TestViewportNoteOneDimension(t *testing.T) {
	for _, c := range []struct{ entry, note string }{
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800, "height": 720}}`,
			"asks for a 800×720 viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently"},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 1280, "height": 600}}`,
			"asks for a 1280×600 viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently"},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 1280, "height": 720, "deviceScaleFactor": 1}}`,
			"asks for a 1280×720 viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently"},
		{`{"taskId": "t", "goal": "g", "viewport": {"width": 800, "height": 600, "deviceScaleFactor": 1}}`, ""},
	} {
		m, err := parseEntry(t, c.entry)
		if err != nil {
			t.Errorf("%s: %v", c.entry, err)
			continue
		}
		if got := m.ViewportNote(); got != c.note {
			t.Errorf("%s: note %q, want %q", c.entry, got, c.note)
		}
	}
}
