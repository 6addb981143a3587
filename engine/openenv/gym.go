package openenv

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/gym"
	"waymark/engine/openenv/control"
)

// The BrowserGym wire (Options.BrowserGym): a step's data is
// {"action": "<BrowserGym action string>", "metadata": {...}}, and every
// observation (of the reset and of each step) is a BrowserGym observation
// (gym.Obs: BrowserGym's keys, then terminated, truncated, reward and
// info); the frame's reward is the observation's and done is terminated or
// truncated. Reset takes two more kwargs: goal (the task's goal, for the
// chat and goal keys; a task_id's goal when not given) and multiaction
// (true, the default as in BrowserGym's HighLevelActionSet: an action
// string may hold several calls; false: one call; Options.SingleAction
// makes false the default).

// MaxGymAction is the longest action string a step takes.
const MaxGymAction = 1 << 20

// gymReset starts the session's BrowserGym episode over the engine that
// answered the reset with obs.
func (ss *session) gymReset(data map[string]any, rr resetRequest, obs engine.Observation) []byte {
	goal, _ := data["goal"].(string)
	if goal == "" && rr.task != nil {
		goal = rr.task.Goal
	}
	multi := !ss.srv.opts.SingleAction // BrowserGym's default: multiaction on
	if m, ok := data["multiaction"].(bool); ok {
		multi = m
	}
	cfg := gym.Config{Goal: goal, Multi: multi, Set: ss.srv.opts.ActionSet}
	if el, ok := engine.As[gym.Elements](ss.base); ok {
		cfg.Elements = el
	}
	if o, ok := engine.As[engine.Observer](ss.base); ok {
		cfg.Observer = o
	}
	ss.gym = gym.New(ss.eng, cfg)
	line, err := ss.gym.First(obs)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	return gymFrame(line)
}

// gymStep performs one BrowserGym action string.
func (ss *session) gymStep(ctx context.Context, data map[string]any) []byte {
	if errs := checkMetadata(data); len(errs) > 0 {
		return validationFrame(errs)
	}
	var errs []action.FieldError
	line, isStr := data["action"].(string)
	switch v, present := data["action"]; {
	case !present:
		errs = append(errs, action.NewFieldError("missing", []any{"action"}, "Field required: send the BrowserGym action string, e.g. {\"action\": \"click('a51')\"}", data, nil))
	case !isStr:
		errs = append(errs, action.NewFieldError("string_type", []any{"action"}, "Input should be a valid string: a BrowserGym action string such as \"click('a51')\"", v, nil))
	case !utf8.ValidString(line):
		errs = append(errs, action.NewFieldError("string_unicode", []any{"action"}, "Input should be a valid string: send it as UTF-8", strings.ToValidUTF8(line, "\uFFFD"), nil))
	case len(line) > MaxGymAction:
		errs = append(errs, action.NewFieldError("string_too_long", []any{"action"}, fmt.Sprintf("String should have at most %d bytes", MaxGymAction), nil, map[string]any{"max_length": MaxGymAction}))
	}
	for _, k := range sortedKeys(data) {
		if k != "action" && k != "metadata" {
			errs = append(errs, action.NewFieldError("extra_forbidden", []any{k}, "Extra inputs are not permitted (with serve --obs browsergym a step is {\"action\": \"<BrowserGym action string>\"})", data[k], nil))
		}
	}
	if len(errs) > 0 {
		return validationFrame(errs)
	}
	if !ss.started || ss.done || ss.gym == nil {
		return errorFrame(CodeExecution, action.MsgResetBeforeStepping)
	}
	if md, ok := data["metadata"].(map[string]any); ok {
		if name, ok := md["agent"].(string); ok && strings.TrimSpace(name) != "" && strings.TrimSpace(name) != ss.epAgent {
			ss.agent = strings.TrimSpace(name)
			ss.epAgent = ss.agent
			if ss.srv.opts.OnAgentName != nil {
				ss.srv.opts.OnAgentName(ss.eng, ss.agent)
			}
		}
	}
	// Shared control (engine/openenv/control): the step waits while a
	// person holds control; if the person acted since the agent's last
	// observation, the action is not performed and the observation says so.
	turn, err := ss.control().AgentTurn(ctx, ss.epAgent)
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	defer turn.Done()
	pending := turn.Pending
	var obs gym.Obs
	if len(pending) > 0 {
		by := pending[len(pending)-1].Actor
		obs, err = ss.gym.NotPerformed(ctx, line, fmt.Sprintf("%s: a person (%s) took control and made %d step(s) since your last observation; your action was not performed. This is the page now.",
			ErrorNotExecuted, by, len(pending)))
	} else {
		obs, err = ss.gym.Step(ctx, line)
	}
	if err != nil {
		return errorFrame(CodeExecution, err.Error())
	}
	if len(pending) == 0 {
		shot, _ := base64.StdEncoding.DecodeString(obs.Screenshot)
		// As the agent's observation says it (a secret's text redacted).
		aj, _ := json.Marshal(map[string]string{"browsergym": obs.LastAction})
		turn.Record(control.WatchStep{Step: obs.Info.EngineStep, Action: aj, URL: obs.URL,
			Title: obs.Info.Title, Error: obs.LastActionError, Done: obs.Terminated || obs.Truncated, Screenshot: shot})
	}
	ss.done = obs.Terminated || obs.Truncated
	return gymFrame(obs)
}

// gymFrame is the observation frame of a BrowserGym observation.
func gymFrame(o gym.Obs) []byte {
	b, err := json.Marshal(o)
	if err != nil {
		return errorFrame(CodeExecution, "the observation could not be encoded: "+err.Error())
	}
	return frame("observation", obj(field{"observation", json.RawMessage(b)}, field{"reward", pyFloat(o.Reward)}, field{"done", o.Terminated || o.Truncated}))
}

// gymActionSchema is the schema of a step's data on the BrowserGym wire.
func gymActionSchema() json.RawMessage {
	return obj(
		field{"additionalProperties", false},
		field{"properties", obj(
			field{"metadata", metadataProp("action")},
			field{"action", obj(field{"description", "A BrowserGym action string, e.g. click('a51') or fill('a12', 'red shoes')"},
				field{"maxLength", MaxGymAction}, field{"title", "Action"}, field{"type", "string"})},
		)},
		field{"required", []string{"action"}},
		field{"title", "BrowserGymAction"},
		field{"type", "object"},
	)
}

// gymObservationSchema is the schema of a BrowserGym observation (its keys;
// their values as BrowserGym's, arrays for its numpy arrays).
func gymObservationSchema() json.RawMessage {
	anything := obj()
	str := obj(field{"type", "string"})
	arr := obj(field{"type", "array"})
	boolean := obj(field{"type", "boolean"})
	return obj(
		field{"additionalProperties", false},
		field{"properties", obj(
			field{"chat_messages", arr}, field{"goal", str}, field{"goal_object", arr},
			field{"open_pages_urls", arr}, field{"open_pages_titles", arr}, field{"active_page_index", arr},
			field{"url", str}, field{"screenshot", obj(field{"description", "PNG, base64"}, field{"type", "string"})},
			field{"dom_object", anything}, field{"axtree_object", anything}, field{"extra_element_properties", obj(field{"type", "object"})},
			field{"focused_element_bid", str}, field{"last_action", str}, field{"last_action_error", str},
			field{"elapsed_time", arr}, field{"terminated", boolean}, field{"truncated", boolean},
			field{"reward", obj(field{"type", "number"})}, field{"info", obj(field{"type", "object"})},
		)},
		field{"title", "BrowserGymObservation"},
		field{"type", "object"},
	)
}
