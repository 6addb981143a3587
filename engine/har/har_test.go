package har

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactEntry(t *testing.T) {
	e := Entry{
		Request: Request{
			Method: "POST",
			URL:    "http://shop.test/api/login?user=ann&access_token=abc%20d&x=1#top",
			Headers: []NameValue{{Name: "authorization", Value: "Bearer s3cr3t"}, {Name: "Cookie", Value: "sid=1"},
				{Name: "X-Api-Key", Value: "k"}, {Name: "X-Shop-Session", Value: "zz"}, {Name: "Accept", Value: "*/*"}, {Name: "Referer", Value: "http://shop.test/?session_token=rt1"}},
			Cookies:     []Cookie{{Name: "sid", Value: "1"}},
			QueryString: []NameValue{{Name: "user", Value: "ann"}, {Name: "access_token", Value: "abc d"}},
			PostData: &PostData{MimeType: "application/json",
				Text: `{"user":"ann","Password":"hunter2","nested":{"list":[{"api_secret":"x","n":1.50}]},"refresh_token":{"a":1}}`},
		},
		Response: Response{
			Headers:     []NameValue{{Name: "Set-Cookie", Value: "sid=2; HttpOnly"}, {Name: "Content-Type", Value: "application/json"}, {Name: "location", Value: "/next?passwd=p"}},
			Cookies:     []Cookie{{Name: "sid", Value: "2", HTTPOnly: true}},
			RedirectURL: "/next?passwd=p",
			Content:     Content{MimeType: "application/json; charset=utf-8", Text: `{"token":"t1","name":"ann"}`},
		},
	}
	r := NewRedactor([]string{"x-shop-*"}, nil)
	r.Entry(&e)
	b, _ := json.Marshal(e)
	got := string(b)
	for _, leak := range []string{"s3cr3t", "sid=1", `"k"`, "zz", "hunter2", `"x"`, "abc", "t1", "sid=2", "passwd=p", "rt1"} {
		if strings.Contains(got, leak) {
			t.Errorf("redacted entry still has %s:\n%s", leak, got)
		}
	}
	if e.Request.URL != "http://shop.test/api/login?user=ann&access_token=%5Bredacted%5D&x=1#top" {
		t.Errorf("URL = %s", e.Request.URL)
	}
	if e.Request.PostData.Text != `{"Password":"[redacted]","nested":{"list":[{"api_secret":"[redacted]","n":1.50}]},"refresh_token":"[redacted]","user":"ann"}` {
		t.Errorf("JSON body = %s", e.Request.PostData.Text)
	}
	if e.Response.Content.Text != `{"name":"ann","token":"[redacted]"}` {
		t.Errorf("response = %s", e.Response.Content.Text)
	}
	if e.Request.Headers[4].Value != "*/*" || e.Request.QueryString[0].Value != "ann" || e.Response.Headers[1].Value != "application/json" {
		t.Errorf("a harmless value was redacted: %+v %+v", e.Request.Headers, e.Request.QueryString)
	}
	if e.Request.Cookies[0].Value != "[redacted]" || e.Request.Cookies[0].Name != "sid" || e.Response.Cookies[0].Value != "[redacted]" {
		t.Errorf("cookies = %+v %+v", e.Request.Cookies, e.Response.Cookies)
	}
}

func TestRedactForms(t *testing.T) {
	r := NewRedactor(nil, []string{"pin"})
	pd := &PostData{MimeType: "application/x-www-form-urlencoded", Text: "user=ann&password=hunter2&PIN=1234&q=a%26b",
		Params: []Param{{Name: "user", Value: "ann"}, {Name: "password", Value: "hunter2"}}}
	r.postData(pd)
	if pd.Text != "user=ann&password=%5Bredacted%5D&PIN=%5Bredacted%5D&q=a%26b" || pd.Params[1].Value != "[redacted]" || pd.Params[0].Value != "ann" {
		t.Errorf("form = %q %+v", pd.Text, pd.Params)
	}
	mp := &PostData{MimeType: "multipart/form-data; boundary=X", Text: "--X\r\nContent-Disposition: form-data; name=\"passwd\"\r\n\r\nhunter2\r\n--X--"}
	r.postData(mp)
	if mp.Text != "[redacted]" {
		t.Errorf("multipart = %q", mp.Text)
	}
	nj := &PostData{MimeType: "text/plain", Text: "password is hunter2"}
	r.postData(nj)
	if nj.Text != "password is hunter2" {
		t.Errorf("plain text changed: %q", nj.Text)
	}
}

func TestWriteFillsRequiredArrays(t *testing.T) {
	l := NewLog("waymark", "1")
	l.Entries = append(l.Entries, Entry{StartedDateTime: "2026-01-01T00:00:00.000Z", Step: 3,
		Request: Request{Method: "GET", URL: "http://a.test/"}, Response: Response{Status: 200}})
	var b strings.Builder
	if err := Write(&b, l); err != nil {
		t.Fatal(err)
	}
	var f map[string]map[string]any
	if err := json.Unmarshal([]byte(b.String()), &f); err != nil {
		t.Fatal(err)
	}
	e := f["log"]["entries"].([]any)[0].(map[string]any)
	req, resp := e["request"].(map[string]any), e["response"].(map[string]any)
	if req["cookies"] == nil || req["headers"] == nil || req["queryString"] == nil || resp["cookies"] == nil ||
		resp["content"].(map[string]any)["mimeType"] != "x-unknown" || req["httpVersion"] != "HTTP/1.1" || e["_step"] != 3.0 {
		t.Errorf("entry = %v", e)
	}
	if f["log"]["version"] != "1.2" {
		t.Errorf("version = %v", f["log"]["version"])
	}
}

// Media types with a +json structured-syntax suffix (RFC 6839) are JSON:
// their secret fields are redacted in request and response bodies alike.
func TestRedactJSONSuffixMediaTypes(t *testing.T) {
	for _, mt := range []string{"application/vnd.api+json", "application/problem+json", "application/hal+json; charset=utf-8", "Application/VND.API+JSON"} {
		e := Entry{
			Request: Request{Method: "POST", URL: "http://shop.test/api",
				PostData: &PostData{MimeType: mt, Text: `{"data":{"attributes":{"user":"ann","password":"hunter2"}}}`}},
			Response: Response{Content: Content{MimeType: mt, Text: `{"title":"ok","token":"t1"}`}},
		}
		NewRedactor(nil, nil).Entry(&e)
		if got, want := e.Request.PostData.Text, `{"data":{"attributes":{"password":"[redacted]","user":"ann"}}}`; got != want {
			t.Errorf("%s request body = %s, want %s", mt, got, want)
		}
		if got, want := e.Response.Content.Text, `{"title":"ok","token":"[redacted]"}`; got != want {
			t.Errorf("%s response body = %s, want %s", mt, got, want)
		}
	}
}

// A secret-named key hides its whole value, whatever it holds: a string, a
// number, null, an object or an array (of strings or of objects), at any
// depth, in request and response bodies alike.
func TestRedactEveryValueUnderASecretKey(t *testing.T) {
	body := `{"user":"ann","token":["a1","b2"],"tokens":[{"v":"c3"}],"secret":null,"pin_password":1234,` +
		`"session":{"id":"s1","refresh_token":{"value":"d4","exp":[1,2]}},"items":[[{"api_secret":"e5"}],{"name":"ok"}]}`
	want := `{"items":[[{"api_secret":"[redacted]"}],{"name":"ok"}],"pin_password":"[redacted]","secret":"[redacted]",` +
		`"session":{"id":"s1","refresh_token":"[redacted]"},"token":"[redacted]","tokens":"[redacted]","user":"ann"}`
	e := Entry{
		Request:  Request{Method: "POST", URL: "http://shop.test/api", PostData: &PostData{MimeType: "application/json", Text: body}},
		Response: Response{Content: Content{MimeType: "application/json", Text: body}},
	}
	NewRedactor(nil, nil).Entry(&e)
	if e.Request.PostData.Text != want {
		t.Errorf("request body = %s\nwant %s", e.Request.PostData.Text, want)
	}
	if e.Response.Content.Text != want {
		t.Errorf("response body = %s\nwant %s", e.Response.Content.Text, want)
	}
	top := `[{"password":"p1"},{"list":[{"token":"t1"}]},"plain"]`
	if got, ok := NewRedactor(nil, nil).JSON(top); !ok || got != `[{"password":"[redacted]"},{"list":[{"token":"[redacted]"}]},"plain"]` {
		t.Errorf("top-level array = %s, %v", got, ok)
	}
}

// A body that parses as JSON is redacted as JSON when its content type is
// missing or text/plain (a fetch() of a JSON string sends text/plain; a
// server may answer JSON without a type), in a request and in a response.
// Text that only starts like JSON, or is not JSON, is left as it was.
func TestRedactUntypedJSONBodies(t *testing.T) {
	for _, mt := range []string{"", "text/plain", "text/plain;charset=UTF-8", "Text/Plain"} {
		e := Entry{
			Request: Request{Method: "POST", URL: "http://shop.test/api",
				PostData: &PostData{MimeType: mt, Text: ` {"user":"ann","password":"hunter2"}`}},
			Response: Response{Content: Content{MimeType: mt, Text: "\n[{\"token\":\"t1\",\"n\":2}]"}},
		}
		NewRedactor(nil, nil).Entry(&e)
		if got, want := e.Request.PostData.Text, `{"password":"[redacted]","user":"ann"}`; got != want {
			t.Errorf("%q request body = %s, want %s", mt, got, want)
		}
		if got, want := e.Response.Content.Text, `[{"n":2,"token":"[redacted]"}]`; got != want {
			t.Errorf("%q response body = %s, want %s", mt, got, want)
		}
	}
	for _, text := range []string{"password=hunter2", "{password: hunter2", "[token] t1"} {
		e := Entry{Response: Response{Content: Content{MimeType: "text/plain", Text: text}}}
		NewRedactor(nil, nil).Entry(&e)
		if e.Response.Content.Text != text {
			t.Errorf("plain text %q became %q", text, e.Response.Content.Text)
		}
	}
	// An HTML or JavaScript response is not parsed as JSON even if it
	// happens to be one.
	e := Entry{Response: Response{Content: Content{MimeType: "text/html", Text: `{"token":"t1"}`}}}
	NewRedactor(nil, nil).Entry(&e)
	if e.Response.Content.Text != `{"token":"t1"}` {
		t.Errorf("HTML response = %s", e.Response.Content.Text)
	}
}

// Several JSON documents in one body (JSON lines, or concatenated) are
// each redacted: a secret in the second is as secret as in the first.
func TestRedactEveryDocumentOfAJSONStream(t *testing.T) {
	for _, c := range []struct{ mt, in, want string }{
		{"application/json", "{\"a\":1}\n{\"password\":\"p2\"}\n", "{\"a\":1}\n{\"password\":\"[redacted]\"}"},
		{"application/x-ndjson", "{\"token\":\"t1\"}\n{\"b\":[{\"secret\":\"s2\"}]}", "{\"token\":\"[redacted]\"}\n{\"b\":[{\"secret\":\"[redacted]\"}]}"},
		{"", `{"a":1}{"token":"t2"}`, "{\"a\":1}\n{\"token\":\"[redacted]\"}"},
	} {
		e := Entry{
			Request:  Request{Method: "POST", URL: "http://shop.test/api", PostData: &PostData{MimeType: c.mt, Text: c.in}},
			Response: Response{Content: Content{MimeType: c.mt, Text: c.in}},
		}
		NewRedactor(nil, nil).Entry(&e)
		if e.Request.PostData.Text != c.want {
			t.Errorf("%q request body %q = %q, want %q", c.mt, c.in, e.Request.PostData.Text, c.want)
		}
		if e.Response.Content.Text != c.want {
			t.Errorf("%q response body %q = %q, want %q", c.mt, c.in, e.Response.Content.Text, c.want)
		}
	}
	// A stream whose rest is not JSON keeps its documents, redacted, and
	// loses the rest: unread text cannot be known to hold no secret.
	e := Entry{Response: Response{Content: Content{MimeType: "application/json", Text: "{\"token\":\"t1\"}\nnot json password=p"}}}
	NewRedactor(nil, nil).Entry(&e)
	if got, want := e.Response.Content.Text, "{\"token\":\"[redacted]\"}\n[redacted]"; got != want {
		t.Errorf("broken JSON stream = %q, want %q", got, want)
	}
	// A stream with no secret is kept as it was written.
	if got, ok := NewRedactor(nil, nil).JSON("{\"a\": 1}\n{\"b\": 2}\n"); !ok || got != "{\"a\": 1}\n{\"b\": 2}\n" {
		t.Errorf("stream without a secret = %q, %v", got, ok)
	}
}

// Write fills what HAR requires and leaves what is there: an empty version
// becomes 1.2, nil pages an empty array; per entry, missing arrays become
// empty ones, a missing HTTP version HTTP/1.1 (the response's the
// request's), a missing content type x-unknown, a request body's missing
// type application/octet-stream — and each present value is kept.
func TestWriteFillsOnlyWhatIsMissing(t *testing.T) {
	l := &Log{Creator: Creator{Name: "w", Version: "1"}, Entries: []Entry{
		{Request: Request{Method: "POST", URL: "http://a.test/", PostData: &PostData{Text: "x"}}},
		{Request: Request{Method: "POST", URL: "http://a.test/", HTTPVersion: "HTTP/2", PostData: &PostData{MimeType: "text/plain", Text: "y"}}},
		{Request: Request{Method: "GET", URL: "http://a.test/", HTTPVersion: "HTTP/2",
			Cookies: []Cookie{{Name: "c", Value: "1"}}, Headers: []NameValue{{Name: "A", Value: "1"}}, QueryString: []NameValue{{Name: "q", Value: "1"}}},
			Response: Response{HTTPVersion: "HTTP/1.0", Cookies: []Cookie{{Name: "d", Value: "2"}}, Headers: []NameValue{{Name: "B", Value: "2"}},
				Content: Content{MimeType: "text/html"}}},
	}}
	var b strings.Builder
	if err := Write(&b, l); err != nil {
		t.Fatal(err)
	}
	var f struct {
		Log struct {
			Version string            `json:"version"`
			Pages   []json.RawMessage `json:"pages"`
			Entries []Entry           `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal([]byte(b.String()), &f); err != nil {
		t.Fatal(err)
	}
	if f.Log.Version != "1.2" || f.Log.Pages == nil || !strings.Contains(b.String(), `"pages": []`) {
		t.Errorf("version %q, pages %v:\n%s", f.Log.Version, f.Log.Pages, b.String())
	}
	if strings.Contains(b.String(), "null") {
		t.Errorf("a null in the HAR:\n%s", b.String())
	}
	e := f.Log.Entries
	type v struct{ reqV, respV, mime, postMime string }
	got := []v{}
	for _, x := range e {
		pm := ""
		if x.Request.PostData != nil {
			pm = x.Request.PostData.MimeType
		}
		got = append(got, v{x.Request.HTTPVersion, x.Response.HTTPVersion, x.Response.Content.MimeType, pm})
	}
	want := []v{{"HTTP/1.1", "HTTP/1.1", "x-unknown", "application/octet-stream"}, {"HTTP/2", "HTTP/2", "x-unknown", "text/plain"}, {"HTTP/2", "HTTP/1.0", "text/html", ""}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	full := e[2]
	if len(full.Request.Cookies) != 1 || len(full.Request.Headers) != 1 || len(full.Request.QueryString) != 1 ||
		len(full.Response.Cookies) != 1 || len(full.Response.Headers) != 1 || full.Response.Headers[0].Name != "B" {
		t.Errorf("present arrays were not kept: %+v", full)
	}
	// A log with its own version keeps it.
	b.Reset()
	if err := Write(&b, &Log{Version: "1.3"}); err != nil || !strings.Contains(b.String(), `"version": "1.3"`) {
		t.Errorf("version 1.3 written as:\n%s", b.String())
	}
	// The caller's log is not changed.
	if l.Version != "" || l.Pages != nil || l.Entries[0].Request.HTTPVersion != "" {
		t.Errorf("Write changed its argument: %+v", l)
	}
}

// An entry's time adds the phases that apply; -1 (not applicable) counts
// nothing.
func TestTimingsTotal(t *testing.T) {
	if got := (Timings{Blocked: -1, DNS: 2, Connect: 0, SSL: 9, Send: 1.5, Wait: 3, Receive: 0.5}).Total(); got != 7 {
		t.Errorf("Total = %v, want 7", got)
	}
}

// URLs: a query at the very start (a bare "?…") is a query; an escaped
// name is compared unescaped; a query parameter in the fragment (an OAuth
// implicit grant's redirect: Location: …/cb#access_token=…) is redacted
// as one in the query is; a fragment that is no parameter list is kept.
func TestRedactURLForms(t *testing.T) {
	r := NewRedactor(nil, nil)
	for in, want := range map[string]string{
		"?token=x&a=1":                               "?token=%5Bredacted%5D&a=1",
		"http://a.test/p?pass%77ord=x&a=1":           "http://a.test/p?pass%77ord=%5Bredacted%5D&a=1",
		"http://a.test/p?a=1#top":                    "http://a.test/p?a=1#top",
		"http://a.test/cb#access_token=xyz&state=s1": "http://a.test/cb#access_token=%5Bredacted%5D&state=s1",
		"http://a.test/cb?code=1#id_token=xyz":       "http://a.test/cb?code=1#id_token=%5Bredacted%5D",
		"http://a.test/?#token=x":                    "http://a.test/?#token=%5Bredacted%5D",
		"http://a.test/page#section-2":               "http://a.test/page#section-2",
		"http://a.test/page":                         "http://a.test/page",
	} {
		if got := r.URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The capture's comment in words, literally: redacted or not, the caps,
// and the counts of bodies left out only when there are some.
func TestSummaryComment(t *testing.T) {
	s := Summary{Redacted: true, RedactHeaders: []string{"authorization", "cookie"}, RedactKeys: []string{"password", "token"}, BodyCap: 1 << 20, EpisodeCap: 64 << 20}
	if got, want := s.Comment(), "secrets redacted (headers authorization, cookie; fields named like password, token); text response bodies kept up to 1048576 bytes each and 67108864 bytes per episode"; got != want {
		t.Errorf("comment:\n got %s\nwant %s", got, want)
	}
	s = Summary{BodyCap: 10, EpisodeCap: 20, BodiesCut: 1, BodiesDropped: 2}
	if got, want := s.Comment(), "NOT redacted: headers, cookies and passwords are as sent; text response bodies kept up to 10 bytes each and 20 bytes per episode; 1 bodies over the per-body cap were not kept; the per-episode cap was reached: 2 later bodies were dropped"; got != want {
		t.Errorf("comment:\n got %s\nwant %s", got, want)
	}
}
