package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"waymark/assets/practice"
)

// lineWriter hands each complete line written to it to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}

// axBid finds the bid of the accessibility node with role and name in an
// observation's axtree_object.
func axBid(t *testing.T, obs map[string]any, role, name string) (bid string, value string) {
	t.Helper()
	tree, _ := obs["axtree_object"].(map[string]any)
	nodes, _ := tree["nodes"].([]any)
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		r, _ := m["role"].(map[string]any)
		nm, _ := m["name"].(map[string]any)
		if r["value"] == role && nm["value"] == name {
			id, _ := m["browsergym_id"].(string)
			v, _ := m["value"].(map[string]any)
			s, _ := v["value"].(string)
			return id, s
		}
	}
	t.Fatalf("no %s %q among %d accessibility nodes", role, name, len(nodes))
	return "", ""
}

// `waymark play --obs browsergym` on the practice forms site, headless: an
// agent reads a link's bid from the axtree of one observation and clicks it,
// fills a text box by its bid, gets a step error for an action Waymark
// cannot do and for a bid the page does not have, and ends by answering.
func TestPlayBrowserGym(t *testing.T) {
	sites, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer sites.Close()
	inR, inW := io.Pipe()
	out := &lineWriter{lines: make(chan string, 16)}
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	start := sites.URL() + "/forms/"
	go func() {
		exit <- Main([]string{"play", "--obs", "browsergym", "--start-url", start, "--display", "headless",
			"--max-steps", "8", "--goal", "Set your display name to Ada Lovelace"}, inR, out, &stderr)
		inR.Close()
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case l := <-out.lines:
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("line %.200q: %v", l, err)
			}
			return m
		case code := <-exit:
			t.Fatalf("play ended (exit %d) before the next line: %s", code, stderr.String())
		case <-time.After(90 * time.Second):
			t.Fatalf("no line in 90 s: %s", stderr.String())
		}
		return nil
	}
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	info := func(o map[string]any, k string) any { return o["info"].(map[string]any)[k] }

	o := next()
	keys := []string{"chat_messages", "goal", "goal_object", "open_pages_urls", "open_pages_titles", "active_page_index",
		"url", "screenshot", "axtree_object", "extra_element_properties", "focused_element_bid", "last_action",
		"last_action_error", "elapsed_time", "terminated", "truncated", "reward", "info"}
	for _, k := range keys {
		if _, ok := o[k]; !ok {
			t.Errorf("reset observation has no %q", k)
		}
	}
	if len(o) != len(keys) { // no dom_object without --dom
		t.Errorf("reset observation has %d keys, want %d", len(o), len(keys))
	}
	shot, err := base64.StdEncoding.DecodeString(o["screenshot"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if img, err := png.Decode(bytes.NewReader(shot)); err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Fatalf("screenshot: %v", err)
	}
	if o["url"] != start || o["goal"] != "Set your display name to Ada Lovelace" || o["terminated"] != false || o["truncated"] != false || o["reward"] != 0.0 {
		t.Errorf("reset: url %v goal %v terminated %v truncated %v reward %v", o["url"], o["goal"], o["terminated"], o["truncated"], o["reward"])
	}
	chat, _ := json.Marshal(o["chat_messages"].([]any)[1])
	if !strings.Contains(string(chat), `"message":"Set your display name to Ada Lovelace","role":"user"`) {
		t.Errorf("chat: %s", chat)
	}
	goal, _ := json.Marshal(o["goal_object"])
	if string(goal) != `[{"text":"Set your display name to Ada Lovelace","type":"text"}]` {
		t.Errorf("goal_object: %s", goal)
	}

	link, _ := axBid(t, o, "link", "Profile")
	send("click('" + link + "')")
	o = next()
	if o["url"] != sites.URL()+"/forms/settings/profile" || o["last_action"] != "click('"+link+"')" || o["last_action_error"] != "" || info(o, "step") != 1.0 {
		t.Fatalf("after click: url %v, last_action %v, error %v, info %v", o["url"], o["last_action"], o["last_action_error"], o["info"])
	}

	box, value := axBid(t, o, "textbox", "Display name")
	send(`fill("` + box + `", 'Ada Lovelace')  # the name field`)
	o = next()
	if _, v := axBid(t, o, "textbox", "Display name"); v != "Ada Lovelace" || value == v {
		t.Errorf("after fill: the text box holds %q (before: %q)", v, value)
	}
	if o["focused_element_bid"] != box || o["last_action_error"] != "" {
		t.Errorf("after fill: focused %v, error %v", o["focused_element_bid"], o["last_action_error"])
	}
	var ops []string
	for _, a := range info(o, "waymark_actions").([]any) {
		m := a.(map[string]any)
		ops = append(ops, m["op"].(string)+" "+m["text"].(string))
	}
	if strings.Join(ops, "; ") != "click ; key CTRL+A; type Ada Lovelace" {
		t.Errorf("fill's Waymark actions: %q", ops)
	}

	send("upload_file('" + box + "', 'cv.pdf')")
	if o = next(); o["last_action_error"] != "NotImplementedError: upload_file is not supported: Waymark does not upload files" ||
		o["url"] != sites.URL()+"/forms/settings/profile" || info(o, "step") != 3.0 || o["terminated"] != false {
		t.Errorf("an action Waymark cannot do: error %v, url %v, info %v", o["last_action_error"], o["url"], o["info"])
	}
	send("click('zz9')")
	o = next()
	if o["last_action_error"] != `ValueError: Could not find element with bid "zz9"` || o["url"] != sites.URL()+"/forms/settings/profile" || info(o, "step") != 4.0 || o["terminated"] != false {
		t.Errorf("missing bid: error %v, url %v, info %v", o["last_action_error"], o["url"], o["info"])
	}
	send("send_msg_to_user('done')")
	o = next()
	msgs := o["chat_messages"].([]any)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	if o["terminated"] != true || o["truncated"] != false || info(o, "answer") != "done" || !strings.Contains(string(last), `"message":"done","role":"assistant"`) {
		t.Errorf("answer: terminated %v truncated %v info %v chat %s", o["terminated"], o["truncated"], o["info"], last)
	}
	inW.Close()
	if code := <-exit; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

func TestPlayBrowserGymUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--start-url", "http://127.0.0.1/", "--obs", "gym"}, `--obs "gym": use waymark or browsergym`},
		{[]string{"play", "--start-url", "http://127.0.0.1/", "--goal", "x"}, `--goal is only for --obs browsergym`},
		{[]string{"play", "--start-url", "http://127.0.0.1/", "--obs", "browsergym", "--server", "http://127.0.0.1:1"}, `--server cannot go with --obs browsergym`},
		{[]string{"play", "--restore", "x:1", "--obs", "browsergym"}, `--restore cannot go with --obs browsergym`},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(c.args, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr.String())
		}
	}
}

// Gym's flags: terminated when the episode ends with an answer, truncated
// when it is cut short (the engine's end, or play's BrowserGym step limit),
// never both.
// gymSession is one `waymark play --obs browsergym` run driven line by
// line, as an agent drives it: send a line, read the next output line.
type gymSession struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *lineWriter
	stderr *bytes.Buffer
	exit   chan int
}

// startGym starts play --obs browsergym (headless) with args.
func startGym(t *testing.T, args ...string) *gymSession {
	t.Helper()
	inR, inW := io.Pipe()
	s := &gymSession{t: t, in: inW, out: &lineWriter{lines: make(chan string, 16)}, stderr: &bytes.Buffer{}, exit: make(chan int, 1)}
	go func() {
		s.exit <- Main(append([]string{"play", "--obs", "browsergym", "--display", "headless"}, args...), inR, s.out, s.stderr)
		inR.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

// next is the next output line, decoded.
func (s *gymSession) next() map[string]any {
	s.t.Helper()
	select {
	case l := <-s.out.lines:
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			s.t.Fatalf("line %.200q: %v", l, err)
		}
		return m
	case code := <-s.exit:
		s.t.Fatalf("play ended (exit %d) before the next line: %s", code, s.stderr.String())
	case <-time.After(90 * time.Second):
		s.t.Fatalf("no line in 90 s: %s", s.stderr.String())
	}
	return nil
}

// send writes one input line.
func (s *gymSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// end closes standard input and wants exit 0.
func (s *gymSession) end() {
	s.t.Helper()
	s.in.Close()
	if code := <-s.exit; code != 0 {
		s.t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
}

// axName reports whether the axtree_object of obs has a node named name.
func axName(obs map[string]any, name string) bool {
	tree, _ := obs["axtree_object"].(map[string]any)
	nodes, _ := tree["nodes"].([]any)
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		nm, _ := m["name"].(map[string]any)
		if nm["value"] == name {
			return true
		}
	}
	return false
}

// An empty or whitespace-only line, or one holding only a comment, is
// BrowserGym's empty action (step("")): it is answered with an observation
// of the page as it is now — observed again, nothing performed — whose
// last_action_error is BrowserGym's "ValueError: Received an empty
// action.", and it counts as a step as BrowserGym counts it. The page here
// changes after the reset observation (its poller sees the test's switch),
// so only a fresh observation shows the change.
func TestPlayBrowserGymEmptyAction(t *testing.T) {
	var on atomic.Bool
	seen := make(chan struct{}, 1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/state":
			if on.Load() {
				fmt.Fprint(w, "on")
			} else {
				fmt.Fprint(w, "off")
			}
		case "/seen":
			select {
			case seen <- struct{}{}:
			default:
			}
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<title>empty</title><body style="margin:0;font:20px sans-serif"><h1 id="h">Waiting</h1>
<button id="b" style="width:200px;height:60px" onclick="document.title='clicked'">Press</button>
<script>
let done = false;
setInterval(() => fetch('/state').then(r => r.text()).then(s => {
  if (s === 'on' && !done) { done = true; document.getElementById('h').textContent = 'Changed'; fetch('/seen'); }
}), 100);
</script></body>`)
		}
	}))
	defer ts.Close()
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "4")
	info := func(o map[string]any, k string) any { return o["info"].(map[string]any)[k] }

	o := s.next()
	if !axName(o, "Waiting") || axName(o, "Changed") {
		t.Fatalf("reset observation: the heading is not Waiting")
	}
	on.Store(true)
	select {
	case <-seen:
	case <-time.After(30 * time.Second):
		t.Fatal("the page never saw the switch")
	}
	for i, line := range []string{"", " \t ", "# thinking it over"} {
		s.send(line)
		o = s.next()
		if _, refused := o["line"]; refused {
			t.Fatalf("%q: refused %v, want an observation", line, o)
		}
		want := strings.TrimSpace(line)
		if o["last_action"] != want || o["last_action_error"] != "ValueError: Received an empty action." {
			t.Errorf("%q: last_action %q, last_action_error %q", line, o["last_action"], o["last_action_error"])
		}
		if !axName(o, "Changed") {
			t.Errorf("%q: the observation does not show the page as it is now (the heading changed)", line)
		}
		if info(o, "step") != float64(i+1) || info(o, "engine_step") != 0.0 || info(o, "waymark_actions") != nil {
			t.Errorf("%q: info %v: want BrowserGym step %d, no Waymark action performed", line, o["info"], i+1)
		}
		if o["url"] != ts.URL+"/" || o["terminated"] != false || o["truncated"] != false {
			t.Errorf("%q: url %v terminated %v truncated %v", line, o["url"], o["terminated"], o["truncated"])
		}
	}
	// The episode goes on: the next action works, and is the 4th step of 4.
	b, _ := axBid(t, o, "button", "Press")
	s.send("click('" + b + "')")
	o = s.next()
	if info(o, "title") != "clicked" || o["last_action_error"] != "" || info(o, "engine_step") != 1.0 || o["truncated"] != true {
		t.Errorf("click after the empty actions: info %v, error %v, truncated %v", o["info"], o["last_action_error"], o["truncated"])
	}
	s.end()
}

// A malformed, unknown or unsupported action string performs nothing and
// is answered as BrowserGym answers every step: an observation (the page
// observed again) whose last_action_error names the Python exception
// BrowserGym raises for it and says what is wrong; the step counts and the
// episode goes on. Only a line that is no action string at all (not UTF-8,
// longer than a line may be) gets play's {"line":N,"error":…}.
func TestPlayBrowserGymMalformedAction(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<title>malformed</title><body style="margin:0"><button style="width:200px;height:60px" onclick="document.title='clicked'">Press</button></body>`)
	}))
	defer ts.Close()
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "20")
	info := func(o map[string]any, k string) any { return o["info"].(map[string]any)[k] }
	s.next() // the first observation
	var o map[string]any
	names := "noop, send_msg_to_user, report_infeasible, scroll, fill, select_option, click, dblclick, hover, press, focus, clear, drag_and_drop, upload_file, scroll_at, mouse_move, mouse_up, mouse_down, mouse_click, mouse_dblclick, mouse_drag_and_drop, mouse_upload_file, keyboard_down, keyboard_up, keyboard_press, keyboard_type, keyboard_insert_text, goto, go_back, go_forward, new_tab, tab_close, tab_focus"
	steps := 0
	for _, c := range []struct{ line, want string }{
		{`click('a51'`, `ValueError: click: missing ) at the end of the call`},
		{`click('a51');`, `ValueError: unexpected ";" after the call at column 13: separate calls with blanks or line ends, each optionally followed by a # comment`},
		{`foo('a')`, `NameError: Invalid action type 'foo'. The BrowserGym actions are ` + names},
		{`click()`, `TypeError: click is missing its argument bid: write click(bid, button='left', modifiers=[])`},
		{`click(51)`, `ValueError: click: bid must be a string, got the number 51: write click(bid, button='left', modifiers=[])`},
		{`{"op":"click","x":1,"y":2}`, `ValueError: this looks like a Waymark JSON action; with --obs browsergym send one BrowserGym call, such as mouse_click(312, 188) or click('a51')`},
		{`upload_file('a1', 'x.pdf')`, `NotImplementedError: upload_file is not supported: Waymark does not upload files`},
		{`mouse_move(900, 10)`, `ValueError: mouse_move: (900, 10) is outside the 800×600 viewport: x must be 0–799 and y 0–599`},
	} {
		s.send(c.line)
		o = s.next()
		if _, refused := o["line"]; refused {
			t.Errorf("%s: refused %v, want an observation", c.line, o)
			continue
		}
		steps++
		if o["last_action"] != c.line || o["last_action_error"] != c.want {
			t.Errorf("%s:\n got last_action %q, last_action_error %q\nwant last_action_error %q", c.line, o["last_action"], o["last_action_error"], c.want)
		}
		if info(o, "step") != float64(steps) || info(o, "engine_step") != 0.0 || info(o, "waymark_actions") != nil ||
			o["url"] != ts.URL+"/" || o["terminated"] != false || o["truncated"] != false {
			t.Errorf("%s: info %v, url %v, terminated %v, truncated %v", c.line, o["info"], o["url"], o["terminated"], o["truncated"])
		}
		if _, ok := o["axtree_object"].(map[string]any); !ok {
			t.Errorf("%s: the observation has no axtree_object", c.line)
		}
	}
	// Not action strings at all: refused, no step.
	s.send("click('caf\xe9')")
	if o = s.next(); o["line"] != 9.0 || o["error"] != "line 9 is not UTF-8 text: send action strings as UTF-8; nothing was done" {
		t.Errorf("not UTF-8: %v", o)
	}
	s.send("noop() # " + strings.Repeat("x", 1<<20))
	if o = s.next(); o["line"] != 10.0 || !strings.Contains(o["error"].(string), "more than the 1048576 a line may have") {
		t.Errorf("over-long line: %v", o)
	}
	// The episode goes on.
	s.send("mouse_click(100, 30)")
	o = s.next()
	if info(o, "title") != "clicked" || o["last_action_error"] != "" || info(o, "step") != float64(steps+1) || info(o, "engine_step") != 1.0 {
		t.Errorf("a valid action after the malformed ones: info %v, error %v", o["info"], o["last_action_error"])
	}
	s.end()
}
