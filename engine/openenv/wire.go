package openenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

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
