// Package openenv speaks the OpenEnv environment protocol: a Server that serves any engine.Engine to
// unmodified OpenEnv Python clients over the /ws WebSocket (plus the HTTP
// endpoints the Python tooling probes), and a Client that is itself an
// engine.Engine driving any OpenEnv browser server.
//
// The wire form follows the Python server byte for byte where it matters:
// compact JSON, keys in model order, the helium browser environment's
// observation keys (screenshot, url, error) and the error codes and messages
// of openenv-core.
package openenv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/action/pyrepr"
	"waymark/engine/openenv/wire"
)

// Error codes of the OpenEnv WebSocket protocol (data.code of an error
// frame): engine/openenv/wire's, named here for the protocol's users.
type Code = wire.Code

// The error codes (see wire.Code for each one's meaning).
const (
	CodeInvalidJSON     = wire.CodeInvalidJSON
	CodeUnknownType     = wire.CodeUnknownType
	CodeValidation      = wire.CodeValidation
	CodeExecution       = wire.CodeExecution
	CodeCapacityReached = wire.CodeCapacityReached
	CodeFactoryError    = wire.CodeFactoryError
	CodeSessionError    = wire.CodeSessionError
	CodeCapacityBusy    = wire.CodeCapacityBusy
	CodeIdleTimeout     = wire.CodeIdleTimeout
	CodeLeaseExpired    = wire.CodeLeaseExpired
)

// Frame size limits: what the Python server accepts in (uvicorn's 16 MiB)
// and what the Python client accepts out (100 MiB).
const (
	MaxInFrame  = wire.MaxInFrame
	MaxOutFrame = wire.MaxOutFrame
)

// ServerError is an error frame from an OpenEnv server (wire.ServerError).
type ServerError = wire.ServerError

// The shared forms of engine/openenv/wire, under the short names this
// package's code uses.
type field = wire.Field

func obj(fields ...field) json.RawMessage { return wire.Obj(fields...) }
func enc(v any) []byte                    { return wire.Enc(v) }
func frame(typ string, data json.RawMessage) []byte {
	return wire.Frame(typ, data)
}
func errorFrame(code Code, message string, extra ...field) []byte {
	return wire.ErrorFrame(code, message, extra...)
}
func validationFrame(errs []action.FieldError) []byte       { return wire.ValidationFrame(errs) }
func fieldErrors(errs []action.FieldError) json.RawMessage  { return wire.FieldErrors(errs) }
func decodeJSON(data []byte) (any, error)                   { return wire.Decode(data) }
func parseErrorFrame(data []byte) *ServerError              { return wire.ParseErrorFrame(data) }
func writeJSON(w http.ResponseWriter, status int, b []byte) { wire.WriteJSON(w, status, b) }

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

// pyStr renders a decoded JSON value the way Python's str() would, for the
// "Unknown message type: …" message.
func pyStr(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		if t {
			return "True"
		}
		return "False"
	case string:
		return t
	}
	return pyRepr(v)
}

func pyRepr(v any) string {
	switch t := v.(type) {
	case nil, bool:
		return pyStr(t)
	case string:
		return pyrepr.String(t)
	case json.Number:
		return t.String()
	case float64:
		return pyrepr.Float(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = pyRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
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
