package hfexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"waymark/dataset"
)

// The Go rows below are what parquet-go writes. Every field is a pointer (or
// an optional slice), so every Parquet node is OPTIONAL: the datasets library
// reads a REQUIRED node against nullable features as a schema mismatch. Field order is the column order and must match
// the features declared in stepsFeatures / episodesFeatures.

// hfImage is the storage of a datasets Image feature: bytes then path.
type hfImage struct {
	Bytes []byte  `parquet:"bytes,optional,uncompressed,plain"`
	Path  *string `parquet:"path"`
}

// stepAction is the typed action of a step. Fields an operation does not use
// are null.
type stepAction struct {
	Op   *string `parquet:"op"`
	X    *int64  `parquet:"x"`
	Y    *int64  `parquet:"y"`
	Text *string `parquet:"text"`
	DY   *int64  `parquet:"dy"`
	X2   *int64  `parquet:"x2"`
	Y2   *int64  `parquet:"y2"`
	URL  *string `parquet:"url"`
}

// StepRow is one row of the steps config: the action of step k and the
// observation it was taken on (the screenshot and URL of step k-1).
type stepRow struct {
	EpisodeID        *string     `parquet:"episode_id"`
	TaskID           *string     `parquet:"task_id"`
	StepIndex        *int64      `parquet:"step_index"`
	RecordedStep     *int64      `parquet:"recorded_step"`
	Goal             *string     `parquet:"goal"`
	Category         *int64      `parquet:"category"`
	Screenshot       *hfImage    `parquet:"screenshot"`
	URL              *string     `parquet:"url"`
	AXTreeTxt        *string     `parquet:"axtree_txt"` // of the observation; null when extras were off
	Action           *stepAction `parquet:"action"`
	Target           *stepTarget `parquet:"target"` // the element acted on; null when unknown
	ActionJSON       *string     `parquet:"action_json"`
	BrowserGymAction *string     `parquet:"browsergym_action"`
	// BrowserGymElementAction is the action aimed at the target's bid
	// (click('a51')); null when it has no element form.
	BrowserGymElementAction *string    `parquet:"browsergym_element_action"`
	NextURL                 *string    `parquet:"next_url"`
	Error                   *string    `parquet:"error"`
	Done                    *bool      `parquet:"done"`
	Timestamp               *time.Time `parquet:"timestamp,timestamp(millisecond)"`
	DurationMS              *int64     `parquet:"duration_ms"`
	// ReviewFlags are the label's flags on this step; null when the
	// episode has no label.
	ReviewFlags []*string `parquet:"review_flags,optional,list"`
	// Note is the annotator's note on the step ("" for none).
	Note *string `parquet:"note"`
	// Actor is who acted: "agent:NAME" or "human:NAME".
	Actor *string `parquet:"actor"`
	// StepLabel is the reviewers' judgement of the step ("correct",
	// "wrong", "unnecessary"), settled as outcomes are; null when nobody
	// labelled it or the labels disagree unsettled.
	StepLabel *string `parquet:"step_label"`
	// Redaction lists, as JSON, the boxes blacked out of the screenshot
	// shown ({x, y, w, h, why}; "[]" when none).
	Redaction *string `parquet:"redaction"`
}

// episodeStep is the image-free summary of one step inside an episode row.
type episodeStep struct {
	StepIndex    *int64  `parquet:"step_index"`
	RecordedStep *int64  `parquet:"recorded_step"`
	Op           *string `parquet:"op"`
	X            *int64  `parquet:"x"`
	Y            *int64  `parquet:"y"`
	Text         *string `parquet:"text"`
	DY           *int64  `parquet:"dy"`
	URL          *string `parquet:"url"`
}

// episodeRow is one row of the episodes config.
type episodeRow struct {
	EpisodeID       *string        `parquet:"episode_id"`
	TaskID          *string        `parquet:"task_id"`
	Goal            *string        `parquet:"goal"`
	Category        *int64         `parquet:"category"`
	StartURL        *string        `parquet:"start_url"`
	Annotator       *string        `parquet:"annotator"`
	ActionSet       *string        `parquet:"action_set"`
	Outcome         *int64         `parquet:"outcome"`
	NumReviews      *int64         `parquet:"num_reviews"`
	FailureStep     *int64         `parquet:"failure_step"`
	FailureType     *string        `parquet:"failure_type"`
	ReviewReason    *string        `parquet:"review_reason"`
	FinalAnswer     *string        `parquet:"final_answer"`
	FinalURL        *string        `parquet:"final_url"`
	Status          *string        `parquet:"status"`
	EndReason       *string        `parquet:"end_reason"`
	AutoReward      *float64       `parquet:"auto_reward"`
	NumSteps        *int64         `parquet:"num_steps"`
	StartedAt       *time.Time     `parquet:"started_at,timestamp(millisecond)"`
	DurationMS      *int64         `parquet:"duration_ms"`
	FinalScreenshot *hfImage       `parquet:"final_screenshot"`
	Steps           []*episodeStep `parquet:"steps,optional,list"`
	// Edits: the exported episode is the edited one.
	Edited          *bool    `parquet:"edited"`
	NumEdits        *int64   `parquet:"num_edits"`
	RemovedSteps    []*int64 `parquet:"removed_steps,optional,list"`
	ResumedAt       []*int64 `parquet:"resumed_at,optional,list"`
	ParentEpisodeID *string  `parquet:"parent_episode_id"`
	BranchStep      *int64   `parquet:"branch_step"`
	// The task's clock and locale ("" when unset).
	ReferenceTime *string `parquet:"reference_time"`
	Timezone      *string `parquet:"timezone"`
	Locale        *string `parquet:"locale"`
	// NumInterventions counts the times someone other than the annotator
	// took over (a person correcting an agent).
	NumInterventions *int64 `parquet:"num_interventions"`
	// Where the intent came from (intent.go).
	IntentOrigin  *string   `parquet:"intent_origin"`
	ExplorationID *string   `parquet:"exploration_id"`
	SpanFrom      *int64    `parquet:"span_from"`
	SpanTo        *int64    `parquet:"span_to"`
	KeyPoints     []*string `parquet:"key_points,optional,list"`
	Replayable    *bool     `parquet:"replayable"`
	ActualTask    *string   `parquet:"actual_task"`
}

// feature describes one datasets feature; the same tree renders the JSON of
// the Parquet metadata and the YAML of the card, so the two cannot drift.
type feature struct {
	name     string
	kind     featureKind
	dtype    string   // kindValue
	names    []string // kindClassLabel
	children []feature
}

type featureKind int

const (
	kindValue featureKind = iota
	kindClassLabel
	kindImage
	kindStruct
	kindList // a list of structs, in the JSON-array form datasets 2.x–5.x read
	// kindListValue is a list of values ([{"dtype":…}] in JSON, "list:
	// dtype" in the card's YAML), its one child the element.
	kindListValue
)

func value(name, dtype string) feature { return feature{name: name, kind: kindValue, dtype: dtype} }
func classLabel[S ~string](name string, names []S) feature {
	return feature{name: name, kind: kindClassLabel, names: asStrings(names)}
}
func imageFeature(name string) feature { return feature{name: name, kind: kindImage} }
func structOf(name string, c ...feature) feature {
	return feature{name: name, kind: kindStruct, children: c}
}
func listOf(name string, c ...feature) feature {
	return feature{name: name, kind: kindList, children: c}
}
func listOfValue(name, dtype string) feature {
	return feature{name: name, kind: kindListValue, children: []feature{value("", dtype)}}
}

const tsUTC = "timestamp[ms, tz=UTC]"

var stepsFeatures = []feature{
	value("episode_id", "string"),
	value("task_id", "string"),
	value("step_index", "int64"),
	value("recorded_step", "int64"),
	value("goal", "string"),
	classLabel("category", dataset.Categories),
	imageFeature("screenshot"),
	value("url", "string"),
	value("axtree_txt", "string"),
	structOf("action",
		value("op", "string"),
		value("x", "int64"),
		value("y", "int64"),
		value("text", "string"),
		value("dy", "int64"),
		value("x2", "int64"),
		value("y2", "int64"),
		value("url", "string"),
	),
	targetFeature,
	value("action_json", "string"),
	value("browsergym_action", "string"),
	value("browsergym_element_action", "string"),
	value("next_url", "string"),
	value("error", "string"),
	value("done", "bool"),
	value("timestamp", tsUTC),
	value("duration_ms", "int64"),
	listOfValue("review_flags", "string"),
	value("note", "string"),
	value("actor", "string"),
	value("step_label", "string"),
	value("redaction", "string"),
}

var episodesFeatures = []feature{
	value("episode_id", "string"),
	value("task_id", "string"),
	value("goal", "string"),
	classLabel("category", dataset.Categories),
	value("start_url", "string"),
	value("annotator", "string"),
	value("action_set", "string"),
	classLabel("outcome", dataset.Outcomes),
	value("num_reviews", "int64"),
	value("failure_step", "int64"),
	value("failure_type", "string"),
	value("review_reason", "string"),
	value("final_answer", "string"),
	value("final_url", "string"),
	value("status", "string"),
	value("end_reason", "string"),
	value("auto_reward", "float64"),
	value("num_steps", "int64"),
	value("started_at", tsUTC),
	value("duration_ms", "int64"),
	imageFeature("final_screenshot"),
	listOf("steps",
		value("step_index", "int64"),
		value("recorded_step", "int64"),
		value("op", "string"),
		value("x", "int64"),
		value("y", "int64"),
		value("text", "string"),
		value("dy", "int64"),
		value("url", "string"),
	),
	value("edited", "bool"),
	value("num_edits", "int64"),
	listOfValue("removed_steps", "int64"),
	listOfValue("resumed_at", "int64"),
	value("parent_episode_id", "string"),
	value("branch_step", "int64"),
	value("reference_time", "string"),
	value("timezone", "string"),
	value("locale", "string"),
	value("num_interventions", "int64"),
	value("intent_origin", "string"),
	value("exploration_id", "string"),
	value("span_from", "int64"),
	value("span_to", "int64"),
	listOfValue("key_points", "string"),
	value("replayable", "bool"),
	value("actual_task", "string"),
}

// featuresJSON renders the value of the `huggingface` key:
// {"info":{"features":{...}}}, keys in column order.
func featuresJSON(fs []feature) string {
	var b bytes.Buffer
	b.WriteString(`{"info":{"features":`)
	writeFeatureObject(&b, fs)
	b.WriteString(`}}`)
	return b.String()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func writeFeatureObject(b *bytes.Buffer, fs []feature) {
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(f.name))
		b.WriteByte(':')
		writeFeatureJSON(b, f)
	}
	b.WriteByte('}')
}

func writeFeatureJSON(b *bytes.Buffer, f feature) {
	switch f.kind {
	case kindValue:
		fmt.Fprintf(b, `{"dtype":%s,"_type":"Value"}`, jsonString(f.dtype))
	case kindClassLabel:
		b.WriteString(`{"names":[`)
		for i, n := range f.names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(n))
		}
		b.WriteString(`],"_type":"ClassLabel"}`)
	case kindImage:
		b.WriteString(`{"_type":"Image"}`)
	case kindStruct:
		writeFeatureObject(b, f.children)
	case kindList:
		b.WriteByte('[')
		writeFeatureObject(b, f.children)
		b.WriteByte(']')
	case kindListValue:
		b.WriteByte('[')
		writeFeatureJSON(b, f.children[0])
		b.WriteByte(']')
	}
}

// writeFeaturesYAML renders the `features:` list of a dataset_info entry in
// datasets' own YAML form (Features._to_yaml_list), indented by indent spaces.
func writeFeaturesYAML(b *strings.Builder, fs []feature, indent int) {
	pad := strings.Repeat(" ", indent)
	for _, f := range fs {
		fmt.Fprintf(b, "%s- name: %s\n", pad, yamlScalar(f.name))
		switch f.kind {
		case kindValue:
			fmt.Fprintf(b, "%s  dtype: %s\n", pad, yamlScalar(f.dtype))
		case kindClassLabel:
			fmt.Fprintf(b, "%s  dtype:\n%s    class_label:\n%s      names:\n", pad, pad, pad)
			for i, n := range f.names {
				fmt.Fprintf(b, "%s        '%d': %s\n", pad, i, yamlScalar(n))
			}
		case kindImage:
			fmt.Fprintf(b, "%s  dtype: image\n", pad)
		case kindStruct:
			fmt.Fprintf(b, "%s  struct:\n", pad)
			writeFeaturesYAML(b, f.children, indent+2)
		case kindList:
			fmt.Fprintf(b, "%s  list:\n", pad)
			writeFeaturesYAML(b, f.children, indent+2)
		case kindListValue:
			fmt.Fprintf(b, "%s  list: %s\n", pad, yamlScalar(f.children[0].dtype))
		}
	}
}

// yamlScalar writes s plainly when that is safe, else as a JSON string (which
// is a valid YAML double-quoted scalar).
func yamlScalar(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/' || r == ' ') {
			plain = false
			break
		}
	}
	if plain {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
			plain = false
		}
		if s[0] == ' ' || s[len(s)-1] == ' ' || s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return jsonString(s)
}

// asStrings writes a list of named strings (outcomes, categories) as strings.
func asStrings[S ~string](l []S) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}
