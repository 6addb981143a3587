package openenv

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

func sketchFactory(made *[]*sketchEngine) func(context.Context) (engine.Engine, error) {
	return func(context.Context) (engine.Engine, error) {
		e := newSketch()
		if made != nil {
			*made = append(*made, e)
		}
		return e, nil
	}
}

// Every recoverable error code, answered on one session that survives them
// all, with the exact codes and messages of the reference.
func TestErrorCodesKeepTheSession(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	r := dialRaw(t, hs)

	cases := []struct {
		send string
		code Code
		msg  string
	}{
		{`{"type":"reset",}`, CodeInvalidJSON, "Invalid JSON: Expecting property name enclosed in double quotes: line 1 column 17 (char 16)"},
		{`{"type":"reset"} x`, CodeInvalidJSON, "Invalid JSON: Extra data: line 1 column 18 (char 17)"},
		{``, CodeInvalidJSON, "Invalid JSON: Expecting value: line 1 column 1 (char 0)"},
		{`{"type":"fly"}`, CodeUnknownType, "Unknown message type: fly"},
		{`{"data":{}}`, CodeUnknownType, "Unknown message type: "},
		{`{"type":null}`, CodeUnknownType, "Unknown message type: None"},
		{`{"type":"step","data":{"metadata":{},"op":"click","x":400,"y":300,"text":"","dy":0}}`, CodeExecution, "reset before stepping"},
		{`{"type":"reset","data":{"start_url":"ftp://example.com"}}`, CodeExecution, "expected an HTTP(S) URL without credentials"},
		{`{"type":"reset","data":{"start_url":"http://user:pw@example.com/"}}`, CodeExecution, "expected an HTTP(S) URL without credentials"},
		{`{"type":"reset","data":{}}`, CodeExecution, `expected an HTTP(S) URL without credentials: reset needs start_url, e.g. reset(start_url="https://example.com/")`},
		{`{"type":"state","data":{}}`, CodeValidation, "Invalid message"},
		{`{"type":"step"}`, CodeValidation, "Invalid message"},
		{`[]`, CodeValidation, "Invalid message"},
	}
	for _, c := range cases {
		code, msg := errCode(t, r.call(c.send))
		if code != c.code || msg != c.msg {
			t.Errorf("%s → %s %q, want %s %q", c.send, code, msg, c.code, c.msg)
		}
	}

	// The spec's VALIDATION_ERROR example, byte for byte.
	got := r.call(`{"type":"step","data":{"metadata":{},"op":"click","x":900,"y":300,"text":"","dy":0}}`)
	want := `{"type":"error","data":{"message":"Invalid message","code":"VALIDATION_ERROR","errors":[{"type":"less_than","loc":["x"],"msg":"Input should be less than 800","input":900,"ctx":{"lt":800},"url":"https://errors.pydantic.dev/2.13/v/less_than"}]}}`
	if string(got) != want {
		t.Errorf("x=900:\n got %s\nwant %s", got, want)
	}
	// Custom-validator errors: the Python server drops the session here;
	// Waymark answers VALIDATION_ERROR and goes on.
	for _, bad := range []string{
		`{"metadata":{},"op":"click","x":null,"y":null,"text":"","dy":0}`,
		`{"metadata":{},"op":"type","x":null,"y":null,"text":"","dy":0}`,
		`{"metadata":{},"op":"key","x":null,"y":null,"text":"F5","dy":0}`,
		`{"op":"scroll","dy":5000}`,
		`{"op":"click","x":1,"y":2,"button":"left"}`,
	} {
		reply := r.call(`{"type":"step","data":` + bad + `}`)
		code, _ := errCode(t, reply)
		if code != CodeValidation {
			t.Errorf("%s → %s, want VALIDATION_ERROR", bad, reply)
			continue
		}
		errs := decoded(t, reply)["data"].(map[string]any)["errors"].([]any)
		if len(errs) == 0 {
			t.Errorf("%s: empty errors list", bad)
		}
		if !strings.Contains(string(reply), `"errors":[{"type":"`) || !strings.Contains(string(reply), `","loc":[`) {
			t.Errorf("%s: error keys not in pydantic order: %s", bad, reply)
		}
	}
	reply := r.call(`{"type":"step","data":{"op":"click","x":null}}`)
	e0 := decoded(t, reply)["data"].(map[string]any)["errors"].([]any)[0].(map[string]any)
	if e0["type"] != "value_error" || e0["msg"] != "Value error, click needs x and y" {
		t.Errorf("click without y: %s", reply)
	}
	reply = r.call(`{"type":"reset","data":{"start_url":"https://example.com"},"extra":1}`)
	e0 = decoded(t, reply)["data"].(map[string]any)["errors"].([]any)[0].(map[string]any)
	if e0["type"] != "extra_forbidden" || e0["loc"].([]any)[0] != "extra" {
		t.Errorf("envelope extra key: %s", reply)
	}

	// The session is still alive and usable after all of that.
	obs := decoded(t, r.call(`{"type":"reset","data":{"start_url":"https://example.com","episode_id":"ep-1"}}`))
	if obs["type"] != "observation" {
		t.Fatalf("reset after errors: %v", obs)
	}
	if got := string(r.call(`{"type":"state"}`)); got != `{"type":"state","data":{"episode_id":"ep-1","step_count":0}}` {
		t.Errorf("state: %s", got)
	}
	mcp := string(r.call(`{"type":"mcp","data":{"jsonrpc":"2.0","method":"tools/list","params":{},"id":7}}`))
	if mcp != `{"type":"mcp","data":{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Environment does not support MCP"}}}` {
		t.Errorf("mcp: %s", mcp)
	}
	// close: no reply, the server closes the socket normally.
	r.send(`{"type":"close"}`)
	_, err := r.recv(5 * time.Second)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after close: %v, want a normal closure", err)
	}
}

func TestCapacityReachedThenFreed(t *testing.T) {
	var made []*sketchEngine
	srv, hs := testServer(t, Options{NewEngine: sketchFactory(&made), MaxSessions: 1})
	first := dialRaw(t, hs)
	first.call(`{"type":"state"}`) // the session is up
	second := dialRaw(t, hs)
	data, err := second.recv(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","data":{"message":"Server at capacity: 1/1 sessions active. Cannot accept new connections.","code":"CAPACITY_REACHED","active_sessions":1,"max_sessions":1}}`
	if string(data) != want {
		t.Errorf("refusal:\n got %s\nwant %s", data, want)
	}
	if _, err := second.recv(5 * time.Second); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("refused socket: %v, want closed normally", err)
	}
	if len(made) != 1 {
		t.Errorf("%d engines made, want 1 (no engine for a refused session)", len(made))
	}
	// The Go client reports it from Dial.
	_, err = Dial(context.Background(), hs.URL, ClientOptions{})
	var se *ServerError
	if !errors.As(err, &se) || se.Code != CodeCapacityReached {
		t.Errorf("Dial at capacity: %v", err)
	}
	first.send(`{"type":"close"}`)
	waitFor(t, "the slot to be freed", func() bool { return srv.ActiveSessions() == 0 })
	if !made[0].closed.Load() {
		t.Error("the first session's engine was not closed")
	}
	c, err := Dial(context.Background(), hs.URL, ClientOptions{})
	if err != nil {
		t.Fatalf("Dial after the slot was freed: %v", err)
	}
	c.Close()
}

func TestFactoryError(t *testing.T) {
	srv, hs := testServer(t, Options{NewEngine: func(context.Context) (engine.Engine, error) {
		return nil, errors.New("no chromium")
	}})
	r := dialRaw(t, hs)
	data, err := r.recv(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","data":{"message":"Environment factory 'WaymarkBrowserEnvironment' failed to create instance.","code":"FACTORY_ERROR","factory_name":"WaymarkBrowserEnvironment"}}`
	if string(data) != want {
		t.Errorf("got %s\nwant %s", data, want)
	}
	waitFor(t, "the slot to be freed", func() bool { return srv.ActiveSessions() == 0 })
	_, err = Dial(context.Background(), hs.URL, ClientOptions{})
	var se *ServerError
	if !errors.As(err, &se) || se.Code != CodeFactoryError || !se.Fatal() {
		t.Errorf("Dial with a failing factory: %v", err)
	}
}

func TestBinaryFrameEndsTheSession(t *testing.T) {
	var made []*sketchEngine
	srv, hs := testServer(t, Options{NewEngine: sketchFactory(&made)})
	r := dialRaw(t, hs)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.c.Write(ctx, websocket.MessageBinary, []byte(`{"type":"state"}`)); err != nil {
		t.Fatal(err)
	}
	data, err := r.recv(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := errCode(t, data); code != CodeSessionError {
		t.Errorf("binary frame → %s, want SESSION_ERROR", data)
	}
	if _, err := r.recv(5 * time.Second); err == nil {
		t.Error("the socket stayed open after SESSION_ERROR")
	}
	waitFor(t, "the session to end", func() bool { return srv.ActiveSessions() == 0 })
	if !made[0].closed.Load() {
		t.Error("engine not closed after SESSION_ERROR")
	}
}

func TestHTTPEndpoints(t *testing.T) {
	var made []*sketchEngine
	_, hs := testServer(t, Options{NewEngine: sketchFactory(&made)})
	get := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	checks := []struct {
		method, path, body string
		status             int
		want               string // exact body, or a prefix ending in "…"
	}{
		{"GET", "/health", "", 200, `{"status":"healthy"}`},
		{"GET", "/metadata", "", 200, `{"name":"WaymarkBrowserEnvironment","description":"WaymarkBrowserEnvironment environment","readme_content":null,"version":"1.0.0","author":null,"documentation_url":null}`},
		{"GET", "/state", "", 200, `{"episode_id":null,"step_count":0}`},
		{"POST", "/mcp", `{}`, 200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,…`},
		{"POST", "/mcp", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"},"id":"a"}`, 200, `{"jsonrpc":"2.0","id":"a","error":{"code":-32603,"message":"Environment does not support MCP"}}`},
		{"POST", "/mcp", `nope`, 200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,…`},
		{"POST", "/step", `{"action":{"op":"scroll","dy":100}}`, 409, `{"detail":"reset before stepping: HTTP POST /step is stateless…`},
		{"POST", "/step", `{"action":{"op":"scroll","dy":10000}}`, 422, `{"detail":[{"type":"less_than_equal","loc":["dy"],…`},
		{"POST", "/step", `{}`, 422, `{"detail":[{"type":"missing","loc":["body","action"],"msg":"Field required","input":{}}]}`},
		{"POST", "/reset", `{"seed":-1}`, 422, `{"detail":[{"type":"greater_than_equal","loc":["body","seed"],…`},
		{"POST", "/reset", ``, 400, `{"detail":"expected an HTTP(S) URL without credentials: reset needs start_url…`}, // no start_url: the env raises
		{"POST", "/reset", `{"start_url":"https://example.com/"}`, 200, `{"observation":{"screenshot":"iVBORw0KGgo`},
	}
	for _, c := range checks {
		status, body := get(c.method, c.path, c.body)
		ok := body == c.want
		if strings.HasSuffix(c.want, "…") {
			ok = strings.HasPrefix(body, strings.TrimSuffix(c.want, "…"))
		} else if c.status == 200 && strings.HasPrefix(c.want, `{"observation"`) {
			ok = strings.HasPrefix(body, c.want) && strings.HasSuffix(body, `"url":"https://example.com/","error":""},"reward":0.0,"done":false}`)
		}
		if status != c.status || !ok {
			t.Errorf("%s %s %s → %d %.300s\nwant %d %s", c.method, c.path, c.body, status, body, c.status, c.want)
		}
	}
	// Every stateless request used a fresh engine and closed it.
	for i, e := range made {
		if !e.closed.Load() {
			t.Errorf("engine %d of a stateless request left open", i)
		}
	}

	// /schema: the reference's three schemas, fields in pydantic's order.
	_, body := get("GET", "/schema", "")
	var schema map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &schema); err != nil {
		t.Fatal(err)
	}
	if k := keysOf(t, []byte(body)); strings.Join(k, ",") != "action,observation,state" {
		t.Errorf("schema keys %v", k)
	}
	var act struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
		Additional bool            `json:"additionalProperties"`
		Title      string          `json:"title"`
	}
	_ = json.Unmarshal(schema["action"], &act)
	if k := strings.Join(keysOf(t, act.Properties), ","); k != "metadata,op,x,y,text,dy" || act.Additional || act.Title != "BrowserAction" || act.Required[0] != "op" {
		t.Errorf("action schema: props %s, %+v", k, act)
	}
	if !strings.Contains(string(schema["action"]), `"x":{"anyOf":[{"exclusiveMaximum":800,"minimum":0,"type":"integer"},{"type":"null"}],"default":null,"title":"X"}`) {
		t.Errorf("action schema x: %s", schema["action"])
	}
	var obsSchema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	_ = json.Unmarshal(schema["observation"], &obsSchema)
	if k := strings.Join(keysOf(t, obsSchema.Properties), ","); k != "done,reward,metadata,screenshot,url,error,controls,page_text" ||
		strings.Join(obsSchema.Required, ",") != "screenshot,url" {
		t.Errorf("observation schema: %s %v", k, obsSchema.Required)
	}
	if !strings.Contains(string(schema["state"]), `"additionalProperties":true`) {
		t.Errorf("state schema: %s", schema["state"])
	}

	// /openapi.json: what `openenv validate` checks.
	_, body = get("GET", "/openapi.json", "")
	var api struct {
		Info  struct{ Title, Version string }
		Paths map[string]any
	}
	if err := json.Unmarshal([]byte(body), &api); err != nil {
		t.Fatal(err)
	}
	if api.Info.Version != "1.0.0" || api.Info.Title != "OpenEnv Environment HTTP API" {
		t.Errorf("openapi info %+v", api.Info)
	}
	for _, p := range []string{"/reset", "/step", "/state"} {
		if api.Paths[p] == nil {
			t.Errorf("openapi lacks %s", p)
		}
	}
}

// The Go client keeps answering pings while the agent thinks, so a session
// outlives many ping intervals; a peer that reads nothing is dropped.
func TestKeepAlive(t *testing.T) {
	var made []*sketchEngine
	srv, hs := testServer(t, Options{NewEngine: sketchFactory(&made), MaxSessions: 2,
		PingInterval: 50 * time.Millisecond, PongTimeout: 500 * time.Millisecond})
	c, err := Dial(context.Background(), hs.URL, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	// Three pong timeouts pass and at least five pongs come back (a loaded
	// machine may answer late, so the count is waited for, not timed).
	before, start := srv.Pongs(), time.Now()
	waitFor(t, "five pongs over three pong timeouts", func() bool {
		return srv.Pongs()-before >= 5 && time.Since(start) >= 1500*time.Millisecond
	})
	if _, err := c.Step(ctx, action.ScrollBy(100)); err != nil {
		t.Fatalf("step after a long silence: %v", err)
	}

	// A peer that never reads cannot answer pings: the server ends it.
	conn, err := net.Dial("tcp", strings.TrimPrefix(hs.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	waitFor(t, "the mute session to open", func() bool { return srv.ActiveSessions() == 2 })
	waitFor(t, "the mute session to be dropped", func() bool { return srv.ActiveSessions() == 1 })
	if !made[1].closed.Load() {
		t.Error("the mute session's engine was not closed")
	}
	if made[0].closed.Load() {
		t.Error("the live session's engine was closed")
	}
}

func TestClientErrorsAndLeniency(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil)})
	ctx := context.Background()
	c, err := Dial(ctx, hs.URL+"/", ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Invalid actions never reach the server.
	var ve *action.ValidationError
	if _, err := c.Step(ctx, action.Action{Op: action.Click}); !errors.As(err, &ve) {
		t.Errorf("click without x,y: %v", err)
	}
	if _, err := c.Step(ctx, action.ScrollBy(1)); err == nil || err.Error() != action.MsgResetBeforeStepping {
		t.Errorf("step before reset: %v", err)
	}
	_, err = c.Reset(ctx, engine.ResetOptions{StartURL: "file:///etc/passwd"})
	var se *ServerError
	if !errors.As(err, &se) || se.Code != CodeExecution || se.Message != action.MsgBadURL || se.Fatal() {
		t.Errorf("bad start URL: %v", err)
	}
	o, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/", EpisodeID: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Screenshot) < 8 || string(o.Screenshot[1:4]) != "PNG" || o.URL != "https://example.com/" {
		t.Errorf("reset observation: %d bytes, url %q", len(o.Screenshot), o.URL)
	}
	st, err := c.RemoteState(ctx)
	if err != nil || st["episode_id"] != "mine" {
		t.Errorf("remote state %v %v", st, err)
	}
	for i := 1; i <= 2; i++ {
		o, err = c.Step(ctx, action.ScrollBy(50))
		if err != nil || o.Step != i || o.Done {
			t.Fatalf("step %d: %+v %v", i, o.Step, err)
		}
	}
	o, err = c.Step(ctx, action.FinishWith("42"))
	if err != nil || !o.Done || o.EndReason != action.EndFinished || o.Answer != "42" {
		t.Errorf("finish: done %v reason %q answer %q err %v", o.Done, o.EndReason, o.Answer, err)
	}
	if s := c.State(); s.StepCount != 3 || s.EpisodeID != "mine" || !s.Done {
		t.Errorf("client state %+v", s)
	}
	if c.Info().Kind != "openenv" {
		t.Error("Info().Kind")
	}

	// Lenient decoding: unknown keys and a float/bool reward.
	o, err = c.observation(json.RawMessage(`{"observation":{"screenshot":"","url":"u","error":"","controls":[],"page_text":"x","new":1},"reward":true,"done":false,"extra":{}}`))
	if err != nil || o.Reward == nil || *o.Reward != 1 || o.URL != "u" {
		t.Errorf("lenient observation: %+v %v", o, err)
	}
	if r := lenientReward(json.RawMessage(`0.5`)); r == nil || *r != 0.5 {
		t.Errorf("float reward %v", r)
	}
	if r := lenientReward(json.RawMessage(`null`)); r != nil {
		t.Errorf("null reward %v", *r)
	}
}

func TestWSEndpointMapping(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":     "ws://127.0.0.1:8000/ws",
		"https://h.example/p/":      "wss://h.example/p/ws",
		"localhost:9000":            "ws://localhost:9000/ws",
		"http://h/prefix/deep?q=1#": "ws://h/prefix/deep/ws",
	} {
		_, got, err := wsEndpoint(in)
		if err != nil || got != want {
			t.Errorf("%s → %s %v, want %s", in, got, err, want)
		}
	}
	if _, _, err := wsEndpoint("ftp://x"); err == nil {
		t.Error("ftp:// accepted")
	}
	// No server: Dial waits for /health, then says what is wrong.
	start := time.Now()
	_, err := Dial(context.Background(), "http://127.0.0.1:1", ClientOptions{HealthTimeout: 700 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "is not answering") || time.Since(start) < 500*time.Millisecond {
		t.Errorf("no server: %v after %s", err, time.Since(start))
	}
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Pings from the client are answered while a step is running (the server
// keeps a reader going), so a client's keep-alive never kills a long step.
func TestPingsAnsweredDuringAStep(t *testing.T) {
	gate, stepping := make(chan struct{}), make(chan struct{}, 1)
	slow := func(context.Context) (engine.Engine, error) {
		e := newSketch()
		e.stepGate, e.stepping = gate, stepping
		return e, nil
	}
	_, hs := testServer(t, Options{NewEngine: slow})
	r := dialRaw(t, hs)
	r.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	r.send(`{"type":"step","data":{"op":"wait"}}`)
	replied := make(chan []byte, 1)
	go func() {
		data, _ := r.recv(60 * time.Second) // also reads the pongs
		replied <- data
	}()
	select {
	case <-stepping:
	case <-time.After(30 * time.Second):
		t.Fatal("the step did not reach the engine in 30 s")
	}
	// The step runs until the gate opens: each ping must be answered
	// meanwhile (the timeout only guards against a hang).
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := r.c.Ping(ctx)
		cancel()
		if err != nil {
			t.Fatalf("ping %d during the step: %v", i, err)
		}
		select {
		case data := <-replied:
			t.Fatalf("the step replied while its engine still ran: %s", data)
		default:
		}
	}
	close(gate)
	if data := <-replied; decoded(t, data)["type"] != "observation" {
		t.Errorf("step reply %s", data)
	}
}

// The client tells a step-limit end from a finish.
func TestClientInfersStepLimit(t *testing.T) {
	short := func(context.Context) (engine.Engine, error) {
		e := newSketch()
		e.maxSteps = 3
		return e, nil
	}
	_, hs := testServer(t, Options{NewEngine: short})
	ctx := context.Background()
	c, err := Dial(ctx, hs.URL, ClientOptions{MaxSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	var o engine.Observation
	for i := 0; i < 3; i++ {
		if o, err = c.Step(ctx, action.ScrollBy(10)); err != nil {
			t.Fatal(err)
		}
	}
	if !o.Done || o.EndReason != action.EndStepLimit || o.Step != 3 {
		t.Errorf("third step: done %v reason %q step %d", o.Done, o.EndReason, o.Step)
	}
}
