package openenv

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"waymark/engine"
	"waymark/engine/action"
)

// The wire contract, pinned from outside the code: every message type,
// error code, message and field name is compared byte for byte with golden
// transcripts in testdata/ (wire_*.golden), written from the protocol
// description and checked by hand — never with the package's constants.
//
// go test ./engine/openenv -run TestContract -update rewrites them; review
// the diff line by line before committing it.

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the contract tests")

// shotRE matches the base64 screenshot of an observation, replaced in the
// transcripts by <PNG> (checked separately to be the engine's PNG).
var shotRE = regexp.MustCompile(`"screenshot":"[A-Za-z0-9+/=]*"`)

// transcript collects "> sent" / "< reply" lines.
type transcript struct {
	t     *testing.T
	b     bytes.Buffer
	shots [][]byte
}

func (tr *transcript) note(s string) { fmt.Fprintf(&tr.b, "# %s\n", s) }

func (tr *transcript) sent(s string) { fmt.Fprintf(&tr.b, "> %s\n", s) }

func (tr *transcript) got(reply []byte) {
	tr.t.Helper()
	for _, m := range shotRE.FindAll(reply, -1) {
		b64 := strings.TrimSuffix(strings.TrimPrefix(string(m), `"screenshot":"`), `"`)
		png, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			tr.t.Errorf("screenshot is not standard base64: %v", err)
		}
		tr.shots = append(tr.shots, png)
	}
	fmt.Fprintf(&tr.b, "< %s\n", shotRE.ReplaceAll(reply, []byte(`"screenshot":"<PNG>"`)))
}

// compare checks the transcript against testdata/name (or writes it with -update).
func (tr *transcript) compare(name string) {
	tr.t.Helper()
	path := "testdata/" + name
	if *updateGolden {
		if err := os.WriteFile(path, tr.b.Bytes(), 0o644); err != nil {
			tr.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tr.t.Fatal(err)
	}
	gl, wl := strings.Split(tr.b.String(), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			tr.t.Errorf("%s line %d:\n got %s\nwant %s", path, i+1, g, w)
		}
	}
	want64 := base64.StdEncoding.EncodeToString(newSketch().shot)
	for i, s := range tr.shots {
		if base64.StdEncoding.EncodeToString(s) != want64 {
			tr.t.Errorf("screenshot %d is not the engine's PNG", i)
		}
	}
}

// TestContractWebSocketSession: one /ws session through every message type
// and every error code a session survives.
func TestContractWebSocketSession(t *testing.T) {
	_, hs := testServer(t, Options{NewEngine: func(context.Context) (engine.Engine, error) {
		e := newSketch()
		e.maxSteps = 3
		return e, nil
	}})
	r := dialRaw(t, hs)
	tr := &transcript{t: t}
	for _, line := range []string{
		"# before any reset",
		`{"type":"state"}`,
		`{"type":"step","data":{"op":"wait"}}`,
		"# reset: observation, reward integer 0",
		`{"type":"reset","data":{"start_url":"https://example.com/","episode_id":"ep-golden","seed":7}}`,
		`{"type":"state"}`,
		`{"type":"step","data":{"metadata":{},"op":"scroll","x":null,"y":null,"text":"","dy":500}}`,
		`{"type":"state"}`,
		"# VALIDATION_ERROR: field errors, custom validators, envelope errors",
		`{"type":"step","data":{"op":"click","x":900,"y":-1}}`,
		`{"type":"step","data":{"op":"click","x":5}}`,
		`{"type":"step","data":{"op":"type","text":""}}`,
		`{"type":"step","data":{"op":"key","text":"F5"}}`,
		`{"type":"step","data":{"op":"jump","dy":99999,"zz":1}}`,
		`{"type":"step","data":{"op":"drag","x":1,"y":2,"x2":3,"y2":4}}`,
		`{"type":"step","data":{"op":"type","text":5,"metadata":[]}}`,
		`{"type":"step","data":{"op":"scroll","dy":1.5}}`,
		`{"type":"step","data":{"op":"click","x":"a","y":[1]}}`,
		`{"type":"step"}`,
		`{"type":"step","data":[]}`,
		`{"type":"mcp"}`,
		`{"type":"state","data":{}}`,
		`{"type":"close","data":{}}`,
		`{"type":"reset","data":"x","extra":1,"another":null}`,
		`[]`,
		`"text"`,
		"# UNKNOWN_TYPE",
		`{"type":"jump"}`,
		`{"data":{}}`,
		`{"type":null}`,
		`{"type":5}`,
		`{"type":true}`,
		`{"type":["a",1.5,{"k":false}]}`,
		`{"type":"Reset"}`,
		"# INVALID_JSON, with Python's json messages (checked with CPython 3)",
		``,
		`[1,`,
		`[1 2]`,
		`{"a":1 "b":2}`,
		`{"type":"state",}`,
		`{"type" "state"}`,
		`{"type":"state"} {}`,
		`["a" "b"]`,
		"{\"type\":\"st\nate\"}",
		"# EXECUTION_ERROR from reset",
		`{"type":"reset","data":{"start_url":"ftp://example.com/"}}`,
		`{"type":"reset","data":{"start_url":5}}`,
		`{"type":"reset","data":{"start_url":"https://example.com/","episode_id":5}}`,
		`{"type":"reset","data":{"task_id":"shop-1"}}`,
		"# mcp",
		`{"type":"mcp","data":{"jsonrpc":"2.0","method":"tools/list","id":1}}`,
		`{"type":"mcp","data":{"jsonrpc":"2.0","method":"tools/call","id":"a"}}`,
		`{"type":"mcp","data":{"jsonrpc":"2.0","method":"nope","id":2}}`,
		`{"type":"mcp","data":{"jsonrpc":"2.0","id":3}}`,
		`{"type":"mcp","data":{}}`,
		"# the episode ends at the step limit; then EXECUTION_ERROR",
		`{"type":"step","data":{"op":"back"}}`,
		`{"type":"step","data":{"op":"finish","text":"42"}}`,
		`{"type":"state"}`,
		`{"type":"step","data":{"op":"wait"}}`,
		"# a new reset starts again",
		`{"type":"reset","data":{"start_url":" http://127.0.0.1:9/a?b=c ","episode_id":"ep-2"}}`,
		`{"type":"state"}`,
	} {
		if strings.HasPrefix(line, "# ") {
			tr.note(line[2:])
			continue
		}
		tr.sent(line)
		tr.got(r.call(line))
	}
	// close gets no reply; the server ends the socket with 1000.
	tr.note("close: no reply, normal closure")
	tr.sent(`{"type":"close"}`)
	r.send(`{"type":"close"}`)
	_, err := r.recv(10 * time.Second)
	tr.note(fmt.Sprintf("read after close: status %d", websocket.CloseStatus(err)))
	tr.compare("wire_session.golden")
}

// TestContractFatalFrames: the error frames sent just before the server
// closes a socket.
func TestContractFatalFrames(t *testing.T) {
	tr := &transcript{t: t}
	closeStatus := func(r *raw) {
		_, err := r.recv(10 * time.Second)
		tr.note(fmt.Sprintf("then: status %d", websocket.CloseStatus(err)))
	}

	tr.note("CAPACITY_REACHED (max 1 session, one open)")
	_, hs := testServer(t, Options{NewEngine: sketchFactory(nil), MaxSessions: 1})
	first := dialRaw(t, hs)
	first.call(`{"type":"state"}`) // the session exists
	second := dialRaw(t, hs)
	reply, err := second.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tr.got(reply)
	closeStatus(second)

	tr.note("FACTORY_ERROR")
	_, hs2 := testServer(t, Options{Name: "GoldenEnv", NewEngine: func(context.Context) (engine.Engine, error) {
		return nil, errors.New("no browser")
	}})
	r := dialRaw(t, hs2)
	reply, err = r.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tr.got(reply)
	closeStatus(r)

	tr.note("SESSION_ERROR on a binary frame")
	_, hs3 := testServer(t, Options{NewEngine: sketchFactory(nil)})
	bin := dialRaw(t, hs3)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := bin.c.Write(ctx, websocket.MessageBinary, []byte(`{"type":"state"}`)); err != nil {
		t.Fatal(err)
	}
	reply, err = bin.recv(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tr.got(reply)
	closeStatus(bin)

	tr.note("LEASE_EXPIRED (the session's remote browser is gone)")
	leased := newLeasedSketch(time.Hour)
	_, hs4 := testServer(t, Options{Provider: "remote_cdp",
		NewEngine: func(context.Context) (engine.Engine, error) { return leased, nil }})
	gone := dialRaw(t, hs4)
	gone.call(`{"type":"reset","data":{"start_url":"https://example.com/"}}`)
	leased.failWith(fmt.Errorf("%w: context disposed", engine.ErrBrowserGone))
	tr.sent(`{"type":"step","data":{"op":"wait"}}`)
	tr.got(gone.call(`{"type":"step","data":{"op":"wait"}}`))
	closeStatus(gone)
	tr.compare("wire_fatal.golden")
}

// TestContractHTTP: the HTTP endpoints' status, content type and bodies.
func TestContractHTTP(t *testing.T) {
	for _, set := range []action.Set{action.SetDefault, action.SetExtended} {
		t.Run(string(set), func(t *testing.T) {
			_, hs := testServer(t, Options{NewEngine: sketchFactory(nil), ActionSet: set})
			tr := &transcript{t: t}
			do := func(method, path, body string) {
				t.Helper()
				var rd io.Reader
				if body != "" {
					rd = strings.NewReader(body)
				}
				req, err := http.NewRequest(method, hs.URL+path, rd)
				if err != nil {
					t.Fatal(err)
				}
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				tr.sent(strings.TrimSpace(method + " " + path + " " + body))
				fmt.Fprintf(&tr.b, "= %d %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
				tr.got(got)
			}
			do("GET", "/health", "")
			do("GET", "/metadata", "")
			do("GET", "/schema", "")
			do("GET", "/openapi.json", "")
			do("GET", "/state", "")
			do("POST", "/reset", `{"start_url":"https://example.com/","episode_id":"ep-http","seed":3,"other":1}`)
			do("POST", "/reset", `{"start_url":"ftp://example.com/"}`)
			do("POST", "/reset", `{"seed":-1,"episode_id":5}`)
			do("POST", "/reset", `{"seed":"x","episode_id":"`+strings.Repeat("e", 256)+`"}`)
			do("POST", "/reset", `[]`)
			do("POST", "/step", `{"action":{"op":"wait"}}`)
			do("POST", "/step", `{"action":{"op":"click","x":800,"y":600}}`)
			do("POST", "/step", `{"action":{"op":"click"}}`)
			do("POST", "/step", `{"action":[]}`)
			do("POST", "/step", `{}`)
			do("POST", "/mcp", `{}`)
			do("POST", "/mcp", `{"jsonrpc":"2.0","method":"tools/list","id":9}`)
			tr.compare("wire_http_" + string(set) + ".golden")
		})
	}
}

// TestContractClientFrames: what the Go client sends, byte for byte, to a
// recording server that answers with canned frames in the reference's form.
func TestContractClientFrames(t *testing.T) {
	shot := base64.StdEncoding.EncodeToString(newSketch().shot)
	obsFrame := func(url string, done bool, reward string) string {
		return `{"type":"observation","data":{"observation":{"screenshot":"` + shot + `","url":"` + url + `","error":""},"reward":` + reward + `,"done":` + fmt.Sprint(done) + `}}`
	}
	sent := make(chan string, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"healthy"}`)
	})
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer close(sent)
		defer c.CloseNow()
		c.SetReadLimit(MaxOutFrame)
		ctx := context.Background()
		steps := 0
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			msg := string(data)
			sent <- msg
			var reply string
			switch {
			case strings.HasPrefix(msg, `{"type":"reset"`):
				reply = obsFrame("https://example.com/", false, "0")
			case strings.HasPrefix(msg, `{"type":"step"`):
				steps++
				reply = obsFrame("https://example.com/p", steps == 2, map[bool]string{true: "1.0", false: "0"}[steps == 2])
			case msg == `{"type":"state"}`:
				reply = `{"type":"state","data":{"episode_id":"ep-c","step_count":2,"extra":"kept"}}`
			default:
				continue // close: no reply
			}
			if err := c.Write(ctx, websocket.MessageText, []byte(reply)); err != nil {
				return
			}
		}
	})
	hs := httptestServer(t, mux)
	ctx := context.Background()
	c, err := Dial(ctx, hs, ClientOptions{MaxSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(7)
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: "https://example.com/", EpisodeID: "ep-c", Seed: &seed}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, action.ScrollBy(500)); err != nil {
		t.Fatal(err)
	}
	o, err := c.Step(ctx, action.FinishWith("42"))
	if err != nil || !o.Done || o.Reward == nil || *o.Reward != 1 || o.URL != "https://example.com/p" || o.Step != 2 {
		t.Errorf("finish observation %+v %v", o, err)
	}
	st, err := c.RemoteState(ctx)
	if err != nil || st["episode_id"] != "ep-c" || st["extra"] != "kept" {
		t.Errorf("state %v %v", st, err)
	}
	c.Close()
	var got []string
	for m := range sent {
		got = append(got, m)
	}
	want := []string{
		`{"type":"reset","data":{"start_url":"https://example.com/","episode_id":"ep-c","seed":7}}`,
		`{"type":"step","data":{"metadata":{},"op":"scroll","x":null,"y":null,"text":"","dy":500}}`,
		`{"type":"step","data":{"metadata":{},"op":"finish","x":null,"y":null,"text":"42","dy":0}}`,
		`{"type":"state"}`,
		`{"type":"close"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the client sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}
