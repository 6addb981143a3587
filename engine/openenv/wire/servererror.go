package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"waymark/engine"
)

// ServerError is an error frame from a server, as a client reads it.
type ServerError struct {
	Code    Code
	Message string
	// Data holds the whole error payload (errors, active_sessions, …).
	Data map[string]any
}

func (e *ServerError) Error() string {
	msg := fmt.Sprintf("OpenEnv server error %s: %s", e.Code, e.Message)
	switch e.Code {
	case CodeCapacityReached:
		msg += " (close another session or start the server with more sessions)"
	case CodeFactoryError:
		msg += " (the server could not start a browser; see the server's log)"
	case CodeSessionError:
		msg += " (the server dropped the session; connect again)"
	}
	return msg
}

// Unwrap returns the engine error the server's words stand for:
// engine.ErrResetBeforeStepping when the server refused a step with no
// episode running (or after it ended), engine.ErrClosed when its engine is
// closed; nil for any other error. So errors.Is works on the client's errors
// as on a local engine's. The words are matched here, once, because the wire
// carries only a code and a message (the reference's).
func (e *ServerError) Unwrap() error {
	if e.Code != CodeExecution {
		return nil
	}
	for _, kind := range []error{engine.ErrResetBeforeStepping, engine.ErrClosed} {
		if e.Message == kind.Error() || strings.HasPrefix(e.Message, kind.Error()+": ") {
			return kind
		}
	}
	return nil
}

// Fatal reports whether the server closes the session after this error.
func (e *ServerError) Fatal() bool {
	switch e.Code {
	case CodeCapacityReached, CodeFactoryError, CodeSessionError:
		return true
	}
	return false
}

// DefaultRetryAfter is how long a CAPACITY_BUSY refusal asks to wait when
// it does not say (and a server's default).
const DefaultRetryAfter = 5 * time.Second

// RetryAfter is how long a CAPACITY_BUSY error asks to wait (0 for any
// other error).
func (e *ServerError) RetryAfter() time.Duration {
	if e.Code != CodeCapacityBusy {
		return 0
	}
	switch v := e.Data["retry_after"].(type) {
	case json.Number:
		if f, err := v.Float64(); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Second))
		}
	case float64:
		return time.Duration(v * float64(time.Second))
	}
	return DefaultRetryAfter
}

// ParseErrorFrame returns the ServerError of an error frame, else nil.
func ParseErrorFrame(data []byte) *ServerError {
	var m struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	// Numbers stay as written: an error may quote 1e400, beyond float64.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m.Type != "error" {
		return nil
	}
	se := &ServerError{Data: m.Data}
	code, _ := m.Data["code"].(string)
	se.Code = Code(code)
	se.Message, _ = m.Data["message"].(string)
	return se
}
