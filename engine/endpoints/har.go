package endpoints

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"waymark/engine/har"
)

func header(h []har.NameValue, name string) string {
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

// responseType is the media type of e's response.
func responseType(e *har.Entry) string {
	if t := mediaType(e.Response.Content.MimeType); t != "" {
		return t
	}
	return mediaType(header(e.Response.Headers, "Content-Type"))
}

// responseText is e's response body as text (base64 decoded).
func responseText(e *har.Entry) string {
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

// parseHAR reads a HAR 1.2 document into the model Waymark writes
// (engine/har): any HAR 1.2 file will do (Chromium's, Firefox's,
// Waymark's); fields the model does not name are ignored.
func parseHAR(data []byte) (*har.File, error) {
	var f har.File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a HAR file (JSON with a \"log\" object): %w", err)
	}
	if f.Log == nil || (f.Log.Entries == nil && f.Log.Pages == nil) {
		return nil, fmt.Errorf("not a HAR file: it has no \"log\" object with \"entries\"")
	}
	return &f, nil
}

// siteHost guesses the application's host in a log: the host of its first
// page load (a document request or an HTML response), else of its first
// page's title when that is a URL, else the most frequent host.
func siteHost(l *har.Log) string {
	for i := range l.Entries {
		e := &l.Entries[i]
		if e.ResourceType == "document" || (e.ResourceType == "" && responseType(e) == "text/html") {
			if u, err := url.Parse(e.Request.URL); err == nil && u.Host != "" {
				return strings.ToLower(u.Host)
			}
		}
	}
	for _, p := range l.Pages {
		if u, err := url.Parse(p.Title); err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
			return strings.ToLower(u.Host)
		}
	}
	count := map[string]int{}
	best := ""
	for i := range l.Entries {
		if u, err := url.Parse(l.Entries[i].Request.URL); err == nil && u.Host != "" {
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
func skipReason(e *har.Entry, u *url.URL, hosts map[string]bool) string {
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
	if staticMedia(responseType(e)) {
		return "page or static response"
	}
	return ""
}
