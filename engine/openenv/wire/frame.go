package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"waymark/engine/action"
)

// Code is an error frame's code (data.code of {"type":"error",…}, and
// "code" of an HTTP error's body). The first seven are openenv-core's;
// the others are Waymark's additions, which other OpenEnv clients read as
// any unknown code.
type Code string

// Error codes.
const (
	// CodeInvalidJSON: the message is not JSON (the message quotes Python's
	// decode error).
	CodeInvalidJSON Code = "INVALID_JSON"
	// CodeUnknownType: the message's type is none the socket knows.
	CodeUnknownType Code = "UNKNOWN_TYPE"
	// CodeValidation: the message or its action does not fit its model;
	// data.errors lists pydantic-shaped errors.
	CodeValidation Code = "VALIDATION_ERROR"
	// CodeExecution: the message was valid but could not be carried out
	// (a bad start URL, a step before a reset, the engine's failure).
	CodeExecution Code = "EXECUTION_ERROR"
	// CodeCapacityReached: every session slot is taken; the socket is
	// closed (data.active_sessions, data.max_sessions).
	CodeCapacityReached Code = "CAPACITY_REACHED"
	// CodeFactoryError: the server could not build the session's engine;
	// the socket is closed.
	CodeFactoryError Code = "FACTORY_ERROR"
	// CodeSessionError: the session cannot go on (a binary frame); the
	// socket is closed.
	CodeSessionError Code = "SESSION_ERROR"
	// CodeCapacityBusy: a reset refused while the machine is at its limit;
	// data.retry_after says after how many seconds to send it again, and
	// the socket stays open. Waymark's addition.
	CodeCapacityBusy Code = "CAPACITY_BUSY"
	// CodeIdleTimeout: the session sent no reset or step for the server's
	// idle bound; the socket is closed and the browser freed. Waymark's
	// addition.
	CodeIdleTimeout Code = "IDLE_TIMEOUT"
	// CodeLeaseExpired: the session's browser lease ran out (renewals
	// failed until its deadline, or the browser is gone); the server closes
	// the socket and releases the browser. Waymark's addition.
	CodeLeaseExpired Code = "LEASE_EXPIRED"
)

// Frame size limits: what the Python server accepts in (uvicorn's 16 MiB)
// and what the Python client accepts out (100 MiB).
const (
	MaxInFrame  = 16 << 20
	MaxOutFrame = 100 << 20
)

// Frame builds a server → client message {"type":…,"data":…}.
func Frame(typ string, data json.RawMessage) []byte {
	return Obj(Field{"type", typ}, Field{"data", data})
}

// ErrorFrame builds {"type":"error","data":{"message":…,"code":…,…extra}}.
func ErrorFrame(code Code, message string, extra ...Field) []byte {
	fs := append([]Field{{"message", message}, {"code", code}}, extra...)
	return Frame("error", Obj(fs...))
}

// ValidationFrame is the VALIDATION_ERROR reply with pydantic-shaped errors.
func ValidationFrame(errs []action.FieldError) []byte {
	return ErrorFrame(CodeValidation, "Invalid message", Field{"errors", FieldErrors(errs)})
}

// FieldErrors encodes pydantic error dicts in pydantic's key order.
func FieldErrors(errs []action.FieldError) json.RawMessage {
	parts := make([][]byte, len(errs))
	for i, fe := range errs {
		loc := fe.Loc
		if loc == nil {
			loc = []any{}
		}
		fs := []Field{{"type", fe.Type}, {"loc", loc}, {"msg", fe.Msg}, {"input", wireSafe(fe.Input)}}
		if len(fe.Ctx) > 0 {
			fs = append(fs, Field{"ctx", fe.Ctx})
		}
		if fe.URL != "" {
			fs = append(fs, Field{"url", fe.URL})
		}
		parts[i] = Obj(fs...)
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

// WriteJSON answers an HTTP request with a JSON body.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteAndClose sends msg and closes the socket in the background.
func WriteAndClose(c *websocket.Conn, msg []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = c.Write(ctx, websocket.MessageText, msg)
	// Close in the background: a peer that does not read would otherwise
	// hold the handler for the whole close handshake.
	go func() {
		defer cancel()
		c.CloseRead(ctx) // a reader lets the close handshake complete
		_ = c.Close(websocket.StatusNormalClosure, "")
	}()
}

// CloseConn closes politely, with the close frame's reason why, but never
// waits long for a silent peer.
func CloseConn(c *websocket.Conn, code websocket.StatusCode, why string) {
	done := make(chan struct{})
	go func() {
		_ = c.Close(code, why)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = c.CloseNow()
	}
}
