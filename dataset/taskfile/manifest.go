package taskfile

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A BrowserGym-style task manifest (the pi-chrome "task-manifest.json"
// format) is a JSON array of task objects, an object with a "tasks" array,
// or one task object: Read reads all three. IsManifest tells it from a
// plain task file by its keys, and ParseManifest reads one entry.

// manifestOnlyKeys are keys only a manifest has (compared case-insensitively).
var manifestOnlyKeys = []string{"taskid", "setupurl", "starturl", "validatescript", "cheatscript", "goalobject",
	"actionsubsets", "allowedactions", "humanbaseline", "viewport", "validateeachstep", "grader"}

// IsManifest reports whether a file's columns are a manifest's: any key
// only manifests have (taskId, setupUrl, validateScript, cheatScript,
// goalObject, actionSubsets, allowedActions, humanBaseline, viewport,
// validateEachStep, grader).
func IsManifest(columns []string) bool {
	for _, c := range columns {
		if slices.Contains(manifestOnlyKeys, strings.ToLower(strings.TrimSpace(c))) {
			return true
		}
	}
	return false
}

// Waymark's viewport. A manifest asking for another (BrowserGym's default
// is 1280×720) is imported all the same: its viewport is kept with the task
// and ViewportNote says that the episodes are recorded at 800×600.
const (
	manifestWidth  = 800
	manifestHeight = 600
)

// ViewportNote says how the manifest's viewport differs from the one
// Waymark records at, or "" when it does not (or names none).
func (m Manifest) ViewportNote() string {
	v := m.Viewport
	if v == nil || (v.Width == manifestWidth && v.Height == manifestHeight && (v.Scale == 0 || v.Scale == 1)) {
		return ""
	}
	asked := fmt.Sprintf("%d×%d", v.Width, v.Height)
	if v.Scale != 0 && v.Scale != 1 {
		asked += fmt.Sprintf(" at scale %g", v.Scale)
	}
	return fmt.Sprintf("asks for a %s viewport; recorded at 800×600 CSS pixels at scale 1, so its pages may lay out differently", asked)
}

// ActionSubsets are BrowserGym's HighLevelActionSet subsets.
var ActionSubsets = []string{"chat", "infeas", "bid", "coord", "nav", "tab", "miniwob_all", "miniwob_shi17", "miniwob_liu18",
	"miniwob_humphreys22", "webarena", "visualwebarena", "workarena", "workarena++", "weblinx", "assistantbench", "timewarp", "custom"}

// Manifest is one manifest entry's fields, as stored with the task
// (tasks.manifest_json). Keys keep the manifest's names.
type Manifest struct {
	TaskID   string `json:"taskId,omitempty"`
	ID       string `json:"id,omitempty"`
	Seed     *int64 `json:"seed,omitempty"`
	Viewport *struct {
		Width  int     `json:"width"`
		Height int     `json:"height"`
		Scale  float64 `json:"deviceScaleFactor,omitempty"`
	} `json:"viewport,omitempty"`
	Goal       string          `json:"goal,omitempty"`
	GoalObject json.RawMessage `json:"goalObject,omitempty"`
	SetupURL   string          `json:"setupUrl,omitempty"`
	StartURL   string          `json:"startUrl,omitempty"`
	// ValidateScript is run in the page (see action.Validator); from
	// grader.expression when the entry has a grader and no validateScript.
	ValidateScript string `json:"validateScript,omitempty"`
	// ValidateEachStep (a Waymark key) runs it after every step too.
	ValidateEachStep bool `json:"validateEachStep,omitempty"`
	// CheatScript is a JavaScript expression or body, or a JSON list of
	// {tool: chrome_click|chrome_fill, params: {selector, text}} steps
	// (kept as its JSON text).
	CheatScript    string   `json:"cheatScript,omitempty"`
	MaxSteps       int      `json:"maxSteps,omitempty"`
	Locale         string   `json:"locale,omitempty"`
	TimezoneID     string   `json:"timezoneId,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	Difficulty     string   `json:"difficulty,omitempty"`
	HumanBaseline  *float64 `json:"humanBaseline,omitempty"`
	ActionSubsets  []string `json:"actionSubsets,omitempty"`
	AllowedActions []string `json:"allowedActions,omitempty"`
	// Category is the entry's own category value, as written.
	Category string `json:"category,omitempty"`
	// Answer (a Waymark key) is an expected answer: an answer check.
	Answer string `json:"answer,omitempty"`
	// CategoryFrom says where the Waymark category came from: category,
	// tags, default or inferred (set by the importer).
	CategoryFrom string `json:"waymarkCategoryFrom,omitempty"`
	// Extra holds the entry's other keys as written (site, grader,
	// slowMoMs, timeoutMs, rubric, …).
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// Name is the entry's id for messages: taskId, else id, else "row N".
func (m Manifest) Name(row int) string {
	switch {
	case m.TaskID != "":
		return strconv.Quote(m.TaskID)
	case m.ID != "":
		return strconv.Quote(m.ID)
	}
	return "row " + strconv.Itoa(row)
}

var actionNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseManifest reads one manifest entry. The error names the entry and
// the field, and says what is expected.
func ParseManifest(r Row) (Manifest, error) {
	var m Manifest
	vals := map[string]any{}
	keys := make([]string, 0, len(r.Values))
	for k, v := range r.Values {
		vals[strings.ToLower(strings.TrimSpace(k))] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m.TaskID, _ = textOf(vals["taskid"])
	m.ID, _ = textOf(vals["id"])
	fail := func(field, format string, a ...any) (Manifest, error) {
		return m, fmt.Errorf("task %s, field %s: %s", m.Name(r.Row), field, fmt.Sprintf(format, a...))
	}
	for _, f := range []struct {
		key, name string
		dst       *string
	}{{"goal", "goal", &m.Goal}, {"setupurl", "setupUrl", &m.SetupURL}, {"starturl", "startUrl", &m.StartURL},
		{"validatescript", "validateScript", &m.ValidateScript}, {"locale", "locale", &m.Locale},
		{"timezoneid", "timezoneId", &m.TimezoneID}, {"category", "category", &m.Category}, {"answer", "answer", &m.Answer},
		{"difficulty", "difficulty", &m.Difficulty}} {
		s, ok := textOf(vals[f.key])
		if !ok {
			return fail(f.name, "%s, not text", aKind(vals[f.key]))
		}
		*f.dst = strings.TrimSpace(s)
	}
	if v, ok := vals["seed"]; ok && v != nil {
		n, err := intOf(v)
		if err != nil {
			return fail("seed", "%v; write a whole number, e.g. 101", err)
		}
		m.Seed = &n
	}
	if v, ok := vals["viewport"]; ok && v != nil {
		vp, ok := v.(map[string]any)
		if !ok {
			return fail("viewport", `%s; write {"width": 800, "height": 600}`, aKind(v))
		}
		w, errW := intOf(vp["width"])
		h, errH := intOf(vp["height"])
		if errW != nil || errH != nil {
			return fail("viewport", `width and height must be whole numbers, e.g. {"width": 800, "height": 600}`)
		}
		scale := 0.0
		if s, ok := vp["deviceScaleFactor"]; ok && s != nil {
			f, err := floatOf(s)
			if err != nil {
				return fail("viewport", "deviceScaleFactor: %v", err)
			}
			scale = f
		}
		if w <= 0 || h <= 0 || scale < 0 {
			return fail("viewport", `width, height and deviceScaleFactor must be positive, e.g. {"width": 800, "height": 600}`)
		}
		m.Viewport = &struct {
			Width  int     `json:"width"`
			Height int     `json:"height"`
			Scale  float64 `json:"deviceScaleFactor,omitempty"`
		}{int(w), int(h), scale}
	}
	if v, ok := vals["goalobject"]; ok && v != nil {
		text, err := goalObjectText(v)
		if err != nil {
			return fail("goalObject", "%v", err)
		}
		m.GoalObject, _ = json.Marshal(v)
		if m.Goal == "" {
			m.Goal = text
		}
	}
	if m.ValidateScript == "" {
		if g, ok := vals["grader"].(map[string]any); ok {
			if expr, _ := textOf(g["expression"]); strings.TrimSpace(expr) != "" {
				m.ValidateScript = strings.TrimSpace(expr)
			}
		}
	}
	if b, ok := vals["validateeachstep"]; ok && b != nil {
		bv, isBool := b.(bool)
		if t, isText := b.(string); isText {
			switch strings.ToLower(strings.TrimSpace(t)) {
			case "true", "1", "yes":
				bv, isBool = true, true
			case "false", "0", "no":
				bv, isBool = false, true
			}
		}
		if !isBool {
			return fail("validateEachStep", "%s is not true or false", cellText(b))
		}
		m.ValidateEachStep = bv
	}
	switch c := vals["cheatscript"].(type) {
	case nil:
	case string:
		m.CheatScript = strings.TrimSpace(c)
	case []any:
		b, _ := json.Marshal(c)
		m.CheatScript = string(b)
	default:
		return fail("cheatScript", "%s; write a JavaScript expression or body, or a list of {tool, params} steps", aKind(c))
	}
	if v, ok := vals["maxsteps"]; ok && v != nil {
		n, err := intOf(v)
		if err != nil || n < 1 || n > 10000 {
			return fail("maxSteps", "%s is not a step count; write a whole number from 1 to 10000", cellText(v))
		}
		m.MaxSteps = int(n)
	}
	if v, ok := vals["humanbaseline"]; ok && v != nil {
		f, err := floatOf(v)
		if err != nil || f < 0 || f > 1 {
			return fail("humanBaseline", "%s is not a success rate; write a number from 0 to 1, or null", cellText(v))
		}
		m.HumanBaseline = &f
	}
	var err error
	if m.Tags, err = listOf(vals["tags"]); err != nil {
		return fail("tags", "%v", err)
	}
	if m.ActionSubsets, err = listOf(vals["actionsubsets"]); err != nil {
		return fail("actionSubsets", "%v", err)
	}
	for _, s := range m.ActionSubsets {
		if !slices.Contains(ActionSubsets, s) {
			return fail("actionSubsets", "unknown subset %q; BrowserGym's are %s", s, strings.Join(ActionSubsets, ", "))
		}
	}
	if m.AllowedActions, err = listOf(vals["allowedactions"]); err != nil {
		return fail("allowedActions", "%v", err)
	}
	for _, a := range m.AllowedActions {
		if !actionNameRe.MatchString(a) {
			return fail("allowedActions", "%q is not an action name (e.g. click, fill, send_msg_to_user)", a)
		}
	}
	known := []string{"taskid", "id", "goal", "setupurl", "starturl", "validatescript", "locale", "timezoneid", "category",
		"answer", "difficulty", "seed", "viewport", "goalobject", "validateeachstep", "cheatscript", "maxsteps",
		"humanbaseline", "tags", "actionsubsets", "allowedactions", "redact"}
	for _, k := range keys {
		if slices.Contains(known, strings.ToLower(strings.TrimSpace(k))) {
			continue
		}
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[k], _ = json.Marshal(r.Values[k])
	}
	return m, nil
}

// textOf reads a text field: a string, a number, or null (""); ok is false
// for lists, objects and booleans.
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case float64, float32, int, int32, int64:
		return fmt.Sprint(x), true
	}
	return "", false
}

func cellText(v any) string {
	s, _ := CellString(v)
	if s == "" {
		return aKind(v)
	}
	return strconv.Quote(s)
}

func floatOf(v any) (float64, error) {
	s, ok := textOf(v)
	if !ok || strings.TrimSpace(s) == "" {
		return 0, fmt.Errorf("%s, not a number", aKind(v))
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

func intOf(v any) (int64, error) {
	f, err := floatOf(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%v is not a whole number", f)
	}
	return int64(f), nil
}

// listOf reads a list of strings: a JSON list, or text separated by "|"
// or ",".
func listOf(v any) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		sep := ","
		if strings.Contains(x, "|") {
			sep = "|"
		}
		for _, p := range strings.Split(x, sep) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("item %d is %s, not text; write a list of strings", i+1, aKind(e))
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	default:
		return nil, fmt.Errorf("%s; write a list of strings", aKind(v))
	}
	return out, nil
}

// goalObjectText reads the text of a goalObject: a list of OpenAI-style
// messages ({role, content}), one message, or a string; content is text
// or a list of parts whose {type: "text", text} parts are kept.
func goalObjectText(v any) (string, error) {
	var parts []string
	msg := func(m any) error {
		switch x := m.(type) {
		case string:
			parts = append(parts, x)
		case map[string]any:
			switch c := x["content"].(type) {
			case string:
				parts = append(parts, c)
			case []any:
				for _, p := range c {
					if pm, ok := p.(map[string]any); ok {
						if t, ok := pm["text"].(string); ok {
							parts = append(parts, t)
						}
					}
				}
			default:
				if t, ok := x["text"].(string); ok { // a content part given alone
					parts = append(parts, t)
					return nil
				}
				return fmt.Errorf(`a message without content; write [{"role": "user", "content": [{"type": "text", "text": "…"}]}]`)
			}
		default:
			return fmt.Errorf("%s is not a message", aKind(m))
		}
		return nil
	}
	if l, ok := v.([]any); ok {
		for _, m := range l {
			if err := msg(m); err != nil {
				return "", err
			}
		}
	} else if err := msg(v); err != nil {
		return "", err
	}
	var kept []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n"), nil
}

// aKind names a JSON value's kind with its article: "an array", "a string".
func aKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a " + jsonKind(v)
}
