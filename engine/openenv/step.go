package openenv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/action/pyrepr"
	"waymark/engine/openenv/control"
)

// One message of the agent, from its frame to its reply: the envelope is
// checked (handle, checkEnvelope), a reset's kwargs read (reset.go) or a
// step's metadata and action checked (checkMetadata, action.FromValue),
// the agent's turn taken under shared control (agentStep;
// engine/openenv/control), the engine run, and the observation written in
// the helium wire form (observationData). The session loop that reads the
// frames and sends the replies is in session.go; the BrowserGym wire's
// step in gym.go.

// handle answers one text frame. end means the session must stop (close).
func (ss *session) handle(ctx context.Context, data []byte) (reply []byte, end bool) {
	v, err := decodeJSON(data)
	if err != nil {
		return errorFrame(CodeInvalidJSON, "Invalid JSON: "+err.Error()), false
	}
	msg, ok := v.(map[string]any)
	if !ok {
		// The Python server crashes here (SESSION_ERROR); Waymark answers
		// like any malformed message and keeps the session.
		return validationFrame([]action.FieldError{action.NewFieldError("model_type", nil,
			"Input should be a valid dictionary or instance of a message model", v, nil)}), false
	}
	rawType, present := msg["type"]
	typ, isStr := rawType.(string)
	if !present {
		typ, isStr = "", true
	}
	allowed, known := envelopeKeys[typ]
	if !isStr || !known {
		if !present {
			rawType = ""
		}
		return errorFrame(CodeUnknownType, "Unknown message type: "+pyStr(rawType)), false
	}
	if errs := checkEnvelope(typ, msg, allowed); len(errs) > 0 {
		return validationFrame(errs), false
	}
	payload, _ := msg["data"].(map[string]any)
	switch typ {
	case "close":
		return nil, true
	case "state":
		return frame("state", stateData(ss.state())), false
	case "mcp":
		return frame("mcp", mcpResponse(payload)), false
	}
	ss.counted = true
	if !ss.lease.renew(ctx) {
		return nil, false // the lease ended: the session loop says so
	}
	if typ == "reset" {
		return ss.reset(ctx, payload), false
	}
	return ss.step(ctx, payload), false
}

// checkEnvelope validates the message model: allowed keys, data a dict,
// data required for step and mcp.
func checkEnvelope(typ string, msg map[string]any, allowed []string) []action.FieldError {
	var errs []action.FieldError
	if d, ok := msg["data"]; ok && len(allowed) > 1 {
		if _, isMap := d.(map[string]any); !isMap {
			errs = append(errs, action.NewFieldError("dict_type", []any{"data"}, "Input should be a valid dictionary", d, nil))
		}
	} else if !ok && (typ == "step" || typ == "mcp") {
		errs = append(errs, action.NewFieldError("missing", []any{"data"}, "Field required", msg, nil))
	}
	var extra []string
	for k := range msg {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		errs = append(errs, action.NewFieldError("extra_forbidden", []any{k}, "Extra inputs are not permitted", msg[k], nil))
	}
	return errs
}

// envelope keys each message type allows (every message model forbids extras).
var envelopeKeys = map[string][]string{
	"reset": {"type", "data"},
	"step":  {"type", "data"},
	"state": {"type"},
	"close": {"type"},
	"mcp":   {"type", "data"},
}

// reset answers a reset message: its kwargs are read (reset.go) and the
// session admitted (admission.go); once the agent has the turn, the
// previous episode is closed, the next one started (through
// Options.WrapEpisode) and its first observation written.
func (ss *session) reset(ctx context.Context, data map[string]any) []byte {
	rr, err := ss.srv.parseReset(data)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	if busy := ss.admitWS(); busy != nil {
		return busy
	}
	done, err := ss.control().HoldReset(ctx)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	var obs engine.Observation
	reset := false
	defer func() { done(ss.agentName(rr.agent), rr.opts.StartURL, obs, reset) }()
	if ss.wrap != nil {
		if d, ok := ss.wrap.(interface{ Discard() error }); ok && ss.discarded {
			if err := d.Discard(); err != nil {
				ss.srv.opts.Logf("openenv: session %s: discarding the episode: %v", ss.info.ID, err)
			}
		}
		if err := ss.wrap.Close(); err != nil {
			ss.srv.opts.Logf("openenv: session %s: closing the previous episode: %v", ss.info.ID, err)
		}
		ss.wrap, ss.eng = nil, ss.base
	}
	ss.started, ss.done, ss.details = false, false, rr.details
	if rr.opts.EpisodeID == "" {
		rr.opts.EpisodeID = uuid.NewString()
	}
	if ss.srv.opts.WrapEpisode != nil {
		agent := rr.agent
		if agent == "" {
			agent = ss.agent
		}
		if agent == "" {
			agent = remoteHost(ss.info.RemoteAddr)
		}
		ss.epAgent = agent
		w, err := ss.srv.opts.WrapEpisode(keepOpen{ss.base}, EpisodeStart{
			Session: ss.info, Agent: agent, Reset: rr.opts, Task: rr.task, Facts: rr.facts})
		if err != nil {
			return errorFrame(CodeExecution, err.Error())
		}
		ss.wrap, ss.eng = w, w
	}
	obs, err = ss.eng.Reset(ctx, rr.opts)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	obs.Error = ss.srv.explainPractice(rr.opts.StartURL, obs.Error)
	ss.started, ss.done, reset = true, obs.Done, true
	if ss.srv.opts.BrowserGym {
		return ss.gymReset(data, rr, obs) // gym.go
	}
	return frame("observation", observationData(obs, wsReward(obs), ss.details))
}

// step answers a step message: its metadata and action are checked, the
// agent's name noted, and the action run in the agent's turn (agentStep).
func (ss *session) step(ctx context.Context, data map[string]any) []byte {
	if ss.srv.opts.BrowserGym {
		return ss.gymStep(ctx, data) // gym.go
	}
	if errs := checkMetadata(data); len(errs) > 0 {
		return validationFrame(errs)
	}
	a, err := action.FromValue(data, ss.srv.opts.ActionSet)
	if err != nil {
		var ve *action.ValidationError
		if errors.As(err, &ve) && len(ve.Errors) > 0 {
			return validationFrame(ve.Errors)
		}
		return errorFrame(CodeValidation, "Invalid message")
	}
	if !ss.started || ss.done {
		return errorFrame(CodeExecution, action.MsgResetBeforeStepping)
	}
	if name, ok := a.Metadata["agent"].(string); ok && strings.TrimSpace(name) != "" && strings.TrimSpace(name) != ss.epAgent {
		ss.agent = strings.TrimSpace(name) // names the next episodes
		ss.epAgent = ss.agent
		if ss.srv.opts.OnAgentName != nil {
			ss.srv.opts.OnAgentName(ss.eng, ss.agent)
		}
	}
	obs, held, err := ss.agentStep(ctx, a)
	if held != nil {
		return held
	}
	if err != nil {
		var ve *action.ValidationError
		if errors.As(err, &ve) && len(ve.Errors) > 0 {
			return validationFrame(ve.Errors)
		}
		return errorFrame(CodeExecution, err.Error())
	}
	ss.done = obs.Done
	if a.Op == action.Goto {
		obs.Error = ss.srv.explainPractice(a.URL, obs.Error)
	}
	return frame("observation", observationData(obs, wsReward(obs), ss.details))
}

// agentName is the name the session's agent goes by now.
func (ss *session) agentName(asked string) string {
	switch {
	case asked != "":
		return asked
	case ss.agent != "":
		return ss.agent
	}
	return remoteHost(ss.info.RemoteAddr)
}

// agentStep runs the agent's step under shared control. While a person
// holds control it waits; if the person acted since the agent's last
// observation, held is the reply: the page as it is now, the agent's
// action not performed.
func (ss *session) agentStep(ctx context.Context, a engine.Action) (obs engine.Observation, held []byte, err error) {
	turn, err := ss.control().AgentTurn(ctx, ss.epAgent)
	if err != nil {
		return obs, nil, err
	}
	defer turn.Done()
	if len(turn.Pending) > 0 && turn.Last != nil {
		ss.done = turn.Last.Done
		return obs, frame("observation", interventionData(*turn.Last, turn.Pending, ss.details)), nil
	}
	obs, err = ss.eng.Step(ctx, a)
	if err == nil {
		turn.Record(control.StepOf(a, obs))
	}
	return obs, nil, err
}

// interventionData is the observation the agent gets for a step that was
// not performed: the page after the person's last step, error
// ErrorNotExecuted, metadata.intervention listing the person's steps.
func interventionData(last control.WatchStep, steps []control.WatchStep, details bool) json.RawMessage {
	list := make([]json.RawMessage, len(steps))
	for i, st := range steps {
		list[i] = obj(field{"step", st.Step}, field{"action", st.Action}, field{"url", st.URL}, field{"error", st.Error})
	}
	md := []field{{"intervention", obj(
		field{"by", steps[len(steps)-1].Actor},
		field{"steps", list},
		field{"action_executed", false},
		field{"message", fmt.Sprintf("A person (%s) took control and made %d step(s) since your last observation; your action was not performed. This is the page now.",
			steps[len(steps)-1].Actor, len(steps))},
	)}}
	if details {
		md = append(md, field{"title", last.Title})
	}
	inner := obj(field{"screenshot", base64.StdEncoding.EncodeToString(last.Screenshot)}, field{"url", last.URL},
		field{"error", ErrorNotExecuted}, field{"metadata", obj(md...)})
	return obj(field{"observation", inner}, field{"reward", wsReward(engine.Observation{Reward: last.Reward})}, field{"done", last.Done})
}

// ErrorNotExecuted is the observation's error when the agent's action was
// not performed because a person acted since the agent's last observation.
const ErrorNotExecuted = "action_not_executed"

// state is the episode's state, for a state message.
func (ss *session) state() engine.State {
	return ss.eng.State()
}

// MaxMetadataBytes bounds an action's metadata once encoded: metadata is
// stored with every recorded step, and 64 KiB is far more than a name or a
// note needs.
const MaxMetadataBytes = 64 << 10

// checkMetadata validates an action's metadata before the action is parsed:
// every number must fit a 64-bit float (1e400 would decode as infinity and
// could not be stored), and the whole must encode to at most
// MaxMetadataBytes. A metadata that is not an object is left to the action
// parser. The errors are pydantic-shaped, located under "metadata".
func checkMetadata(act map[string]any) []action.FieldError {
	md, ok := act["metadata"].(map[string]any)
	if !ok {
		return nil
	}
	var errs []action.FieldError
	var walk func(v any, loc []any)
	walk = func(v any, loc []any) {
		if len(errs) >= 10 {
			return
		}
		switch t := v.(type) {
		case json.Number:
			if f, _ := strconv.ParseFloat(string(t), 64); math.IsInf(f, 0) {
				fe := action.NewFieldError("finite_number", append([]any(nil), loc...),
					fmt.Sprintf("Input should be a finite number: %s does not fit a 64-bit float (send it as a string)", t), nil, nil)
				fe.Input = string(t)
				errs = append(errs, fe)
			}
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(t[k], append(loc, k))
			}
		case []any:
			for i, x := range t {
				walk(x, append(loc, i))
			}
		}
	}
	walk(md, []any{"metadata"})
	if len(errs) > 0 {
		return errs
	}
	if n := len(enc(md)); n > MaxMetadataBytes {
		msg := fmt.Sprintf("metadata is %d bytes once encoded; at most %d bytes (%d KiB) are accepted: keep large data out of actions "+
			"(metadata is stored with every recorded step)", n, MaxMetadataBytes, MaxMetadataBytes>>10)
		fe := action.NewFieldError("value_error", []any{"metadata"}, "Value error, "+msg, nil, map[string]any{"error": msg})
		fe.Input = fmt.Sprintf("(an object of %d bytes, not repeated here)", n)
		errs = append(errs, fe)
	}
	return errs
}

// observationData is the helium wire form of an observation:
// {"observation":{"screenshot":…,"url":…,"error":…},"reward":…,"done":…}.
// reward is the JSON of the reward (0 over WS, 0.0 over HTTP, or the check's
// result at the end of a task-pack episode).
//
// The observation's "metadata" (a field of OpenEnv's Observation model, so
// Python clients accept it) says {"redacted":true} when the action typed
// into a password or payment field, and, when details is set (the client
// asked in its reset), carries the page "title" and the step's "timings"
// (action_ms, settle_ms, capture_ms, total_ms, settled_by); an episode
// served offline from a recording says "off_archive": N when N of the
// step's requests were not in the recording (refused, or fetched with the
// fallback). Without any it is exactly the Python server's form, with no
// metadata key.
func observationData(o engine.Observation, reward json.RawMessage, details bool) json.RawMessage {
	shot := base64.StdEncoding.EncodeToString(o.Screenshot)
	fs := []field{{"screenshot", shot}, {"url", o.URL}, {"error", o.Error}}
	var md []field
	if o.Redacted {
		md = append(md, field{"redacted", true})
	}
	if o.OffArchive > 0 {
		md = append(md, field{"off_archive", o.OffArchive})
	}
	if details {
		md = append(md, field{"title", o.Title}, field{"timings", o.Timings})
	}
	if len(md) > 0 {
		fs = append(fs, field{"metadata", obj(md...)})
	}
	inner := obj(fs...)
	return obj(field{"observation", inner}, field{"reward", reward}, field{"done", o.Done})
}

// wsReward is the reward as the Python server sends it over the socket:
// integer 0, or the automatic check's result (a float) when there is one.
func wsReward(o engine.Observation) json.RawMessage {
	if o.Reward != nil {
		return pyFloat(*o.Reward)
	}
	return json.RawMessage("0")
}

// httpReward is the reward of HTTP /reset and /step: coerced to float.
func httpReward(o engine.Observation) json.RawMessage {
	if o.Reward != nil {
		return pyFloat(*o.Reward)
	}
	return json.RawMessage("0.0")
}

// pyFloat writes a float as JSON in Python's repr (1.0, not 1; 1000000.0,
// not 1e+06): NaN and infinities, which JSON cannot hold, become null.
func pyFloat(f float64) json.RawMessage {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return json.RawMessage("null")
	}
	return json.RawMessage(pyrepr.Float(f))
}

// stateData is {"episode_id":…|null,"step_count":…}.
func stateData(s engine.State) json.RawMessage {
	var id any
	if s.EpisodeID != "" {
		id = s.EpisodeID
	}
	return obj(field{"episode_id", id}, field{"step_count", s.StepCount})
}
