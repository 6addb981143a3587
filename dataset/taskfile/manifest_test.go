package taskfile

import (
	"encoding/json"
	"strings"
	"testing"
)

// A pi-chrome style entry (seed 003's fields) read from a JSON array.
const piChromeEntry = `[{"id": "ticket-priority", "taskId": "choredesk.L1.ticket-priority", "site": "choredesk",
 "startUrl": "scenarios/choredesk/index.html?task=ticket-priority&run=$RUN_ID&seed=$SEED",
 "setupUrl": "scenarios/choredesk/index.html?task=ticket-priority&run=$RUN_ID&seed=$SEED",
 "difficulty": "L1", "category": "enterprise-crud", "seed": 101,
 "goalObject": [{"role": "user", "content": [{"type": "text", "text": "Set ticket CD-7 to high priority."}, {"type": "image_url", "image_url": "x"}]}],
 "grader": {"type": "inPageProgrammatic", "expression": "JSON.stringify(window.__taskValidation || {v: window.__taskVerdict})", "passValue": "PASS"},
 "cheatScript": "scenarios/choredesk/cheats.js#choredesk.L1.ticket-priority",
 "viewport": {"width": 800, "height": 600}, "slowMoMs": 1000, "timeoutMs": 5000, "locale": null, "timezoneId": null,
 "tags": ["crud", "tickets"], "humanBaseline": 0.9, "actionSubsets": ["chat", "bid"], "allowedActions": ["click", "fill", "send_msg_to_user"],
 "maxSteps": 15}]`

func TestParseManifestPiChromeEntry(t *testing.T) {
	tab, err := Read([]byte(piChromeEntry), "task-manifest.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if !IsManifest(tab.Columns) || len(tab.Rows) != 1 {
		t.Fatalf("not read as a one-task manifest: columns %v, %d rows", tab.Columns, len(tab.Rows))
	}
	m, err := ParseManifest(tab.Rows[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.TaskID != "choredesk.L1.ticket-priority" || m.ID != "ticket-priority" || m.Seed == nil || *m.Seed != 101 {
		t.Errorf("ids and seed: %q %q %v", m.TaskID, m.ID, m.Seed)
	}
	if m.Goal != "Set ticket CD-7 to high priority." {
		t.Errorf("goal from goalObject: %q", m.Goal)
	}
	if m.ValidateScript != "JSON.stringify(window.__taskValidation || {v: window.__taskVerdict})" {
		t.Errorf("validateScript from the grader's expression: %q", m.ValidateScript)
	}
	if m.SetupURL != "scenarios/choredesk/index.html?task=ticket-priority&run=$RUN_ID&seed=$SEED" || m.MaxSteps != 15 ||
		m.HumanBaseline == nil || *m.HumanBaseline != 0.9 || m.Difficulty != "L1" || m.Category != "enterprise-crud" {
		t.Errorf("fields: %+v", m)
	}
	if strings.Join(m.Tags, ",") != "crud,tickets" || strings.Join(m.ActionSubsets, ",") != "chat,bid" ||
		strings.Join(m.AllowedActions, ",") != "click,fill,send_msg_to_user" {
		t.Errorf("lists: %v %v %v", m.Tags, m.ActionSubsets, m.AllowedActions)
	}
	if m.Locale != "" || m.TimezoneID != "" {
		t.Errorf("null locale and timezoneId: %q %q", m.Locale, m.TimezoneID)
	}
	for _, k := range []string{"site", "grader", "slowMoMs", "timeoutMs"} {
		if _, ok := m.Extra[k]; !ok {
			t.Errorf("extra key %s not kept (extra: %v)", k, m.Extra)
		}
	}
	if string(m.Extra["slowMoMs"]) != "1000" {
		t.Errorf("slowMoMs kept as %s", m.Extra["slowMoMs"])
	}
}

func TestParseManifestRefusesBadFields(t *testing.T) {
	for _, c := range []struct{ entry, want string }{
		{`{"taskId": "a.b", "goal": "g", "viewport": {"width": 0, "height": 720}}`,
			`task "a.b", field viewport: width, height and deviceScaleFactor must be positive`},
		{`{"taskId": "a.b", "goal": "g", "viewport": {"width": 800, "height": 600, "deviceScaleFactor": -2}}`,
			`task "a.b", field viewport: width, height and deviceScaleFactor must be positive`},
		{`{"taskId": "a.b", "goal": "g", "viewport": "big"}`, `task "a.b", field viewport: a string; write {"width": 800`},
		{`{"id": "x1", "goal": "g", "seed": 1.5}`, `task "x1", field seed: 1.5 is not a whole number`},
		{`{"taskId": "t", "goal": "g", "maxSteps": 0}`, `task "t", field maxSteps: "0" is not a step count`},
		{`{"taskId": "t", "goal": "g", "humanBaseline": 2}`, `task "t", field humanBaseline: "2" is not a success rate`},
		{`{"taskId": "t", "goal": "g", "actionSubsets": ["bid", "teleport"]}`, `task "t", field actionSubsets: unknown subset "teleport"`},
		{`{"taskId": "t", "goal": "g", "allowedActions": ["click()"]}`, `task "t", field allowedActions: "click()" is not an action name`},
		{`{"taskId": "t", "goal": "g", "tags": [1]}`, `task "t", field tags: item 1 is a number, not text`},
		{`{"taskId": "t", "goal": ["g"]}`, `task "t", field goal: an array, not text`},
		{`{"taskId": "t", "goalObject": [{"role": "user"}]}`, `task "t", field goalObject: a message without content`},
		{`{"taskId": "t", "goal": "g", "cheatScript": 3}`, `task "t", field cheatScript: a number`},
		{`{"taskId": "t", "goal": "g", "validateEachStep": "sometimes"}`, `task "t", field validateEachStep: "sometimes" is not true or false`},
		{`{"setupUrl": "http://x/", "goal": "g", "seed": "abc"}`, `task row 1, field seed: "abc" is not a number`},
	} {
		tab, err := Read([]byte(c.entry), "m.json", "")
		if err != nil {
			t.Fatalf("%s: %v", c.entry, err)
		}
		_, err = ParseManifest(tab.Rows[0])
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.entry, err, c.want)
		}
	}
}

func TestIsManifest(t *testing.T) {
	for cols, want := range map[string]bool{
		"goal,url,category":          false,
		"goal,url,timezoneId,locale": false,
		"goal,setupUrl":              true,
		"id,goal,url,ValidateScript": true,
		"taskId,goal":                true,
	} {
		if got := IsManifest(strings.Split(cols, ",")); got != want {
			t.Errorf("IsManifest(%s) = %v", cols, got)
		}
	}
}

// BrowserGym's tasks default to a 1280×720 viewport (every entry of a
// pi-chrome manifest names it): such a task is imported, its viewport kept,
// and ViewportNote says that Waymark records at 800×600.
func TestParseManifestKeepsOtherViewports(t *testing.T) {
	for _, c := range []struct{ entry, note string }{
		{`{"taskId": "a.b", "goal": "g", "viewport": {"width": 1280, "height": 720}}`,
			"asks for a 1280×720 viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently"},
		{`{"taskId": "a.b", "goal": "g", "viewport": {"width": 800, "height": 600, "deviceScaleFactor": 2}}`,
			"asks for a 800×600 at scale 2 viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently"},
		{`{"taskId": "a.b", "goal": "g", "viewport": {"width": 800, "height": 600}}`, ""},
		{`{"taskId": "a.b", "goal": "g"}`, ""},
	} {
		tab, err := Read([]byte(c.entry), "m.json", "")
		if err != nil {
			t.Fatalf("%s: %v", c.entry, err)
		}
		m, err := ParseManifest(tab.Rows[0])
		if err != nil {
			t.Errorf("%s: refused: %v", c.entry, err)
			continue
		}
		if got := m.ViewportNote(); got != c.note {
			t.Errorf("%s: note %q, want %q", c.entry, got, c.note)
		}
		if c.note != "" {
			b, _ := json.Marshal(m)
			if !strings.Contains(string(b), `"viewport":{"width":`) {
				t.Errorf("%s: viewport not kept: %s", c.entry, b)
			}
		}
	}
}
