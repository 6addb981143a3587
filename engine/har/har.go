// Package har holds the HAR 1.2 types Waymark writes (with Chromium's own
// custom fields _resourceType and _transferSize, and Waymark's _step, the
// index of the step during which a request started), the redaction of
// secrets applied before anything is stored, and the writer of a HAR file.
// It imports only the standard library.
package har

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Version is the HAR format version written.
const Version = "1.2"

// File is a whole HAR document: {"log": {...}}.
type File struct {
	Log *Log `json:"log"`
}

// Log is the HAR log object.
type Log struct {
	Version string   `json:"version"`
	Creator Creator  `json:"creator"`
	Browser *Creator `json:"browser,omitempty"`
	Pages   []Page   `json:"pages"`
	Entries []Entry  `json:"entries"`
	Comment string   `json:"comment,omitempty"`
}

// Creator names the program that wrote the log (and the browser).
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Comment string `json:"comment,omitempty"`
}

// Page is one main-frame document of a tab.
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
	Comment         string      `json:"comment,omitempty"`
}

// PageTimings are milliseconds from the page's start; -1 when unknown.
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// Entry is one request and its response.
type Entry struct {
	Pageref         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           Cache    `json:"cache"`
	Timings         Timings  `json:"timings"`
	ServerIPAddress string   `json:"serverIPAddress,omitempty"`
	Connection      string   `json:"connection,omitempty"`
	Comment         string   `json:"comment,omitempty"`
	// Chromium's custom fields.
	ResourceType string `json:"_resourceType,omitempty"`
	TransferSize int64  `json:"_transferSize"`
	// Step is the index of the Waymark step during which the request
	// started (0: the reset).
	Step int `json:"_step"`
	// WebSocketMessages are a WebSocket's frames in order, as Chromium's
	// own HAR export writes them (an entry whose _resourceType is
	// websocket); only a recording's archive has such entries.
	WebSocketMessages []WSMessage `json:"_webSocketMessages,omitempty"`
}

// WSMessage is one WebSocket frame: "send" (the page's) or "receive".
type WSMessage struct {
	Type   string  `json:"type"`
	Time   float64 `json:"time"` // seconds since the epoch
	Opcode int     `json:"opcode"`
	Data   string  `json:"data"`
	// Step is the index of the Waymark step during which it went.
	Step int `json:"_step"`
}

// Request is the HAR request object.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// Response is the HAR response object.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
	// Error is Chromium's failure text (net::ERR_…) for a failed request.
	Error string `json:"_error,omitempty"`
}

// NameValue is a header, query parameter or form parameter.
type NameValue struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Comment string `json:"comment,omitempty"`
}

// Cookie is the HAR cookie object.
type Cookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Path     string `json:"path,omitempty"`
	Domain   string `json:"domain,omitempty"`
	Expires  string `json:"expires,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

// PostData is a request body.
type PostData struct {
	MimeType string  `json:"mimeType"`
	Params   []Param `json:"params,omitempty"`
	Text     string  `json:"text"`
	Comment  string  `json:"comment,omitempty"`
}

// Param is one posted form parameter.
type Param struct {
	Name        string `json:"name"`
	Value       string `json:"value,omitempty"`
	FileName    string `json:"fileName,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Comment     string `json:"comment,omitempty"`
}

// Content is a response body: Text is set only for the text types kept
// within the caps; Size is the decoded size either way.
type Content struct {
	Size        int64  `json:"size"`
	Compression int64  `json:"compression,omitempty"`
	MimeType    string `json:"mimeType"`
	Text        string `json:"text,omitempty"`
	Encoding    string `json:"encoding,omitempty"`
	Comment     string `json:"comment,omitempty"`
	// Hash is the SHA-256 (hex) of the body a recording's archive kept,
	// as the store keeps it (bodies are stored once per content); empty
	// in a plain HAR entry and when no body was kept.
	Hash string `json:"_sha256,omitempty"`
}

// Cache is the HAR cache object (Waymark leaves it empty).
type Cache struct {
	Comment string `json:"comment,omitempty"`
}

// Timings are the phases of a request in milliseconds; -1 when a phase
// does not apply. Send, Wait and Receive are never negative.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
	Comment string  `json:"comment,omitempty"`
}

// Total is the entry's time: the sum of the phases that apply (SSL is
// part of Connect, as HAR 1.2 says).
func (t Timings) Total() float64 {
	sum := 0.0
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait, t.Receive} {
		if v > 0 {
			sum += v
		}
	}
	return sum
}

// Time formats an instant as HAR wants it (ISO 8601 with milliseconds).
func Time(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// NewLog returns an empty log written by creator (e.g. "waymark", "1").
func NewLog(name, version string) *Log {
	return &Log{Version: Version, Creator: Creator{Name: name, Version: version}, Pages: []Page{}, Entries: []Entry{}}
}

// Write writes log as a HAR 1.2 file, indented. Nil slices become empty
// arrays, as the format requires arrays.
func Write(w io.Writer, log *Log) error {
	l := *log
	if l.Version == "" {
		l.Version = Version
	}
	if l.Pages == nil {
		l.Pages = []Page{}
	}
	l.Entries = make([]Entry, len(log.Entries))
	for i, e := range log.Entries {
		l.Entries[i] = e.normalized()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(File{Log: &l})
}

// normalized fills the arrays and fields HAR requires that may be missing.
func (e Entry) normalized() Entry {
	if e.Request.Cookies == nil {
		e.Request.Cookies = []Cookie{}
	}
	if e.Request.Headers == nil {
		e.Request.Headers = []NameValue{}
	}
	if e.Request.QueryString == nil {
		e.Request.QueryString = []NameValue{}
	}
	if e.Response.Cookies == nil {
		e.Response.Cookies = []Cookie{}
	}
	if e.Response.Headers == nil {
		e.Response.Headers = []NameValue{}
	}
	if e.Request.HTTPVersion == "" {
		e.Request.HTTPVersion = "HTTP/1.1"
	}
	if e.Response.HTTPVersion == "" {
		e.Response.HTTPVersion = e.Request.HTTPVersion
	}
	if e.Response.Content.MimeType == "" {
		e.Response.Content.MimeType = "x-unknown"
	}
	if e.Request.PostData != nil && e.Request.PostData.MimeType == "" {
		e.Request.PostData.MimeType = "application/octet-stream"
	}
	return e
}

// Capture is what a capturing engine hands over after a step: the entries
// complete since the last call, every page of the episode so far, and the
// capture's summary.
type Capture struct {
	// Off says the engine does not capture (the setting is off).
	Off     bool
	Entries []Entry
	Pages   []Page
	Summary Summary
	// Archive are the replay archive's records complete since the last
	// call: every response of every target of the episode (its body
	// named by Content.Hash), and each WebSocket's frames. They are
	// redacted as the entries are.
	Archive []Entry
	// Bodies are the archive's bodies new since the last call, by hash.
	Bodies map[string][]byte
}

// Summary describes an episode's capture: its settings and what was kept.
// It is stored beside the episode (with the pages) and becomes the log's
// comment.
type Summary struct {
	Redacted      bool     `json:"redacted"`
	RedactHeaders []string `json:"redact_headers,omitempty"`
	RedactKeys    []string `json:"redact_keys,omitempty"`
	BodyCap       int64    `json:"body_cap"`         // bytes per response body
	EpisodeCap    int64    `json:"episode_body_cap"` // bytes of bodies per episode
	BodyBytes     int64    `json:"body_bytes"`       // bytes of bodies kept
	BodiesDropped int      `json:"bodies_dropped"`   // bodies past the episode cap
	BodiesCut     int      `json:"bodies_over_cap"`  // bodies over the per-body cap
	Entries       int      `json:"entries"`
	Pages         []Page   `json:"pages,omitempty"`
	// The replay archive (Capture.Archive): records kept, bytes of the
	// bodies kept (each content once), bodies over the per-body cap and
	// bodies past the episode's cap (both named in their records).
	ArchiveEntries       int   `json:"archive_entries,omitempty"`
	ArchiveBytes         int64 `json:"archive_body_bytes,omitempty"`
	ArchiveBodiesCut     int   `json:"archive_bodies_over_cap,omitempty"`
	ArchiveBodiesDropped int   `json:"archive_bodies_dropped,omitempty"`
}

// Comment says in words what the summary means for a reader of the HAR.
func (s Summary) Comment() string {
	var b []string
	if s.Redacted {
		b = append(b, "secrets redacted (headers "+strings.Join(s.RedactHeaders, ", ")+"; fields named like "+strings.Join(s.RedactKeys, ", ")+")")
	} else {
		b = append(b, "NOT redacted: headers, cookies and passwords are as sent")
	}
	b = append(b, fmt.Sprintf("text response bodies kept up to %d bytes each and %d bytes per episode", s.BodyCap, s.EpisodeCap))
	if s.BodiesCut > 0 {
		b = append(b, fmt.Sprintf("%d bodies over the per-body cap were not kept", s.BodiesCut))
	}
	if s.BodiesDropped > 0 {
		b = append(b, fmt.Sprintf("the per-episode cap was reached: %d later bodies were dropped", s.BodiesDropped))
	}
	return strings.Join(b, "; ")
}
