package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// bidNamed finds the bid of the accessibility node named name in an
// observation's axtree_object.
func bidNamed(t *testing.T, obs map[string]any, name string) string {
	t.Helper()
	tree, _ := obs["axtree_object"].(map[string]any)
	nodes, _ := tree["nodes"].([]any)
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		nm, _ := m["name"].(map[string]any)
		if id, ok := m["browsergym_id"].(string); ok && nm["value"] == name {
			return id
		}
	}
	t.Fatalf("no node named %q with a bid among %d accessibility nodes", name, len(nodes))
	return ""
}

// gymInfo reads one key of an observation's info.
func gymInfo(o map[string]any, k string) any { return o["info"].(map[string]any)[k] }

// gymOps lists the ops of the Waymark actions a step performed.
func gymOps(o map[string]any) []string {
	var ops []string
	acts, _ := gymInfo(o, "waymark_actions").([]any)
	for _, a := range acts {
		ops = append(ops, a.(map[string]any)["op"].(string))
	}
	return ops
}

// pageServer serves pages by path.
func pageServer(t *testing.T, pages map[string]string) *httptest.Server {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// fill on a date, time, datetime-local, month, week, color or range input
// sets its value as Playwright's fill does — the value set, then one input
// and one change event — instead of clicking and typing into it (which
// left a date empty and opened the colour picker). A value the input does
// not take is Playwright's "Malformed value", and the input keeps its
// value.
func TestPlayBrowserGymFillTypedInputs(t *testing.T) {
	ts := pageServer(t, map[string]string{"/": `<!doctype html><title>typed</title><body style="margin:0">
<input id="date" type="date" aria-label="Date"><input id="time" type="time" aria-label="Time">
<input id="dtl" type="datetime-local" aria-label="When"><input id="month" type="month" aria-label="Month">
<input id="week" type="week" aria-label="Week"><input id="color" type="color" aria-label="Colour">
<input id="range" type="range" aria-label="Volume">
<script>
const inputs = {};
for (const el of document.querySelectorAll('input')) {
  el.addEventListener('input', () => { inputs[el.id] = (inputs[el.id] || 0) + 1; });
  el.addEventListener('change', () => { document.title = el.id + '=' + el.value + ' after ' + inputs[el.id] + ' input'; });
}
</script></body>`})
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "20")
	o := s.next()
	for _, c := range []struct{ name, id, value string }{
		{"Date", "date", "2024-01-15"},
		{"Time", "time", "13:45"},
		{"When", "dtl", "2024-01-15T13:45"},
		{"Month", "month", "2024-01"},
		{"Week", "week", "2024-W03"},
		{"Colour", "color", "#00ff00"},
		{"Volume", "range", "70"},
	} {
		bid := bidNamed(t, o, c.name)
		s.send(fmt.Sprintf("fill('%s', '%s')", bid, c.value))
		o = s.next()
		want := c.id + "=" + c.value + " after 1 input"
		if o["last_action_error"] != "" || gymInfo(o, "title") != want || !reflect.DeepEqual(gymOps(o), []string{"set_value"}) {
			t.Errorf("fill %s with %s: error %q, title %q (want %q), actions %v", c.name, c.value, o["last_action_error"], gymInfo(o, "title"), want, gymOps(o))
		}
	}
	bid := bidNamed(t, o, "Date")
	s.send(fmt.Sprintf("fill('%s', 'tomorrow')", bid))
	o = s.next()
	if o["last_action_error"] != "Error: Malformed value" || gymInfo(o, "title") != "range=70 after 1 input" {
		t.Errorf("a malformed date: error %q, title %q", o["last_action_error"], gymInfo(o, "title"))
	}
	s.send(fmt.Sprintf("clear('%s')", bid))
	if o = s.next(); o["last_action_error"] != "" || gymInfo(o, "title") != "date= after 2 input" {
		t.Errorf("clear a date: error %q, title %q", o["last_action_error"], gymInfo(o, "title"))
	}
	s.end()
}

// actionsPage logs what the page sees in its title, newest last.
const actionsPage = `<!doctype html><title>start</title><body style="margin:0;font:16px sans-serif">
<select id="one" aria-label="One"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select>
<select id="many" aria-label="Many" multiple><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select>
<div id="pad" style="position:absolute;left:0;top:200px;width:300px;height:100px;background:#ddd">pad</div>
<button id="before" style="position:absolute;left:0;top:320px">Before</button>
<input id="k" aria-label="Keys" style="position:absolute;left:100px;top:320px;width:200px">
<a href="/p2" style="position:absolute;left:0;top:360px">Next</a>
<script>
const log = [];
const put = (s) => { log.push(s); document.title = log.join('|'); };
for (const id of ['one', 'many']) {
  const el = document.getElementById(id);
  el.addEventListener('change', () => put(id + '=' + [...el.selectedOptions].map((o) => o.value).join(',')));
}
const pad = document.getElementById('pad');
pad.addEventListener('mousedown', (e) => put('down' + e.buttons));
pad.addEventListener('mouseup', (e) => put('up' + e.buttons));
pad.addEventListener('click', () => put('click'));
const k = document.getElementById('k');
k.addEventListener('keydown', (e) => put('kd:' + e.key + (e.ctrlKey ? '^' : '') + (e.metaKey ? 'M' : '') + (e.shiftKey ? 'S' : '')));
k.addEventListener('keyup', (e) => put('ku:' + e.key));
k.addEventListener('input', (e) => put('in:' + e.inputType + ':' + k.value));
document.getElementById('before').addEventListener('focus', () => put('focus:before'));
</script></body>`

// The BrowserGym actions beyond clicks and named keys, on a real page:
// select_option with one option (by label or value) and several,
// mouse_down and mouse_up apart, keyboard_down and keyboard_up apart,
// keyboard_insert_text, Playwright key combinations, go_forward, and a
// mouse_click outside the viewport (a silent no-op, as in BrowserGym).
func TestPlayBrowserGymMoreActions(t *testing.T) {
	ts := pageServer(t, map[string]string{"/": actionsPage, "/p2": `<title>p2</title><body>second</body>`})
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "40")
	o := s.next()
	one, many, keys := bidNamed(t, o, "One"), bidNamed(t, o, "Many"), bidNamed(t, o, "Keys")
	title := func(o map[string]any) string { return gymInfo(o, "title").(string) }
	for _, c := range []struct{ line, want, err string }{
		{fmt.Sprintf("select_option('%s', 'Blue')", one), "one=b", ""},
		{fmt.Sprintf("select_option('%s', 'g')", one), "one=g", ""},
		{fmt.Sprintf("select_option('%s', ['Red', 'b'])", many), "many=r,b", ""},
		{fmt.Sprintf("select_option('%s', 'Purple')", one), "many=r,b", `Error: no option of the <select> has the value or label "Purple"`},
		{"mouse_down(50, 250)", "down1", ""},
		{"mouse_up(60, 260)", "down1|up0|click", ""},
		{"mouse_click(900, 10)", "down1|up0|click", ""},
		{fmt.Sprintf("click('%s')", keys), "click", ""},
		{"keyboard_down('Shift')", "kd:ShiftS", ""},
		{"keyboard_up('Shift')", "kd:ShiftS|ku:Shift", ""},
		{fmt.Sprintf("press('%s', 'Control+c')", keys), "kd:Control^|kd:c^|ku:c|ku:Control", ""},
		{"keyboard_press('Meta+a')", "kd:MetaM|kd:aM|ku:a|ku:Meta", ""},
		{"keyboard_insert_text('héllo')", "ku:Meta|in:insertText:héllo", ""},
		{"keyboard_press('Shift+Tab')", "kd:ShiftS|kd:TabS|focus:before", ""},
		{"keyboard_down('Hyper')", "focus:before", `ValueError: keyboard_down: Unknown key: "Hyper"`},
	} {
		s.send(c.line)
		o = s.next()
		if !strings.HasSuffix(title(o), c.want) || !strings.HasPrefix(o["last_action_error"].(string), c.err) || (c.err == "") != (o["last_action_error"] == "") {
			t.Errorf("%s: title %q, want it to end with %q; last_action_error %q, want %q", c.line, title(o), c.want, o["last_action_error"], c.err)
		}
	}
	// A click outside the viewport performed nothing and failed nothing.
	before := gymInfo(o, "engine_step")
	s.send("mouse_click(10, 700)")
	if o = s.next(); o["last_action_error"] != "" || gymInfo(o, "engine_step") != before || gymOps(o) != nil {
		t.Errorf("mouse_click(10, 700): error %q, engine step %v (before %v), actions %v", o["last_action_error"], gymInfo(o, "engine_step"), before, gymOps(o))
	}
	// History both ways.
	for _, c := range []struct{ line, url string }{
		{fmt.Sprintf("click('%s')", bidNamed(t, o, "Next")), ts.URL + "/p2"},
		{"go_back()", ts.URL + "/"},
		{"go_forward()", ts.URL + "/p2"},
		{"go_forward()", ts.URL + "/p2"}, // nothing ahead: nothing happens
	} {
		s.send(c.line)
		if o = s.next(); o["url"] != c.url || o["last_action_error"] != "" {
			t.Errorf("%s: url %v, error %q; want %s", c.line, o["url"], o["last_action_error"], c.url)
		}
	}
	s.end()
}

// new_tab, tab_focus and tab_close act on real tabs, and open_pages_urls
// and active_page_index list them as BrowserGym does: in opening order,
// the active one's index.
func TestPlayBrowserGymTabs(t *testing.T) {
	ts := pageServer(t, map[string]string{"/": `<title>one</title><body>first</body>`, "/two": `<title>two</title><body>second</body>`})
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "20")
	s.next()
	blank := "about:blank"
	for _, c := range []struct {
		line   string
		urls   []any
		active float64
		err    string
	}{
		{"new_tab()", []any{ts.URL + "/", blank}, 1, ""},
		{"goto('" + ts.URL + "/two')", []any{ts.URL + "/", ts.URL + "/two"}, 1, ""},
		{"tab_focus(0)", []any{ts.URL + "/", ts.URL + "/two"}, 0, ""},
		{"tab_focus(5)", []any{ts.URL + "/", ts.URL + "/two"}, 0, "IndexError: list index out of range"},
		{"tab_close()", []any{ts.URL + "/two"}, 0, ""},
		{"tab_close()", []any{blank}, 0, ""},
	} {
		s.send(c.line)
		o := s.next()
		act := o["active_page_index"].([]any)
		if !reflect.DeepEqual(o["open_pages_urls"], c.urls) || len(act) != 1 || act[0] != c.active || !strings.HasPrefix(o["last_action_error"].(string), c.err) {
			t.Errorf("%s: open_pages_urls %v active %v error %q; want %v, %v, %q", c.line, o["open_pages_urls"], act, o["last_action_error"], c.urls, c.active, c.err)
		}
		if urls := c.urls; o["url"] != urls[int(c.active)] {
			t.Errorf("%s: url %v, want the active tab's %v", c.line, o["url"], urls[int(c.active)])
		}
	}
	s.end()
}

// A line may hold several calls, performed in order, as with BrowserGym's
// default multiaction=True; the first that fails stops the rest. With
// --multiaction=false such a line performs nothing and is answered with
// BrowserGym's multi-action error.
func TestPlayBrowserGymMultiaction(t *testing.T) {
	ts := pageServer(t, map[string]string{"/": `<!doctype html><title>start</title><body>
<button aria-label="A" onclick="document.title += '|a'">A</button><button aria-label="B" onclick="document.title += '|b'">B</button></body>`})
	single := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "20", "--multiaction=false")
	single.next()
	single.send(`click('a1') click('a2')`)
	if o := single.next(); o["last_action_error"] != `ValueError: Received a multi-action, only single-actions are allowed. Found "click('a2')" after the call at column 13 (multiaction is off: one call per action).` || gymInfo(o, "engine_step") != 0.0 {
		t.Errorf("--multiaction=false, two calls: last_action_error %q, engine step %v", o["last_action_error"], gymInfo(o, "engine_step"))
	}
	single.end()
	s := startGym(t, "--start-url", ts.URL+"/", "--max-steps", "20")
	o := s.next()
	a, b := bidNamed(t, o, "A"), bidNamed(t, o, "B")
	line := fmt.Sprintf("click('%s') click('%s')  # both", a, b)
	s.send(line)
	o = s.next()
	if gymInfo(o, "title") != "start|a|b" || o["last_action_error"] != "" || o["last_action"] != line || len(gymOps(o)) != 2 || gymInfo(o, "step") != 1.0 {
		t.Errorf("two calls: title %v, error %q, last_action %q, actions %v, step %v", gymInfo(o, "title"), o["last_action_error"], o["last_action"], gymOps(o), gymInfo(o, "step"))
	}
	s.send(fmt.Sprintf("click('%s') click('zz9') click('%s')", a, b))
	o = s.next()
	if gymInfo(o, "title") != "start|a|b|a" || o["last_action_error"] != `ValueError: Could not find element with bid "zz9"` {
		t.Errorf("a failing second call: title %v, error %q", gymInfo(o, "title"), o["last_action_error"])
	}
	s.end()
}
