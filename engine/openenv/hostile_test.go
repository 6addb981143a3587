package openenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// hostileWS is the table of hostile WebSocket messages and what the server
// answers: the code and a part of the message (the message of an error
// frame, or of its first pydantic error). The session survives every one.
var hostileWS = []struct {
	name, send string
	code       Code
	msg        string
	loc        string // the first error's loc, joined by "."
}{
	{"metadata over 64 KiB", `{"type":"step","data":{"op":"wait","metadata":{"blob":"` + strings.Repeat("a", 70<<10) + `"}}}`,
		CodeValidation, "metadata is 71691 bytes once encoded; at most 65536 bytes (64 KiB) are accepted", "metadata"},
	{"metadata of 15 MiB", `{"type":"step","data":{"op":"wait","metadata":{"blob":"` + strings.Repeat("a", 15<<20) + `"}}}`,
		CodeValidation, "at most 65536 bytes (64 KiB) are accepted", "metadata"},
	{"metadata number overflows", `{"type":"step","data":{"op":"wait","metadata":{"x":1e400}}}`,
		CodeValidation, "Input should be a finite number: 1e400 does not fit a 64-bit float (send it as a string)", "metadata.x"},
	{"nested metadata number overflows", `{"type":"step","data":{"op":"wait","metadata":{"a":[1,{"b":-1E999}]}}}`,
		CodeValidation, "Input should be a finite number: -1E999", "metadata.a.1.b"},
	{"metadata not an object", `{"type":"step","data":{"op":"wait","metadata":[1]}}`, CodeValidation, "Input should be a valid dictionary", "metadata"},
	{"dy overflows", `{"type":"step","data":{"op":"scroll","dy":1e400}}`, CodeValidation, "Input should be a finite number", "dy"},
	{"extra action key with an overflowing number", `{"type":"step","data":{"op":"wait","zz":1e400}}`, CodeValidation, "Extra inputs are not permitted", "zz"},
	{"extra envelope key with an overflowing number", `{"type":"state","zz":1e400}`, CodeValidation, "Extra inputs are not permitted", "zz"},
	{"reset with url", `{"type":"reset","data":{"url":"https://example.com/"}}`, CodeExecution, "unknown field url: did you mean start_url?", ""},
	{"reset with startUrl", `{"type":"reset","data":{"startUrl":"https://example.com/"}}`, CodeExecution, "unknown field startUrl: did you mean start_url?", ""},
	{"reset with taskId", `{"type":"reset","data":{"taskId":"shop-1"}}`, CodeExecution, "unknown field taskId: did you mean task_id?", ""},
	{"reset with no start_url", `{"type":"reset","data":{}}`, CodeExecution, "start_url", ""},
	{"not an object", `[1,2]`, CodeValidation, "Input should be a valid dictionary", ""},
	{"unknown type", `{"type":"jump"}`, CodeUnknownType, "Unknown message type: jump", ""},
	{"deeply nested", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), CodeInvalidJSON, "Invalid JSON", ""},
}

// The Go client reads an error frame that quotes a number beyond float64
// (from a server that echoes it as written).
func TestClientReadsErrorQuotingHugeNumber(t *testing.T) {
	se := parseErrorFrame([]byte(`{"type":"error","data":{"message":"Invalid message","code":"VALIDATION_ERROR","errors":[{"type":"x","loc":["dy"],"msg":"m","input":1e400}]}}`))
	if se == nil || se.Code != CodeValidation {
		t.Fatalf("error frame not recognised: %+v", se)
	}
}

func TestHostileWebSocketInputs(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	r := dialRaw(t, hs)
	if code, msg := errCode(t, r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)); code != "" {
		t.Fatalf("reset: %s %s", code, msg)
	}
	for _, c := range hostileWS {
		t.Run(c.name, func(t *testing.T) {
			reply := r.call(c.send)
			// Every reply decodes as plain JSON, as a Go or Python client reads it.
			var plain any
			if err := json.Unmarshal(reply, &plain); err != nil {
				t.Fatalf("the reply does not decode: %v: %.300s", err, reply)
			}
			if len(reply) > 4096 && strings.HasPrefix(string(reply), `{"type":"error"`) {
				t.Errorf("the reply is %d bytes: it should not echo a large input", len(reply))
			}
			code, msg := errCode(t, reply)
			var frame struct {
				Data struct {
					Errors []struct {
						Loc []any
						Msg string
					}
				}
			}
			_ = json.Unmarshal(reply, &frame)
			if len(frame.Data.Errors) > 0 {
				msg = frame.Data.Errors[0].Msg
				var loc []string
				for _, l := range frame.Data.Errors[0].Loc {
					loc = append(loc, fmt.Sprint(l))
				}
				if got := strings.Join(loc, "."); c.loc != "" && got != c.loc {
					t.Errorf("loc %s, want %s", got, c.loc)
				}
			}
			if code != c.code || !strings.Contains(msg, c.msg) {
				t.Errorf("got %s %q\nwant %s …%s…\n%.300s", code, msg, c.code, c.msg, reply)
			}
		})
	}
	// The session is still there, with its episode.
	if code, msg := errCode(t, r.call(`{"type":"step","data":{"op":"wait","metadata":{"agent":"x","n":1.5}}}`)); code != "" {
		t.Errorf("a valid step after the hostile inputs: %s %s", code, msg)
	}
}

// The same rules on the stateless HTTP /step and /reset.
func TestHostileHTTPInputs(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	for _, c := range []struct{ path, body, want string }{
		{"/step", `{"action":{"op":"wait","metadata":{"x":1e400}}}`, `"type":"finite_number","loc":["metadata","x"]`},
		{"/step", `{"action":{"op":"wait","metadata":{"b":"` + strings.Repeat("a", 70<<10) + `"}}}`, `at most 65536 bytes (64 KiB) are accepted`},
		// The WebSocket's message, where the reference answers a bare 500.
		{"/reset", `{"url":"https://example.com/"}`, `{"detail":"unknown field url: did you mean start_url?","code":"EXECUTION_ERROR"}`},
	} {
		status, body := request(t, hs, "POST", c.path, "", "", "application/json", c.body)
		if (status != http.StatusUnprocessableEntity && status != http.StatusBadRequest) || !strings.Contains(body, c.want) {
			t.Errorf("POST %s %.80s: %d %.300s\nwant …%s…", c.path, c.body, status, body, c.want)
		}
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d engines started for refused requests", n)
	}
}

// The stateless HTTP endpoints answer what the client got wrong as the
// WebSocket does: a JSON body with the same message and code, and a 4xx
// status, never a bare 500.
func TestHTTPRefusalsAreClearJSON(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	ws := dialRaw(t, hs)
	for _, c := range []struct {
		name, path, body, wsSend string
		status                   int
		want                     string // a part of detail
	}{
		{"step before a reset", "/step", `{"action":{"op":"wait"}}`, `{"type":"step","data":{"op":"wait"}}`,
			http.StatusConflict, "reset before stepping"},
		{"a file: URL", "/reset", `{"start_url":"file:///etc/passwd"}`, `{"type":"reset","data":{"start_url":"file:///etc/passwd"}}`,
			http.StatusBadRequest, "HTTP(S) URL"},
		{"no start_url", "/reset", ``, `{"type":"reset","data":{}}`,
			http.StatusBadRequest, "start_url"},
		{"a misspelt kwarg", "/reset", `{"url":"https://example.com/"}`, `{"type":"reset","data":{"url":"https://example.com/"}}`,
			http.StatusBadRequest, "did you mean start_url?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wsCode, wsMsg := errCode(t, ws.call(c.wsSend))
			status, body := request(t, hs, "POST", c.path, "", "", "application/json", c.body)
			var got struct {
				Detail string
				Code   Code
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("POST %s %s: %d, the body is not JSON: %.200s", c.path, c.body, status, body)
			}
			if status != c.status || !strings.Contains(got.Detail, c.want) || !strings.Contains(got.Detail, wsMsg) || got.Code != wsCode {
				t.Errorf("POST %s %s: %d %s\nwant %d, detail with %q and the WebSocket's %q, code %s", c.path, c.body, status, body, c.status, c.want, wsMsg, wsCode)
			}
		})
	}
	if n := f.count(); n != 1 {
		t.Errorf("%d engines started, want 1 (the WebSocket session's): a refused request starts no browser", n)
	}
}

// A body over the 16 MiB limit is refused as too large (413), not read as
// truncated JSON; JSON nested beyond the decoder's depth says so.
func TestHTTPOversizeAndDeepBodies(t *testing.T) {
	var f countingFactory
	_, hs := testServer(t, Options{NewEngine: f.new})
	big := `{"start_url":"https://example.com/","x":"` + strings.Repeat("a", MaxInFrame) + `"}`
	deep := `{"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	for _, c := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"reset over 16 MiB", "/reset", big, http.StatusRequestEntityTooLarge, "too large"},
		{"step over 16 MiB", "/step", big, http.StatusRequestEntityTooLarge, "too large"},
		{"mcp over 16 MiB", "/mcp", big, http.StatusRequestEntityTooLarge, "too large"},
		{"reset nested 100000 deep", "/reset", deep, http.StatusUnprocessableEntity, "nested too deeply"},
		{"step nested 100000 deep", "/step", deep, http.StatusUnprocessableEntity, "nested too deeply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := request(t, hs, "POST", c.path, "", "", "application/json", c.body)
			if status != c.status || !strings.Contains(body, c.want) || len(body) > 4096 {
				t.Errorf("%d %.400s\nwant %d …%s…", status, body, c.status, c.want)
			}
			if strings.Contains(body, "Expecting value") {
				t.Errorf("the answer reads the body as cut-off JSON: %.300s", body)
			}
		})
	}
	r := dialRaw(t, hs)
	if code, msg := errCode(t, r.call(deep)); code != CodeInvalidJSON || !strings.Contains(msg, "nested too deeply") {
		t.Errorf("WebSocket, nested 100000 deep: %s %q", code, msg)
	}
}

// A reset seed that is no integer a seed can be (1e400, 1.5, "7", -1) is
// refused over the WebSocket as over HTTP, not dropped.
func TestResetRefusesAnUnusableSeed(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	r := dialRaw(t, hs)
	for _, seed := range []string{`1e400`, `1.5`, `"7"`, `-1`, `true`} {
		code, msg := errCode(t, r.call(`{"type":"reset","data":{"start_url":"https://example.com/","seed":`+seed+`}}`))
		if code != CodeExecution || !strings.Contains(msg, "seed") || !strings.Contains(msg, "integer") {
			t.Errorf("seed %s: %s %q, want EXECUTION_ERROR saying the seed must be an integer", seed, code, msg)
		}
	}
	for _, seed := range []string{`null`, `0`, `7`, `9223372036854775807`} {
		if code, msg := errCode(t, r.call(`{"type":"reset","data":{"start_url":"https://example.com/","seed":`+seed+`}}`)); code != "" {
			t.Errorf("seed %s: %s %q", seed, code, msg)
		}
	}
}
