package openenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// The reset kwargs: what an episode starts from (its page, task, clock)
// and what the client says of it.

// EpisodeFacts are who does an episode and what task it is, as a client
// tells them in reset(metadata={"task": {"goal", "category", "key"},
// "annotator": NAME}), so a server that records keeps the same facts as the
// client's own store.
type EpisodeFacts struct {
	Goal, Category, TaskKey, Annotator string
}

// FactsMetadata is the reset kwarg that tells f (see EpisodeFacts), for
// ClientOptions.ResetExtra.
func FactsMetadata(f EpisodeFacts) map[string]any {
	return map[string]any{"metadata": map[string]any{
		"annotator": f.Annotator,
		"task":      map[string]any{"goal": f.Goal, "category": f.Category, "key": f.TaskKey},
	}}
}

// readFacts reads EpisodeFacts from a reset's metadata; anything else in it
// is ignored, as any unknown reset field.
func readFacts(md any) EpisodeFacts {
	var f EpisodeFacts
	m, ok := md.(map[string]any)
	if !ok {
		return f
	}
	str := func(v any) string {
		s, _ := v.(string)
		return strings.TrimSpace(s)
	}
	f.Annotator = str(m["annotator"])
	if t, ok := m["task"].(map[string]any); ok {
		f.Goal, f.Category, f.TaskKey = str(t["goal"]), str(t["category"]), str(t["key"])
	}
	return f
}

// resetRequest is the reset kwargs Waymark understands; others are ignored,
// as helium's reset(**kwargs) ignores them.
type resetRequest struct {
	opts  engine.ResetOptions
	task  *Task
	agent string
	facts EpisodeFacts
	// details: reset(metadata={"details": true}) asks for the page title
	// and the step's timings in every observation's metadata.
	details bool
}

// resetMisspellings are reset kwargs agents plausibly send for the ones
// Waymark reads; unknown kwargs are otherwise ignored, as the reference
// ignores them, which would hide the mistake behind "expected an HTTP(S)
// URL" or a default task.
var resetMisspellings = map[string]string{
	"url": "start_url", "startUrl": "start_url", "startURL": "start_url", "start-url": "start_url", "starturl": "start_url",
	"taskId": "task_id", "taskID": "task_id", "task-id": "task_id",
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseReset reads reset kwargs. Errors are EXECUTION_ERROR messages, as the
// reference raises them from reset().
func (s *Server) parseReset(data map[string]any) (resetRequest, error) {
	var rr resetRequest
	for _, k := range sortedKeys(data) {
		if want, ok := resetMisspellings[k]; ok {
			if _, given := data[want]; !given {
				return rr, fmt.Errorf("unknown field %s: did you mean %s?", k, want)
			}
		}
	}
	if id, ok := data["task_id"]; ok && id != nil {
		key := fmt.Sprint(action.PlainJSON(id))
		if s.opts.Task == nil {
			return rr, fmt.Errorf("task_id %q needs the built-in tasks: start the server with 'waymark serve --task-pack'", key)
		}
		t, found := s.opts.Task(key)
		if !found {
			known := ""
			if s.opts.TaskIDs != nil {
				known = "; known tasks: " + strings.Join(s.opts.TaskIDs(), ", ")
			}
			return rr, fmt.Errorf("unknown task_id %q%s", key, known)
		}
		rr.task = &t
		rr.opts.StartURL = t.StartURL
		rr.opts.Check = t.Check
		rr.opts.ReferenceTime, rr.opts.Timezone, rr.opts.Locale = t.ReferenceTime, t.Timezone, t.Locale
	}
	if u, ok := data["start_url"]; ok && u != nil {
		str, isStr := u.(string)
		if !isStr {
			return rr, action.ErrBadURL
		}
		rr.opts.StartURL = str
	}
	if strings.TrimSpace(rr.opts.StartURL) == "" {
		rr.opts.StartURL = s.opts.DefaultStartURL
	}
	if strings.TrimSpace(rr.opts.StartURL) == "" {
		// The reference's message, and what to do.
		return rr, fmt.Errorf("%s: reset needs start_url, e.g. reset(start_url=\"https://example.com/\")", action.MsgBadURL)
	}
	if err := action.CheckURL(rr.opts.StartURL); err != nil {
		return rr, err
	}
	rr.opts.StartURL = strings.TrimSpace(rr.opts.StartURL)
	if id, ok := data["episode_id"]; ok && id != nil {
		str, isStr := id.(string)
		if !isStr {
			return rr, errors.New("episode_id must be a string")
		}
		rr.opts.EpisodeID = str
	}
	if v, ok := data["seed"]; ok && v != nil {
		seed, isNum := v.(json.Number)
		n, err := seed.Int64()
		if !isNum || err != nil || n < 0 {
			return rr, fmt.Errorf("seed must be an integer from 0 to %d (or null), got %s", int64(math.MaxInt64), clip(pyRepr(v), 80))
		}
		rr.opts.Seed = &n
	}
	// The page's clock, time zone and locale (Waymark's addition); they
	// override a task's.
	if v, ok := data["reference_time"]; ok && v != nil {
		str, _ := v.(string)
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(str))
		if err != nil {
			return rr, fmt.Errorf("reference_time %v is not an RFC 3339 time with an offset, e.g. 2024-03-15T10:30:00+01:00", action.PlainJSON(v))
		}
		rr.opts.ReferenceTime = &at
	}
	for k, dst := range map[string]*string{"timezone": &rr.opts.Timezone, "locale": &rr.opts.Locale} {
		if v, ok := data[k]; ok && v != nil {
			str, isStr := v.(string)
			if !isStr {
				return rr, fmt.Errorf("%s must be a string", k)
			}
			*dst = strings.TrimSpace(str)
		}
	}
	// The agent's name and the metadata are stored with the episode (the
	// annotator, the task's facts): bounded as a step's metadata is.
	if a, ok := data["agent"].(string); ok {
		if n := len(a); n > MaxMetadataBytes {
			return rr, fmt.Errorf("agent is %d bytes long; at most %d bytes (%d KiB) are accepted: give a short name (it is stored as the annotator of the episode)",
				n, MaxMetadataBytes, MaxMetadataBytes>>10)
		}
		rr.agent = strings.TrimSpace(a)
	}
	if md, ok := data["metadata"]; ok && md != nil {
		if n := len(enc(md)); n > MaxMetadataBytes {
			return rr, fmt.Errorf("metadata is %d bytes once encoded; at most %d bytes (%d KiB) are accepted: keep large data out of the reset (its metadata is stored with the episode)",
				n, MaxMetadataBytes, MaxMetadataBytes>>10)
		}
	}
	rr.facts = readFacts(data["metadata"])
	if md, ok := data["metadata"].(map[string]any); ok {
		rr.details, _ = md["details"].(bool)
	}
	return rr, nil
}

// clip shortens s to at most n bytes for a message, saying it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
