package openenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"waymark/engine/action"
)

// statelessTimeout bounds one stateless HTTP /reset (browser start + load).
const statelessTimeout = 2 * time.Minute

func (s *Server) routes() {
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Provider == "" {
			writeJSON(w, http.StatusOK, obj(field{"status", "healthy"}))
			return
		}
		writeJSON(w, http.StatusOK, obj(field{"status", "healthy"}, field{"sessions", s.leaseReport()}))
	})
	// Readiness, apart from liveness (/health answers as soon as the
	// server listens): true once a session started now gets a warm
	// browser, 503 before, so a client can wait instead of paying for a
	// browser's start in its first reset.
	s.mux.HandleFunc("GET /ready", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Ready == nil {
			writeJSON(w, http.StatusOK, obj(field{"ready", true}))
			return
		}
		if ok, why := s.opts.Ready(); !ok {
			writeJSON(w, http.StatusServiceUnavailable, obj(field{"ready", false}, field{"detail", why}))
			return
		}
		writeJSON(w, http.StatusOK, obj(field{"ready", true}))
	})
	s.mux.HandleFunc("GET /metadata", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, obj(
			field{"name", s.opts.Name},
			field{"description", s.opts.Name + " environment"},
			field{"readme_content", nil},
			field{"version", "1.0.0"},
			field{"author", nil},
			field{"documentation_url", nil},
		))
	})
	s.mux.HandleFunc("GET /schema", func(w http.ResponseWriter, r *http.Request) {
		act, ob := actionSchema(s.opts.ActionSet), observationSchema()
		if s.opts.BrowserGym {
			act, ob = gymActionSchema(), gymObservationSchema() // gym.go
		}
		writeJSON(w, http.StatusOK, obj(field{"action", act}, field{"observation", ob}, field{"state", stateSchema()}))
	})
	s.mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, openAPI(s.opts.ActionSet))
	})
	s.mux.HandleFunc("POST /mcp", s.httpMCP)
	s.mux.HandleFunc("POST /reset", s.httpReset)
	s.mux.HandleFunc("POST /step", s.httpStep)
	s.mux.HandleFunc("GET /state", s.httpState)
	s.mux.HandleFunc("GET /ws", s.serveWS)
	s.hub.Routes(s.mux) // engine/openenv/control
}

// httpError answers {"detail":MESSAGE,"code":CODE}: the message and code
// the WebSocket's error frame would carry, in FastAPI's detail key.
func httpError(w http.ResponseWriter, status int, code Code, msg string) {
	writeJSON(w, status, obj(field{"detail", msg}, field{"code", code}))
}

// MsgStatelessStep is what a stateless HTTP POST /step is told: it has no
// episode to step.
const MsgStatelessStep = action.MsgResetBeforeStepping + ": HTTP POST /step is stateless (each request gets a fresh environment " +
	"with no episode), so it cannot step; run episodes over the WebSocket /ws (a reset message, then step messages)"

// readAll reads a request body of at most MaxInFrame bytes; a longer one
// is answered 413 (false).
func readAll(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxInFrame+1))
	if err != nil {
		httpError(w, http.StatusBadRequest, CodeInvalidJSON, "the request body could not be read: "+err.Error())
		return nil, false
	}
	if len(raw) > MaxInFrame {
		writeJSON(w, http.StatusRequestEntityTooLarge, obj(field{"detail", tooLarge()}))
		return nil, false
	}
	return raw, true
}

// tooLarge says a body is over the limit.
func tooLarge() string {
	return fmt.Sprintf("Request body too large: at most %d bytes (%d MiB) are accepted; keep large data out of requests", MaxInFrame, MaxInFrame>>20)
}

// unprocessable is FastAPI's 422 {"detail":[…]}. FastAPI leaves out "url".
func unprocessable(w http.ResponseWriter, errs []action.FieldError, keepURL bool) {
	if !keepURL {
		for i := range errs {
			errs[i].URL = ""
		}
	}
	writeJSON(w, http.StatusUnprocessableEntity, obj(field{"detail", fieldErrors(errs)}))
}

// readBody decodes a JSON request body (empty means {}). A body that is not
// JSON gets FastAPI's json_invalid 422.
func readBody(w http.ResponseWriter, r *http.Request, emptyOK bool) (map[string]any, bool) {
	raw, ok := readAll(w, r)
	if !ok {
		return nil, false
	}
	if len(raw) == 0 && emptyOK {
		return map[string]any{}, true
	}
	if len(raw) == 0 {
		unprocessable(w, []action.FieldError{action.NewFieldError("missing", []any{"body"}, "Field required", nil, nil)}, false)
		return nil, false
	}
	v, err := decodeJSON(raw)
	if err != nil {
		unprocessable(w, []action.FieldError{action.NewFieldError("json_invalid", []any{"body", 0}, "JSON decode error", map[string]any{},
			map[string]any{"error": err.Error()})}, false)
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		unprocessable(w, []action.FieldError{action.NewFieldError("model_attributes_type", []any{"body"},
			"Input should be a valid dictionary or object to extract fields from", v, nil)}, false)
		return nil, false
	}
	return m, true
}

// httpReset is the stateless POST /reset: a fresh engine, one reset, closed.
func (s *Server) httpReset(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, true)
	if !ok {
		return
	}
	// ResetRequest: seed int ≥ 0 or null, episode_id string (≤255) or null.
	var errs []action.FieldError
	if v, ok := body["seed"]; ok && v != nil {
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		switch {
		case !isNum || err != nil:
			errs = append(errs, action.NewFieldError("int_type", []any{"body", "seed"}, "Input should be a valid integer", v, nil))
		case i < 0:
			errs = append(errs, action.NewFieldError("greater_than_equal", []any{"body", "seed"}, "Input should be greater than or equal to 0", v, map[string]any{"ge": 0}))
		}
	}
	if v, ok := body["episode_id"]; ok && v != nil {
		str, isStr := v.(string)
		switch {
		case !isStr:
			errs = append(errs, action.NewFieldError("string_type", []any{"body", "episode_id"}, "Input should be a valid string", v, nil))
		case len([]rune(str)) > 255:
			errs = append(errs, action.NewFieldError("string_too_long", []any{"body", "episode_id"}, "String should have at most 255 characters", v, map[string]any{"max_length": 255}))
		}
	}
	if len(errs) > 0 {
		unprocessable(w, errs, false)
		return
	}
	rr, err := s.parseReset(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, CodeExecution, err.Error())
		return
	}
	if !s.admitHTTP(w) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), statelessTimeout)
	defer cancel()
	// Each stateless reset starts a browser: run as many at once as there
	// may be sessions, so a burst of requests cannot exhaust the machine.
	select {
	case s.statelessSlots <- struct{}{}:
		defer func() { <-s.statelessSlots }()
	case <-ctx.Done():
		httpError(w, http.StatusServiceUnavailable, CodeCapacityReached,
			fmt.Sprintf("every stateless reset slot (%d) stayed busy for %s; try again later", s.opts.MaxSessions, statelessTimeout))
		return
	}
	eng, err := s.opts.NewEngine(ctx)
	if err != nil {
		s.opts.Logf("openenv: POST /reset: creating the engine: %v", err)
		httpError(w, http.StatusServiceUnavailable, CodeFactoryError,
			fmt.Sprintf("Environment factory '%s' failed to create instance: %v", s.opts.Name, err))
		return
	}
	defer eng.Close()
	obs, err := eng.Reset(ctx, rr.opts)
	if err != nil {
		s.opts.Logf("openenv: POST /reset: %v", err)
		httpError(w, http.StatusInternalServerError, CodeExecution, err.Error())
		return
	}
	obs.Error = s.explainPractice(rr.opts.StartURL, obs.Error)
	writeJSON(w, http.StatusOK, observationData(obs, httpReward(obs), false))
}

// httpStep is the stateless POST /step: the action is validated (422 on
// failure); a valid one is refused with 409 and "reset before stepping", as
// the WebSocket refuses a step before a reset: a stateless request has no
// episode (the reference runs it on a brand-new environment, which fails).
func (s *Server) httpStep(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, false)
	if !ok {
		return
	}
	raw, present := body["action"]
	if !present {
		unprocessable(w, []action.FieldError{action.NewFieldError("missing", []any{"body", "action"}, "Field required", body, nil)}, false)
		return
	}
	if _, isMap := raw.(map[string]any); !isMap {
		unprocessable(w, []action.FieldError{action.NewFieldError("dict_type", []any{"body", "action"}, "Input should be a valid dictionary", raw, nil)}, false)
		return
	}
	if errs := checkMetadata(raw.(map[string]any)); len(errs) > 0 {
		unprocessable(w, errs, true)
		return
	}
	if _, err := action.FromValue(raw, s.opts.ActionSet); err != nil {
		var ve *action.ValidationError
		if errors.As(err, &ve) {
			unprocessable(w, ve.Errors, true)
			return
		}
		httpError(w, http.StatusUnprocessableEntity, CodeValidation, "Invalid message: "+err.Error())
		return
	}
	httpError(w, http.StatusConflict, CodeExecution, MsgStatelessStep)
}

// httpState is GET /state of a brand-new instance.
func (s *Server) httpState(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), statelessTimeout)
	defer cancel()
	eng, err := s.opts.NewEngine(ctx)
	if err != nil {
		s.opts.Logf("openenv: GET /state: creating the engine: %v", err)
		httpError(w, http.StatusServiceUnavailable, CodeFactoryError,
			fmt.Sprintf("Environment factory '%s' failed to create instance: %v", s.opts.Name, err))
		return
	}
	st := eng.State()
	_ = eng.Close()
	writeJSON(w, http.StatusOK, stateData(st))
}

// httpMCP answers JSON-RPC over POST /mcp, always with HTTP 200. Waymark has
// no MCP tools, so tools/* answer "Environment does not support MCP".
func (s *Server) httpMCP(w http.ResponseWriter, r *http.Request) {
	raw, ok := readAll(w, r)
	if !ok {
		return
	}
	v, err := decodeJSON(raw)
	if err != nil {
		writeJSON(w, http.StatusOK, rpcError(nil, -32700, "Parse error: "+err.Error()))
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		writeJSON(w, http.StatusOK, rpcError(nil, -32600, "Invalid Request"))
		return
	}
	writeJSON(w, http.StatusOK, mcpResponse(m))
}

// mcpResponse answers one JSON-RPC request (HTTP /mcp and the WS mcp message).
func mcpResponse(req map[string]any) json.RawMessage {
	id := action.PlainJSON(req["id"])
	if req["jsonrpc"] != "2.0" {
		return rpcError(id, -32600, "Invalid Request: 'jsonrpc' must be \"2.0\"")
	}
	method, ok := req["method"].(string)
	if !ok || method == "" {
		return rpcError(id, -32600, "Invalid Request: 'method' is required")
	}
	switch method {
	case "tools/list", "tools/call":
		return rpcError(id, -32603, "Environment does not support MCP")
	}
	return rpcError(id, -32601, "Method not found: "+method)
}

func rpcError(id any, code int, msg string) json.RawMessage {
	return obj(field{"jsonrpc", "2.0"}, field{"id", id},
		field{"error", obj(field{"code", code}, field{"message", msg})})
}
