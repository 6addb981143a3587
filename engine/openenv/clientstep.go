package openenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
)

// The client's episode: a reset and steps sent, and their observations read
// back leniently (any OpenEnv browser server's, not only Waymark's).

// wireObservation is the lenient reading of an observation reply: unknown
// keys are ignored, reward may be a number, a bool or null.
type wireObservation struct {
	Observation struct {
		Screenshot string      `json:"screenshot"`
		URL        string      `json:"url"`
		Error      action.Code `json:"error"`
		Done       *bool       `json:"done"`
		// Metadata may say {"redacted":true} and carry "title" and
		// "timings" (see observationData).
		Metadata json.RawMessage `json:"metadata"`
	} `json:"observation"`
	Reward json.RawMessage `json:"reward"`
	Done   bool            `json:"done"`
}

func (c *Client) observation(data json.RawMessage) (engine.Observation, error) {
	var w wireObservation
	if err := json.Unmarshal(data, &w); err != nil {
		return engine.Observation{}, fmt.Errorf("the OpenEnv server sent an observation Waymark cannot read: %v", err)
	}
	o := engine.Observation{URL: w.Observation.URL, Error: w.Observation.Error, Done: w.Done}
	if w.Observation.Done != nil && *w.Observation.Done {
		o.Done = true
	}
	var md struct {
		Redacted bool            `json:"redacted"`
		Title    *string         `json:"title"`
		Timings  *action.Timings `json:"timings"`
	}
	if len(w.Observation.Metadata) > 0 && json.Unmarshal(w.Observation.Metadata, &md) == nil {
		o.Redacted = md.Redacted
		if md.Title != nil {
			o.Title = *md.Title
		}
		if md.Timings != nil {
			o.Timings = *md.Timings
		}
	}
	if s := w.Observation.Screenshot; s != "" {
		s = s[strings.IndexByte(s, ',')+1:] // tolerate a data: prefix
		png, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return o, fmt.Errorf("the OpenEnv server sent a screenshot that is not base64: %v", err)
		}
		o.Screenshot = png
	}
	o.Reward = lenientReward(w.Reward)
	return o, nil
}

// lenientReward reads a number, a bool (1/0) or null. Over the WebSocket the
// integer 0 is the server's "no reward" (a reward it computed is a float,
// 0.0 included: Waymark's server and the Python reference both write it
// so), so it reads as none: a task without a check must not look failed.
func lenientReward(raw json.RawMessage) *float64 {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	if string(bytes.TrimSpace(raw)) == "0" {
		return nil
	}
	switch t := v.(type) {
	case float64:
		return &t
	case bool:
		f := 0.0
		if t {
			f = 1
		}
		return &f
	}
	return nil
}

// Reset starts an episode on the server (kwargs start_url and episode_id,
// seed when given, plus ResetExtra). opts.Check is not sent: the remote
// environment decides its own reward.
func (c *Client) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	return c.ResetWith(ctx, opts, nil)
}

// ResetWith is Reset with extra kwargs (e.g. task_id).
func (c *Client) ResetWith(ctx context.Context, opts engine.ResetOptions, extra map[string]any) (engine.Observation, error) {
	start := time.Now()
	id := opts.EpisodeID
	if id == "" {
		id = uuid.NewString()
	}
	fs := []field{}
	if opts.StartURL != "" {
		fs = append(fs, field{"start_url", opts.StartURL})
	}
	fs = append(fs, field{"episode_id", id})
	if opts.Seed != nil {
		fs = append(fs, field{"seed", *opts.Seed})
	}
	if opts.ReferenceTime != nil {
		fs = append(fs, field{"reference_time", opts.ReferenceTime.Format(time.RFC3339Nano)})
	}
	if opts.Timezone != "" {
		fs = append(fs, field{"timezone", opts.Timezone})
	}
	if opts.Locale != "" {
		fs = append(fs, field{"locale", opts.Locale})
	}
	kwargs := map[string]any{}
	for _, kv := range []map[string]any{c.opts.ResetExtra, extra} {
		for k, v := range kv {
			kwargs[k] = v
		}
	}
	if c.opts.StepDetails {
		md := map[string]any{}
		if m, ok := kwargs["metadata"].(map[string]any); ok {
			for k, v := range m {
				md[k] = v
			}
		}
		md["details"] = true
		kwargs["metadata"] = md
	}
	for _, k := range slices.Sorted(maps.Keys(kwargs)) {
		fs = append(fs, field{k, kwargs[k]})
	}
	data, _, err := c.request(ctx, obj(field{"type", "reset"}, field{"data", obj(fs...)}), c.opts.ResetTimeout)
	if err != nil {
		return engine.Observation{}, err
	}
	o, err := c.observation(data)
	if err != nil {
		return o, err
	}
	o.Step = 0
	o.Error = practiceHint(opts.StartURL, o.Error)
	if o.Timings.TotalMS == 0 { // the server did not say (no details)
		o.Timings.TotalMS = time.Since(start).Milliseconds()
	}
	c.mu.Lock()
	c.state = engine.State{EpisodeID: id, Done: o.Done, MaxSteps: c.opts.MaxSteps}
	c.mu.Unlock()
	if o.Done {
		o.EndReason = endReason(o, action.Action{}, 0, c.opts.MaxSteps)
	}
	return o, nil
}

// Step validates the action locally (the reference server drops the session
// on some invalid actions), sends it and returns the observation.
func (c *Client) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	start := time.Now()
	if err := a.Validate(c.opts.ActionSet); err != nil {
		return engine.Observation{}, err
	}
	c.mu.Lock()
	st := c.state
	c.mu.Unlock()
	if st.EpisodeID == "" || st.Done {
		return engine.Observation{}, engine.ErrResetBeforeStepping
	}
	body, err := json.Marshal(a)
	if err != nil {
		return engine.Observation{}, err
	}
	data, _, err := c.request(ctx, obj(field{"type", "step"}, field{"data", json.RawMessage(body)}), c.opts.MessageTimeout)
	if err != nil {
		return engine.Observation{}, err
	}
	o, err := c.observation(data)
	if err != nil {
		return o, err
	}
	c.mu.Lock()
	if n := interventionSteps(data); n > 0 {
		c.state.StepCount += n // a person's steps; this action was not performed
	} else {
		c.state.StepCount++
	}
	o.Step = c.state.StepCount
	c.state.Done = o.Done
	c.mu.Unlock()
	if a.Op == action.Finish {
		o.Answer = a.Text
	}
	if o.Done {
		o.EndReason = endReason(o, a, o.Step, c.opts.MaxSteps)
	}
	if o.Timings.TotalMS == 0 { // the server did not say (no details)
		o.Timings.TotalMS = time.Since(start).Milliseconds()
	}
	return o, nil
}

// endReason infers why a remote episode ended.
func endReason(o engine.Observation, a action.Action, step, maxSteps int) action.EndReason {
	if r, ok := o.Error.Ends(); ok && (r == action.EndBotVerification || a.Op != action.Finish) {
		return r
	}
	if a.Op != action.Finish && step >= maxSteps {
		return action.EndStepLimit
	}
	return action.EndFinished
}

// RemoteState asks the server for its state (episode_id, step_count and
// any extra keys it sends).
func (c *Client) RemoteState(ctx context.Context) (map[string]any, error) {
	data, _, err := c.request(ctx, []byte(`{"type":"state"}`), c.opts.MessageTimeout)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("the OpenEnv server sent a state Waymark cannot read: %v", err)
	}
	return m, nil
}

// State is the client's own record of the episode.
func (c *Client) State() engine.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Info describes the remote engine.
func (c *Client) Info() engine.Info {
	return engine.Info{Kind: "openenv", Server: c.base, ActionSet: c.opts.ActionSet, MaxSteps: c.opts.MaxSteps}
}

// interventionSteps is the number of steps a person made in the
// observation's metadata.intervention (0 when there is none): the step
// answered so was not performed.
func interventionSteps(data json.RawMessage) int {
	var w struct {
		Observation struct {
			Metadata struct {
				Intervention *struct {
					Steps []json.RawMessage `json:"steps"`
				} `json:"intervention"`
			} `json:"metadata"`
		} `json:"observation"`
	}
	if json.Unmarshal(data, &w) != nil || w.Observation.Metadata.Intervention == nil {
		return 0
	}
	return len(w.Observation.Metadata.Intervention.Steps)
}
