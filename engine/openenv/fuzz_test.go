package openenv

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"waymark/engine"
	"waymark/engine/action"
)

var (
	fuzzShotOnce sync.Once
	fuzzShot     []byte
)

// fuzzSession is a session on a sketch engine, reset to a page, as the
// server holds it between messages (no socket: handle is what decodes and
// answers one frame).
func fuzzSession(t testing.TB) *session {
	fuzzShotOnce.Do(func() { fuzzShot = newSketch().shot })
	srv, err := NewServer(Options{NewEngine: func(context.Context) (engine.Engine, error) {
		return &sketchEngine{maxSteps: 20, shot: fuzzShot}, nil
	}, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := srv.opts.NewEngine(context.Background())
	ss := &session{srv: srv, info: SessionInfo{ID: "fuzz", RemoteAddr: "127.0.0.1:1"}, base: eng, eng: eng}
	if reply, _ := ss.handle(context.Background(), []byte(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)); !bytes.HasPrefix(reply, []byte(`{"type":"observation"`)) {
		t.Fatalf("reset: %.200s", reply)
	}
	return ss
}

var knownCodes = map[Code]bool{CodeInvalidJSON: true, CodeUnknownType: true, CodeValidation: true, CodeExecution: true}

// FuzzDecodeMessage feeds any frame to the message decoder and handler of a
// live session. Whatever the frame, the server must not panic, must answer
// every message but close with exactly one JSON object that a strict JSON
// decoder (Go's, a Python client's) reads, of a known type; an error reply
// has a known recoverable code and a message; the decoder refuses exactly
// what is not JSON; and the session still answers state afterwards.
func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"type":"step","data":{"op":"click","x":1,"y":2,"metadata":{"agent":"a"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss := fuzzSession(t) // each input on a fresh episode
		defer ss.srv.Close()
		_, decErr := decodeJSON(data)
		// JSON text is UTF-8: invalid bytes are refused, not read as U+FFFD.
		if (decErr == nil) != (json.Valid(data) && utf8.Valid(data)) {
			t.Fatalf("decodeJSON error %v but json.Valid %v, utf8.Valid %v", decErr, json.Valid(data), utf8.Valid(data))
		}
		reply, end := ss.handle(context.Background(), data)
		if end {
			if reply != nil {
				t.Fatalf("close answered %.200s", reply)
			}
			return
		}
		checkReply(t, data, reply)
		// What the decoder lets through, the engine can run: the sketch
		// engine re-validates each action as the browser engine does, so a
		// step that fails to execute for any other reason than the episode
		// state slipped past validation (as 1e400 in metadata once did).
		if code, msg := errCode(t, reply); code == CodeExecution && bytes.Contains(data, []byte(`"step"`)) && msg != action.MsgResetBeforeStepping {
			t.Fatalf("step %q passed validation, then failed: %s", data, msg)
		}
		if decErr != nil {
			if code, msg := errCode(t, reply); code != CodeInvalidJSON || !strings.HasPrefix(msg, "Invalid JSON: ") {
				t.Fatalf("not JSON, answered %s %q", code, msg)
			}
		}
		state, _ := ss.handle(context.Background(), []byte(`{"type":"state"}`))
		if !bytes.HasPrefix(state, []byte(`{"type":"state","data":{`)) {
			t.Fatalf("state after %q: %.200s", data, state)
		}
	})
}

func checkReply(t *testing.T, sent, reply []byte) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(reply, &v); err != nil {
		t.Fatalf("reply to %q does not decode: %v: %.300s", sent, err, reply)
	}
	switch v["type"] {
	case "observation", "state", "mcp":
	case "error":
		d, _ := v["data"].(map[string]any)
		c, _ := d["code"].(string)
		code := Code(c)
		msg, _ := d["message"].(string)
		if !knownCodes[code] || msg == "" {
			t.Fatalf("reply to %q: error %q %q", sent, code, msg)
		}
		// Errors echo their inputs, never much more.
		if len(reply) > 8*len(sent)+4096 {
			t.Fatalf("error reply of %d bytes to %d bytes sent: %.300s", len(reply), len(sent), reply)
		}
	default:
		t.Fatalf("reply to %q has type %v", sent, v["type"])
	}
}

// FuzzHTTPBody feeds any body to the stateless POST /reset and /step (the
// same decoder, over HTTP): the server must not panic, answer 200, 422 or
// a clear JSON refusal (400, 409, 413), and every answer must decode strictly.
func FuzzHTTPBody(f *testing.F) {
	f.Add([]byte(`{"action":{"op":"scroll","dy":-5}}`), true) // more seeds in testdata/fuzz/FuzzHTTPBody
	srv, err := NewServer(Options{NewEngine: func(context.Context) (engine.Engine, error) {
		fuzzShotOnce.Do(func() { fuzzShot = newSketch().shot })
		return &sketchEngine{maxSteps: 20, shot: fuzzShot}, nil
	}, Logf: func(string, ...any) {}})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	f.Fuzz(func(t *testing.T, body []byte, step bool) {
		path := "/reset"
		if step {
			path = "/step"
		}
		r := httptest.NewRequest("POST", path, bytes.NewReader(body))
		r.Host = "127.0.0.1:8000"
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		switch w.Code {
		case 200, 400, 409, 413, 422:
			var v map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
				t.Fatalf("POST %s %q: %d body does not decode: %v: %.300s", path, body, w.Code, err, w.Body.Bytes())
			}
		default:
			t.Fatalf("POST %s %q: status %d %.300s", path, body, w.Code, w.Body.Bytes())
		}
	})
}
