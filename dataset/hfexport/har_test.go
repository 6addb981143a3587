package hfexport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"waymark/engine/har"
)

// harEntries are the captured requests of a small shop episode, as the
// recorder would store them: the start page (step 0), then a search and a
// sign-in with a password during step 2.
func harEntries(cookie, password string) (start, step2 []har.Entry) {
	start = []har.Entry{{Pageref: "page_1", StartedDateTime: "2026-11-02T09:00:00.100Z", Time: 12, Step: 0, ResourceType: "document",
		Request: har.Request{Method: "GET", URL: "http://shop.waymark.test/", HTTPVersion: "HTTP/1.1",
			Headers: []har.NameValue{{Name: "Cookie", Value: cookie}, {Name: "Accept", Value: "text/html"}}},
		Response: har.Response{Status: 200, StatusText: "OK", Content: har.Content{Size: 18234, MimeType: "text/html", Text: "<!doctype html><title>Shop</title>"}},
		Timings:  har.Timings{Send: 1, Wait: 10, Receive: 1}, TransferSize: 18500}}
	step2 = []har.Entry{
		{Pageref: "page_1", StartedDateTime: "2026-11-02T09:00:03.000Z", Time: 203, Step: 2, ResourceType: "fetch",
			Request: har.Request{Method: "GET", URL: "http://shop.waymark.test/api/products?q=boot", QueryString: []har.NameValue{{Name: "q", Value: "boot"}}},
			Response: har.Response{Status: 200, StatusText: "OK", Headers: []har.NameValue{{Name: "Content-Type", Value: "application/json"}},
				Content: har.Content{Size: 27, MimeType: "application/json", Text: `{"query":"boot","total":1}`}}},
		{Pageref: "page_1", StartedDateTime: "2026-11-02T09:00:04.000Z", Time: 9, Step: 2, ResourceType: "fetch",
			Request: har.Request{Method: "POST", URL: "http://forms.waymark.test/api/signin",
				PostData: &har.PostData{MimeType: "application/json", Text: `{"email":"a@b.co","password":"` + password + `"}`}},
			Response: har.Response{Status: 200, StatusText: "OK", Content: har.Content{Size: 50, MimeType: "application/json", Text: `{"email":"a@b.co","signedIn":true}`}}},
	}
	return start, step2
}

// TestExportHAR: with HAR, each exported episode recorded with capture gets
// har/<id>.har, a HAR 1.2 file equal to the store's capture (listed in the
// marker, so --force replaces it); a redacted capture stays redacted (a
// cookie the capture let through is redacted on the way out), a --no-redact
// capture is written as captured and the card names it; episodes without
// capture get no file. Without HAR, nothing of the capture is written.
func TestExportHAR(t *testing.T) {
	f := standard(t)
	sum := har.Summary{Redacted: true, RedactHeaders: har.DefaultHeaders, RedactKeys: har.DefaultKeys, BodyCap: 1 << 20, EpisodeCap: 64 << 20}
	pages := []har.Page{{ID: "page_1", StartedDateTime: "2026-11-02T09:00:00.000Z", Title: "Trailhead Outfitters", PageTimings: har.PageTimings{OnContentLoad: 40, OnLoad: 61}}}
	// ep-00-a: redacted, but one cookie slipped through (as a capture
	// with an older list might have left it).
	start, step2 := harEntries("session=abc123", har.Redacted)
	for _, es := range [][]har.Entry{start, step2} {
		if err := f.store.SaveHARChunk(t.Context(), "ep-00-a", es, sum, pages); err != nil {
			t.Fatal(err)
		}
	}
	// ep-01-a: recorded with --no-redact.
	raw := sum
	raw.Redacted, raw.RedactHeaders, raw.RedactKeys = false, nil, nil
	start, step2 = harEntries("session=xyz789", "hunter2")
	if err := f.store.SaveHARChunk(t.Context(), "ep-01-a", append(start, step2...), raw, pages); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "ds")
	o := opts(out)
	o.HAR = true
	res := mustExport(t, f, o)
	files, _ := filepath.Glob(filepath.Join(out, "har", "*"))
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	if want := []string{"ep-00-a.har", "ep-01-a.har"}; !slices.Equal(files, want) {
		t.Fatalf("har files %v, want %v", files, want)
	}
	for _, name := range []string{"har/ep-00-a.har", "har/ep-01-a.har"} {
		if !slices.Contains(res.Files, name) {
			t.Errorf("%s not among the export's files %v", name, res.Files)
		}
	}
	read := func(id string) (har.File, string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, "har", id+".har"))
		if err != nil {
			t.Fatal(err)
		}
		var hf har.File
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&hf); err != nil {
			t.Fatalf("%s.har does not parse as HAR: %v", id, err)
		}
		return hf, string(b)
	}
	for _, id := range []string{"ep-00-a", "ep-01-a"} {
		hf, text := read(id)
		stored, err := f.store.EpisodeHAR(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		l := hf.Log
		if l == nil || l.Version != "1.2" || l.Creator.Name != "waymark" || len(l.Entries) != 3 || len(l.Pages) != 1 || l.Pages[0].PageTimings.OnLoad != 61 {
			t.Fatalf("%s: log %+v", id, l)
		}
		if l.Comment != stored.Comment || l.Comment == "" {
			t.Errorf("%s: comment %q, want the store's %q", id, l.Comment, stored.Comment)
		}
		for i, e := range l.Entries {
			s := stored.Entries[i]
			if id == "ep-00-a" && i == 0 {
				s.Request.Headers = []har.NameValue{{Name: "Cookie", Value: "[redacted]"}, {Name: "Accept", Value: "text/html"}}
			}
			if s.Request.QueryString == nil {
				s.Request.QueryString = []har.NameValue{}
			}
			for _, p := range []*[]har.NameValue{&s.Request.Headers, &s.Response.Headers} {
				if *p == nil {
					*p = []har.NameValue{}
				}
			}
			s.Request.Cookies, s.Response.Cookies = []har.Cookie{}, []har.Cookie{}
			if s.Request.HTTPVersion == "" {
				s.Request.HTTPVersion = "HTTP/1.1"
			}
			if s.Response.HTTPVersion == "" {
				s.Response.HTTPVersion = s.Request.HTTPVersion
			}
			if !reflect.DeepEqual(e, s) {
				t.Errorf("%s entry %d:\n got  %+v\n want %+v", id, i, e, s)
			}
		}
		for _, w := range []string{`"_resourceType": "document"`, `"_step": 2`, `"_transferSize": 18500`} {
			if !strings.Contains(text, w) {
				t.Errorf("%s.har lacks %s", id, w)
			}
		}
	}
	if _, text := read("ep-00-a"); strings.Contains(text, "abc123") || !strings.Contains(text, `"password\":\"[redacted]\"`) {
		t.Errorf("ep-00-a.har leaks a secret:\n%s", text)
	}
	if _, text := read("ep-01-a"); !strings.Contains(text, "session=xyz789") || !strings.Contains(text, `hunter2`) {
		t.Error("ep-01-a.har (captured with --no-redact) should be as captured")
	}
	card, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"### Network traffic (HAR)", "`har/EPISODE_ID.har` holds the network traffic of an episode as a HAR 1.2 log (2 files, 6 requests, ",
		"is the `recorded_step` of the step", "files rather than a column",
		"**Not redacted:** 1 episodes were captured with `--no-redact`, so their HAR files keep headers, cookies and passwords as the browser sent them: ep-01-a.",
		"exported episodes were recorded without network capture and have no HAR file."} {
		if !strings.Contains(string(card), w) {
			t.Errorf("card lacks %q", w)
		}
	}
	if strings.Contains(string(card), "har/") && strings.Contains(string(card), "path: har") {
		t.Error("the card's configs must not list har/")
	}

	// Without --har: no folder, no section.
	out2 := filepath.Join(t.TempDir(), "plain")
	mustExport(t, f, opts(out2))
	if _, err := os.Stat(filepath.Join(out2, "har")); !os.IsNotExist(err) {
		t.Errorf("har/ written without --har: %v", err)
	}
	if card, _ := os.ReadFile(filepath.Join(out2, "README.md")); strings.Contains(string(card), "Network traffic") {
		t.Error("card mentions HAR without --har")
	}
}

// TestHARCardRedacted: every HAR file redacted; and HAR asked for with no
// capture at all.
func TestHARCardRedacted(t *testing.T) {
	var b strings.Builder
	writeHARCard(&b, &Options{HAR: true}, &harStats{files: 2, entries: 40, bytes: 12345, without: 0})
	want := "Secrets are redacted: the values of the headers Authorization, Cookie, Set-Cookie, Proxy-Authorization, X-Api-Key and of body, query and form fields named like password, passwd, secret, token read `[redacted]`."
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "Not redacted") || strings.Contains(b.String(), "without network capture") {
		t.Errorf("card:\n%s", b.String())
	}
	b.Reset()
	writeHARCard(&b, &Options{HAR: true}, &harStats{without: 3})
	if got := b.String(); got != "### Network traffic (HAR)\n\nHAR files were asked for, but none of the 3 exported episodes was recorded with network capture.\n\n" {
		t.Errorf("card: %q", got)
	}
	b.Reset()
	writeHARCard(&b, &Options{}, &harStats{files: 1})
	if b.Len() != 0 {
		t.Errorf("no --har, card: %q", b.String())
	}
}
