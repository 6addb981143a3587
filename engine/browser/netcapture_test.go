package browser

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/har"
)

// harSite is the hermetic page set of the capture test: a page whose
// button makes a fetch GET with an Authorization header and a token in its
// query, a JSON POST with a password and a form POST with a passwd; a
// cross-site iframe (localhost, while the page is on 127.0.0.1: its own
// renderer, seen through its own CDP session) that fetches JSON when the
// button posts it a message; a redirect to a page that loads a 1.5 MiB JSON body (over
// the 1 MiB cap) and a small one.
func harSite(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	jsonOut := func(w http.ResponseWriter, v string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, v)
	}
	var port string
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<title>shop</title><body style="margin:0">
<button id="go" style="position:absolute;left:0;top:0;width:800px;height:300px">go</button>
<iframe src="http://localhost:`+port+`/frame" style="position:absolute;top:320px;width:400px;height:200px"></iframe>
<script>
document.getElementById('go').onclick = () => {
  document.querySelector('iframe').contentWindow.postMessage('go', '*');
  fetch('/api/items?q=shoes&token=abc' + '123', {headers: {'Authorization': 'Bearer sek' + 'rit-auth', 'X-Api-Key': 'key-' + '789'}}).then(r => r.json());
  fetch('/api/login', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({user: 'ann', password: 'hun' + 'ter2', profile: {secret_answer: 'blue-' + 'dog'}})}).then(r => r.text());
  const x = new XMLHttpRequest();
  x.open('POST', '/api/form');
  x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
  x.send('user=ann&passwd=pw-' + 'form');
};
</script></body>`)
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<title>frame</title><body>frame<script>addEventListener('message', () => fetch('/frame.json').then(r => r.json()))</script></body>`)
	})
	mux.HandleFunc("/frame.json", func(w http.ResponseWriter, r *http.Request) { jsonOut(w, `{"frame":"inner"}`) })
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
		jsonOut(w, `{"items":[{"id":7,"name":"shoes"}],"q":"`+r.URL.Query().Get("q")+`"}`)
	})
	mux.HandleFunc("/api/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "cookie-val", Path: "/"})
		jsonOut(w, `{"ok":true,"token":"tok-xyz"}`)
	})
	mux.HandleFunc("/api/form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/landing", http.StatusFound)
	})
	mux.HandleFunc("/landing", func(w http.ResponseWriter, r *http.Request) {
		html(w, `<title>landing</title><body>landing<script>fetch('/big.json'); fetch('/small.json')</script></body>`)
	})
	big := `{"pad":"` + strings.Repeat("x", 1536*1024) + `"}`
	mux.HandleFunc("/big.json", func(w http.ResponseWriter, r *http.Request) { jsonOut(w, big) })
	mux.HandleFunc("/small.json", func(w http.ResponseWriter, r *http.Request) { jsonOut(w, `{"small":true}`) })
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	port = ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	return ts
}

// harValidator installs the npm package har-validator (5.1.5, JSON Schema
// of HAR 1.2) once into a cache folder and returns the folder; the test is
// skipped when npm or the registry is not there.
func harValidator(t *testing.T) string {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: install Node.js and npm (apt-get install npm) to validate HAR files with har-validator")
	}
	dir := filepath.Join(os.TempDir(), "waymark-har-validator-5.1.5")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "har-validator", "package.json")); err == nil {
		return dir
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir, "har-validator@5.1.5")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm could not install har-validator (no registry?): %v\n%s", err, out)
	}
	return dir
}

// validateHAR runs har-validator on a HAR file; it returns its errors.
func validateHAR(t *testing.T, dir, file string) string {
	script := `const v = require(process.argv[1] + '/node_modules/har-validator');
const data = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
v.har(data).then(() => console.log('valid'), e => { console.log(JSON.stringify(e.errors || e.message)); process.exit(1); });`
	out, err := exec.Command("node", "-e", script, dir, file).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%v: %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "valid" {
		return string(out)
	}
	return ""
}

func TestHARCapture(t *testing.T) {
	ts := harSite(t)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Settings.HAR, o.Settings.ActionSet = true, action.SetExtended })
	var entries []har.Entry
	take := func(final bool) har.Capture {
		c := e.TakeHAR(final)
		entries = append(entries, c.Entries...)
		return c
	}
	reset(t, e, ts.URL+"/")
	take(false)
	x, y := 400, 150
	step(t, e, action.Action{Op: action.Click, X: &x, Y: &y})
	take(false)
	step(t, e, action.Action{Op: action.Goto, URL: ts.URL + "/redirect"})
	c := take(true)

	log := har.NewLog("waymark", "test")
	log.Browser = &har.Creator{Name: "Chromium", Version: e.version}
	log.Pages, log.Entries, log.Comment = c.Pages, entries, c.Summary.Comment()
	var buf bytes.Buffer
	if err := har.Write(&buf, log); err != nil {
		t.Fatal(err)
	}
	text := buf.String()

	t.Run("valid HAR 1.2", func(t *testing.T) {
		dir := harValidator(t)
		file := filepath.Join(t.TempDir(), "episode.har")
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg := validateHAR(t, dir, file); msg != "" {
			t.Errorf("har-validator refused the HAR: %s", msg)
		}
	})

	find := func(path string) *har.Entry {
		for i := range entries {
			u := entries[i].Request.URL
			if j := strings.Index(u, "//"); j >= 0 {
				u = u[j+2:]
			}
			if j := strings.IndexByte(u, '/'); j >= 0 && (u[j:] == path || strings.HasSuffix(path, "?") && strings.HasPrefix(u[j:], path)) {
				return &entries[i]
			}
		}
		return nil
	}
	want := []struct {
		path, typ string
		step      int
		status    int
	}{
		{"/", "document", 0, 200}, {"/frame", "document", 0, 200}, {"/frame.json", "fetch", 1, 200},
		{"/api/items?", "fetch", 1, 200}, {"/api/login", "fetch", 1, 200}, {"/api/form", "xhr", 1, 200},
		{"/redirect", "document", 2, 302}, {"/landing", "document", 2, 200}, {"/big.json", "fetch", 2, 200}, {"/small.json", "fetch", 2, 200},
	}
	for _, w := range want {
		en := find(w.path)
		if en == nil {
			t.Errorf("no entry for %s in:\n%s", w.path, summarize(entries))
			continue
		}
		if en.Step != w.step || en.ResourceType != w.typ || en.Response.Status != w.status {
			t.Errorf("%s: _step %d, _resourceType %q, status %d; want %d, %q, %d", w.path, en.Step, en.ResourceType, en.Response.Status, w.step, w.typ, w.status)
		}
		if en.Timings.Send < 0 || en.Timings.Wait < 0 || en.Timings.Receive < 0 || en.Time <= 0 {
			t.Errorf("%s: timings %+v, time %v", w.path, en.Timings, en.Time)
		}
	}
	if len(entries) > 14 {
		t.Errorf("%d entries, want at most 14 (10 requests and a favicon per origin):\n%s", len(entries), summarize(entries))
	}
	if en := find("/redirect"); en != nil && !strings.HasSuffix(en.Response.RedirectURL, "/landing") {
		t.Errorf("redirect's redirectURL = %q", en.Response.RedirectURL)
	}
	if en := find("/api/items?"); en != nil && !strings.Contains(en.Response.Content.Text, `"shoes"`) {
		t.Errorf("the JSON body of /api/items was not kept: %+v", en.Response.Content)
	}
	if en := find("/big.json"); en != nil && (en.Response.Content.Text != "" || !strings.Contains(en.Response.Content.Comment, "over the 1048576-byte cap") || en.Response.Content.Size != 1536*1024+10) {
		t.Errorf("big body: size %d, %d bytes of text kept, comment %q", en.Response.Content.Size, len(en.Response.Content.Text), en.Response.Content.Comment)
	}
	if en := find("/small.json"); en != nil && en.Response.Content.Text != `{"small":true}` {
		t.Errorf("small body = %q", en.Response.Content.Text)
	}
	if c.Summary.BodiesCut != 1 || c.Summary.BodiesDropped != 0 || !c.Summary.Redacted {
		t.Errorf("summary = %+v", c.Summary)
	}

	t.Run("redacted", func(t *testing.T) {
		for _, secret := range []string{"sekrit-auth", "key-789", "abc123", "hunter2", "blue-dog", "pw-form", "tok-xyz", "cookie-val"} {
			if strings.Contains(text, secret) {
				t.Errorf("the HAR still holds %q", secret)
			}
		}
		if en := find("/api/items?"); en != nil {
			if v := headerValue(en.Request.Headers, "Authorization"); v != "[redacted]" {
				t.Errorf("Authorization = %q", v)
			}
		}
		if en := find("/api/login"); en != nil {
			if en.Request.PostData == nil || en.Request.PostData.Text != `{"password":"[redacted]","profile":{"secret_answer":"[redacted]"},"user":"ann"}` {
				t.Errorf("login body = %+v", en.Request.PostData)
			}
			if len(en.Response.Cookies) != 1 || en.Response.Cookies[0].Name != "sid" || en.Response.Cookies[0].Value != "[redacted]" {
				t.Errorf("login response cookies = %+v", en.Response.Cookies)
			}
		}
		if en := find("/small.json"); en != nil {
			if v := headerValue(en.Request.Headers, "Cookie"); v != "[redacted]" {
				t.Errorf("the cookie sent with /small.json = %q, want it redacted (headers %+v)", v, en.Request.Headers)
			}
		}
	})

	t.Run("pages", func(t *testing.T) {
		ids := map[string]bool{}
		for _, p := range c.Pages {
			ids[p.ID] = true
		}
		if len(c.Pages) != 2 || c.Pages[0].PageTimings.OnLoad <= 0 || c.Pages[0].PageTimings.OnContentLoad <= 0 ||
			c.Pages[0].PageTimings.OnLoad < c.Pages[0].PageTimings.OnContentLoad {
			t.Fatalf("pages = %+v, want 2 with load timings", c.Pages)
		}
		if !strings.HasSuffix(c.Pages[1].Title, "/landing") {
			t.Errorf("second page = %+v", c.Pages[1])
		}
		for _, p := range []string{"/", "/api/login"} {
			if en := find(p); en != nil && en.Pageref != c.Pages[0].ID {
				t.Errorf("%s pageref %q, want %q", p, en.Pageref, c.Pages[0].ID)
			}
		}
		if en := find("/small.json"); en != nil && en.Pageref != c.Pages[1].ID {
			t.Errorf("/small.json pageref %q, want %q", en.Pageref, c.Pages[1].ID)
		}
	})

	t.Run("episode cap", func(t *testing.T) {
		e.set.HAREpisodeCap = 100
		reset(t, e, ts.URL+"/landing")
		c := e.TakeHAR(true)
		if c.Summary.BodiesDropped < 1 || !strings.Contains(c.Summary.Comment(), "per-episode cap was reached") {
			t.Errorf("summary %+v; comment %q", c.Summary, c.Summary.Comment())
		}
		dropped := 0
		for _, en := range c.Entries {
			if strings.Contains(en.Response.Content.Comment, "body dropped") {
				dropped++
			}
		}
		if dropped != c.Summary.BodiesDropped {
			t.Errorf("%d entries say their body was dropped, the summary %d", dropped, c.Summary.BodiesDropped)
		}
	})

	t.Run("off", func(t *testing.T) {
		e.set.HAR = false
		reset(t, e, ts.URL+"/landing")
		if c := e.TakeHAR(true); !c.Off || len(c.Entries) != 0 {
			t.Errorf("capture off: %+v", c)
		}
	})
}

func summarize(es []har.Entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%d %s %s %d %s\n", e.Step, e.Request.Method, e.Request.URL, e.Response.Status, e.ResourceType)
	}
	return b.String()
}
