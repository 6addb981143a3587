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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/action/pyrepr"
)

// Error codes of the OpenEnv WebSocket protocol (data.code of an error frame).
const (
	CodeInvalidJSON     = "INVALID_JSON"
	CodeUnknownType     = "UNKNOWN_TYPE"
	CodeValidation      = "VALIDATION_ERROR"
	CodeExecution       = "EXECUTION_ERROR"
	CodeCapacityReached = "CAPACITY_REACHED"
	CodeFactoryError    = "FACTORY_ERROR"
	CodeSessionError    = "SESSION_ERROR"
	// CodeLeaseExpired: the session's browser lease ran out (renewals
	// failed until its deadline, or the browser is gone); the server closes
	// the socket and releases the browser. Waymark's addition.
	CodeLeaseExpired = "LEASE_EXPIRED"
)

// field is one key of an ordered JSON object.
type field struct {
	key string
	val any // json.RawMessage for pre-encoded values
}

// obj encodes fields as a compact JSON object in the given order. Values are
// encoded without HTML escaping, as Python's json module does.
func obj(fields ...field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(enc(f.key))
		b.WriteByte(':')
		b.Write(enc(f.val))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// enc encodes v compactly without HTML escaping.
func enc(v any) []byte {
	if r, ok := v.(json.RawMessage); ok {
		return r
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		// Only unsupported values (NaN, channels) land here; never on our data.
		return []byte("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// frame builds a server → client message {"type":…,"data":…}.
func frame(typ string, data json.RawMessage) []byte {
	return obj(field{"type", typ}, field{"data", data})
}

// errorFrame builds {"type":"error","data":{"message":…,"code":…,…extra}}.
func errorFrame(code, message string, extra ...field) []byte {
	fs := append([]field{{"message", message}, {"code", code}}, extra...)
	return frame("error", obj(fs...))
}

// validationFrame is the VALIDATION_ERROR reply with pydantic-shaped errors.
func validationFrame(errs []action.FieldError) []byte {
	return errorFrame(CodeValidation, "Invalid message", field{"errors", fieldErrors(errs)})
}

// fieldErrors encodes pydantic error dicts in pydantic's key order.
func fieldErrors(errs []action.FieldError) json.RawMessage {
	parts := make([][]byte, len(errs))
	for i, fe := range errs {
		loc := fe.Loc
		if loc == nil {
			loc = []any{}
		}
		fs := []field{{"type", fe.Type}, {"loc", loc}, {"msg", fe.Msg}, {"input", wireSafe(fe.Input)}}
		if len(fe.Ctx) > 0 {
			fs = append(fs, field{"ctx", fe.Ctx})
		}
		if fe.URL != "" {
			fs = append(fs, field{"url", fe.URL})
		}
		parts[i] = obj(fs...)
	}
	return json.RawMessage("[" + string(bytes.Join(parts, []byte(","))) + "]")
}

// wireSafe makes an echoed input readable by every JSON decoder: a number
// beyond float64 (1e400, which Python would send as the invalid Infinity and
// Go's decoder refuses) is echoed as the string it was written as.
func wireSafe(v any) any {
	switch t := v.(type) {
	case json.Number:
		if _, err := t.Float64(); err != nil {
			return string(t)
		}
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = wireSafe(x)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = wireSafe(x)
		}
		return out
	}
	return v
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

// decodeJSON decodes one JSON value with numbers kept as json.Number, and
// explains a syntax error the way Python's json module does ("Expecting
// value: line 1 column 1 (char 0)"), since OpenEnv clients may show it.
func decodeJSON(data []byte) (any, error) {
	// encoding/json would turn invalid UTF-8 into U+FFFD, and a type
	// action would then type characters nobody sent.
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		return nil, pyJSONError(fmt.Sprintf("the message is not valid UTF-8 (byte 0x%02x)", data[off]), data, off)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		// Anything but whitespace after the value is "Extra data".
		off := int(dec.InputOffset())
		rest := data[off:]
		trimmed := bytes.TrimLeft(rest, " \t\r\n")
		if len(trimmed) == 0 {
			return v, nil
		}
		return nil, pyJSONError("Extra data", data, off+len(rest)-len(trimmed))
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		msg := se.Error()
		pos := int(se.Offset) - 1
		if pos < 0 {
			pos = 0
		}
		switch {
		case strings.Contains(msg, "looking for beginning of object key"):
			return nil, pyJSONError("Expecting property name enclosed in double quotes", data, pos)
		case strings.Contains(msg, "after object key:value pair"), strings.Contains(msg, "after array element"):
			return nil, pyJSONError("Expecting ',' delimiter", data, pos)
		case strings.Contains(msg, "after object key"):
			return nil, pyJSONError("Expecting ':' delimiter", data, pos)
		case strings.Contains(msg, "after top-level value"):
			return nil, pyJSONError("Extra data", data, pos)
		case strings.Contains(msg, "exceeded max depth"):
			return nil, pyJSONError(fmt.Sprintf("JSON nested too deeply (more than %d levels of arrays and objects)", maxJSONDepth), data, pos)
		case strings.Contains(msg, "in string"):
			return nil, pyJSONError("Invalid control character at", data, pos)
		}
		return nil, pyJSONError("Expecting value", data, pos)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, pyJSONError("Expecting value", data, len(data))
	}
	return nil, pyJSONError("Expecting value", data, 0)
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// pyJSONError formats "<msg>: line L column C (char N)" with N counted in
// characters, as Python does.
func pyJSONError(msg string, data []byte, byteOff int) error {
	if byteOff > len(data) {
		byteOff = len(data)
	}
	prefix := data[:byteOff]
	char := utf8.RuneCount(prefix)
	line := bytes.Count(prefix, []byte("\n")) + 1
	col := char + 1
	if i := bytes.LastIndexByte(prefix, '\n'); i >= 0 {
		col = utf8.RuneCount(prefix[i+1:]) + 1
	}
	return fmt.Errorf("%s: line %d column %d (char %d)", msg, line, col, char)
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
