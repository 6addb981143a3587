package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// The few HAR 1.2 fields the catalogue reads. Parsing them here keeps the
// package independent of the writer's types: any HAR 1.2 file will do
// (Chromium's, Firefox's, Waymark's).
type harFile struct {
	Log struct {
		Pages   []struct{ Title string } `json:"pages"`
		Entries []harEntry               `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	ResourceType string `json:"_resourceType"`
	Request      struct {
		Method      string      `json:"method"`
		URL         string      `json:"url"`
		Headers     []nameValue `json:"headers"`
		QueryString []nameValue `json:"queryString"`
		PostData    *struct {
			MimeType string      `json:"mimeType"`
			Text     string      `json:"text"`
			Params   []nameValue `json:"params"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int         `json:"status"`
		Headers []nameValue `json:"headers"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func header(h []nameValue, name string) string {
	for _, nv := range h {
		if strings.EqualFold(nv.Name, name) {
			return nv.Value
		}
	}
	return ""
}

// mediaType is a content type without its parameters, lower case.
func mediaType(ct string) string {
	ct, _, _ = strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(ct))
}

func (e *harEntry) responseType() string {
	if t := mediaType(e.Response.Content.MimeType); t != "" {
		return t
	}
	return mediaType(header(e.Response.Headers, "Content-Type"))
}

func (e *harEntry) responseText() string {
	c := e.Response.Content
	if c.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(c.Text)
		if err != nil {
			return ""
		}
		return string(b)
	}
	return c.Text
}

func parseHAR(data []byte) (*harFile, error) {
	var f harFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a HAR file (JSON with a \"log\" object): %w", err)
	}
	if f.Log.Entries == nil && f.Log.Pages == nil {
		return nil, fmt.Errorf("not a HAR file: it has no \"log\" object with \"entries\"")
	}
	return &f, nil
}

// siteHost guesses the application's host in a log: the host of its first
// page load (a document request or an HTML response), else of its first
// page's title when that is a URL, else the most frequent host.
func (f *harFile) siteHost() string {
	for i := range f.Log.Entries {
		e := &f.Log.Entries[i]
		if e.ResourceType == "document" || (e.ResourceType == "" && e.responseType() == "text/html") {
			if u, err := url.Parse(e.Request.URL); err == nil && u.Host != "" {
				return strings.ToLower(u.Host)
			}
		}
	}
	for _, p := range f.Log.Pages {
		if u, err := url.Parse(p.Title); err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
			return strings.ToLower(u.Host)
		}
	}
	count := map[string]int{}
	best := ""
	for i := range f.Log.Entries {
		if u, err := url.Parse(f.Log.Entries[i].Request.URL); err == nil && u.Host != "" {
			h := strings.ToLower(u.Host)
			count[h]++
			if count[h] > count[best] || (count[h] == count[best] && h < best) {
				best = h
			}
		}
	}
	return best
}

var staticExt = map[string]bool{
	".css": true, ".js": true, ".mjs": true, ".map": true, ".png": true, ".jpg": true, ".jpeg": true,
	".gif": true, ".svg": true, ".ico": true, ".webp": true, ".avif": true, ".bmp": true, ".woff": true,
	".woff2": true, ".ttf": true, ".otf": true, ".eot": true, ".mp4": true, ".webm": true, ".mp3": true,
	".wav": true, ".ogg": true, ".wasm": true, ".html": true, ".htm": true, ".pdf": true, ".zip": true,
	".gz": true, ".txt": true, ".xml": true, ".webmanifest": true,
}

var staticPrefix = []string{
	"/static/", "/media/", "/_next/", "/assets/", "/__webpack", "/fonts/", "/images/", "/img/",
	"/css/", "/js/", "/dist/", "/build/", "/favicon", "/pub/static/", "/pub/media/",
}

// Resource types that are never API calls (Chromium's _resourceType).
var staticResource = map[string]bool{
	"document": true, "stylesheet": true, "image": true, "media": true, "font": true, "script": true,
	"texttrack": true, "manifest": true, "websocket": true, "ping": true, "cspviolationreport": true,
	"preflight": true, "signedexchange": true, "prefetch": true,
}

func staticMedia(t string) bool {
	switch {
	case t == "text/html", t == "application/xhtml+xml", t == "text/css",
		strings.Contains(t, "javascript"), strings.HasPrefix(t, "image/"), strings.HasPrefix(t, "font/"),
		strings.HasPrefix(t, "audio/"), strings.HasPrefix(t, "video/"), t == "application/font-woff",
		t == "application/wasm", t == "text/event-stream":
		return true
	}
	return false
}

// skipReason says why an entry is not one of the application's API calls
// ("" when it is one). hosts are the application's hosts (host[:port]).
func skipReason(e *harEntry, u *url.URL, hosts map[string]bool) string {
	if u.Scheme != "http" && u.Scheme != "https" {
		return "not http"
	}
	if !hosts[strings.ToLower(u.Host)] {
		return "other host"
	}
	m := strings.ToUpper(e.Request.Method)
	if m == "OPTIONS" || m == "HEAD" || m == "CONNECT" || m == "TRACE" {
		return "preflight"
	}
	if e.Response.Status <= 0 {
		return "no response"
	}
	if staticResource[strings.ToLower(e.ResourceType)] || strings.EqualFold(e.ResourceType, "iframe") {
		return "page or static resource"
	}
	p := strings.ToLower(u.Path)
	if staticExt[path.Ext(p)] {
		return "static file"
	}
	for _, pre := range staticPrefix {
		if strings.HasPrefix(p, pre) {
			return "static path"
		}
	}
	if staticMedia(e.responseType()) {
		return "page or static response"
	}
	return ""
}
