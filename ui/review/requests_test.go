package review

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/har"
)

// tableText is the text of every cell of the requests table, a row per line,
// cells joined by " | ".
func tableText(t *testing.T, r *requestsPanel) string {
	t.Helper()
	rows, cols := r.table.Length()
	var b strings.Builder
	for row := range rows {
		for col := range cols {
			o := r.table.CreateCell()
			r.table.UpdateCell(widget.TableCellID{Row: row, Col: col}, o)
			if col > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(o.(*widget.Label).Text)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestRequestsPanel: the Requests tab lists the requests captured during
// the step shown (written to a real store through SaveHARChunk, in two
// chunks), follows ←/→, shows one request in full on a click and copies it;
// an episode recorded without capture says so.
func TestRequestsPanel(t *testing.T) {
	e := newEnv(t)
	ep, plain := e.eps[0], e.eps[1]
	sum := har.Summary{Redacted: true, RedactHeaders: []string{"Cookie"}, RedactKeys: []string{"password"}, BodyCap: 1 << 20, EpisodeCap: 64 << 20}
	page := []har.Page{{ID: "page_1", StartedDateTime: "2026-12-01T05:00:00.000Z", Title: "Shop", PageTimings: har.PageTimings{OnContentLoad: 40, OnLoad: 60}}}
	start := []har.Entry{{Pageref: "page_1", StartedDateTime: "2026-12-01T05:00:00.000Z", Time: 12, Step: 0, ResourceType: "document",
		Request:  har.Request{Method: "GET", URL: "http://shop.waymark.test/"},
		Response: har.Response{Status: 200, StatusText: "OK", Content: har.Content{Size: 18234, MimeType: "text/html"}}}}
	step2 := []har.Entry{
		{StartedDateTime: "2026-12-01T05:00:03.000Z", Time: 203, Step: 2, ResourceType: "fetch",
			Request: har.Request{Method: "GET", URL: "http://shop.waymark.test/api/products?q=boot", Headers: []har.NameValue{{Name: "Cookie", Value: "[redacted]"}}},
			Response: har.Response{Status: 200, StatusText: "OK", Headers: []har.NameValue{{Name: "Content-Type", Value: "application/json"}},
				Content: har.Content{Size: 512, MimeType: "application/json", Text: `{"query":"boot","total":1}`}}},
		{StartedDateTime: "2026-12-01T05:00:04.000Z", Time: 9, Step: 2, ResourceType: "fetch",
			Request: har.Request{Method: "POST", URL: "http://shop.waymark.test/api/orders",
				PostData: &har.PostData{MimeType: "application/json", Text: `{"seq":0,"password":"[redacted]"}`}},
			Response: har.Response{Status: 201, StatusText: "Created", Content: har.Content{Size: 1500, MimeType: "application/json"}}},
		{StartedDateTime: "2026-12-01T05:00:05.000Z", Step: 2, ResourceType: "image",
			Request:  har.Request{Method: "GET", URL: "https://cdn.example/pic.png"},
			Response: har.Response{Status: 0, Error: "net::ERR_NAME_NOT_RESOLVED"}},
	}
	if err := e.s.SaveHARChunk(t.Context(), ep, start, sum, page); err != nil {
		t.Fatal(err)
	}
	if err := e.s.SaveHARChunk(t.Context(), ep, step2, sum, nil); err != nil {
		t.Fatal(err)
	}
	it, _ := e.findItem(ep)
	e.tab.openItem(it)
	p := &e.tab.player
	r := &p.requests
	if r.tab == nil || !strings.Contains(tabTitles(e.tab), "Requests") {
		t.Fatalf("no Requests tab in the side panel: %s", tabTitles(e.tab))
	}
	// The player opens on step 1: nothing started then.
	if got := r.title.Text; got != "Step 1: no request started during this step." {
		t.Errorf("step 1: %q", got)
	}
	if got := tableText(t, r); got != "" {
		t.Errorf("step 1 rows: %q", got)
	}
	e.key(fyne.KeyRight)
	if got, want := r.title.Text, "Step 2: 3 requests. Click one for its detail."; got != want {
		t.Errorf("step 2: %q, want %q", got, want)
	}
	want := "GET | 200 | 512 B | shop.waymark.test/api/products?q=boot\n" +
		"POST | 201 | 1.5 kB | shop.waymark.test/api/orders\n" +
		"GET | failed | 0 B | cdn.example/pic.png\n"
	if got := tableText(t, r); got != want {
		t.Errorf("step 2 rows:\n%s\nwant:\n%s", got, want)
	}
	if !r.copyBtn.Disabled() || r.detail.Text != "" {
		t.Error("no row chosen yet: Copy should be off and no detail shown")
	}
	// A click on the POST row shows it in full; Copy copies that.
	r.table.Select(widget.TableCellID{Row: 1, Col: 3})
	for _, w := range []string{"POST http://shop.waymark.test/api/orders\n201 Created · 1.5 kB · fetch · 9 ms · step 2",
		"Request body (application/json)\n{\"seq\":0,\"password\":\"[redacted]\"}", "Response body (application/json): not kept"} {
		if !strings.Contains(r.detail.Text, w) {
			t.Errorf("detail lacks %q:\n%s", w, r.detail.Text)
		}
	}
	test.Tap(r.copyBtn)
	if got := fyne.CurrentApp().Clipboard().Content(); got != r.detail.Text || got == "" {
		t.Errorf("clipboard %q, want the detail", got)
	}
	r.table.Select(widget.TableCellID{Row: 2, Col: 0})
	if !strings.Contains(r.detail.Text, "failed: net::ERR_NAME_NOT_RESOLVED") {
		t.Errorf("failed request's detail:\n%s", r.detail.Text)
	}
	r.table.Select(widget.TableCellID{Row: 0, Col: 0})
	if !strings.Contains(r.detail.Text, "Cookie: [redacted]") || !strings.Contains(r.detail.Text, "Response body (application/json)\n{\"query\":\"boot\",\"total\":1}") {
		t.Errorf("GET detail:\n%s", r.detail.Text)
	}
	// Home: the start page's request; the detail is cleared.
	e.key(fyne.KeyHome)
	if got := r.title.Text; got != "The start page: 1 request. Click it for its detail." {
		t.Errorf("step 0: %q", got)
	}
	if got := tableText(t, r); got != "GET | 200 | 18.2 kB | shop.waymark.test/\n" {
		t.Errorf("step 0 rows: %q", got)
	}
	if r.detail.Text != "" || !r.copyBtn.Disabled() {
		t.Error("the detail of the previous step's request is still shown")
	}

	// An episode without capture.
	it, _ = e.findItem(plain)
	e.tab.openItem(it)
	if got := r.title.Text; got != "This episode was recorded without network capture: its requests were not kept." {
		t.Errorf("no capture: %q", got)
	}
	if got := tableText(t, r); got != "" {
		t.Errorf("no capture, rows: %q", got)
	}
}

func tabTitles(t *Tab) string {
	var s []string
	for _, it := range t.side.Items {
		s = append(s, it.Text)
	}
	return strings.Join(s, ", ")
}

func TestRequestCellSizes(t *testing.T) {
	for n, want := range map[int64]string{-1: "—", 0: "0 B", 999: "999 B", 1000: "1.0 kB", 999_949: "999.9 kB", 1_000_000: "1.0 MB", 12_345_678: "12.3 MB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
	long := strings.Repeat("é", 3000) // 6000 bytes
	got := clip(long)
	if !strings.HasPrefix(got, strings.Repeat("é", 2000)+"… (2000 more bytes") {
		t.Errorf("clip: %q…", got[:40])
	}
}
