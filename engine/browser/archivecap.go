package browser

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"waymark/engine/har"
)

// The replay archive of a recording (engine.Archive's other side): every
// response of every target of the episode, taken from the browser's Fetch
// domain at the response stage (fetchroute.go) as it reaches the browser,
// with its body, and every WebSocket frame from the tab's Network events.
// The records are HAR entries (har.Capture.Archive), redacted like the HAR
// capture's; the bodies are handed over once per content, by SHA-256.

// archiveRecorder keeps one episode's archive; it belongs to the episode's
// netCapture and shares its lock.
type archiveRecorder struct {
	c *netCapture
}

// response keeps a paused response and lets it go on.
func (a *archiveRecorder) response(r *fetchRouter, ev *fetch.EventRequestPaused) {
	defer r.resume(ev.RequestID)
	c := a.c
	req := ev.Request
	if req == nil {
		return
	}
	e := har.Entry{StartedDateTime: har.Time(time.Now()), ResourceType: strings.ToLower(string(ev.ResourceType))}
	if e.ResourceType == "" {
		e.ResourceType = "other"
	}
	u := req.URL // without the fragment, which is never sent
	e.Request = har.Request{Method: req.Method, URL: u, Headers: headerList(req.Headers), QueryString: queryList(u), HeadersSize: -1}
	e.Request.Cookies = requestCookies(e.Request.Headers)
	if req.HasPostData {
		var b strings.Builder
		for _, pe := range req.PostDataEntries {
			b.Write(pe.Bytes)
		}
		e.Request.PostData = &har.PostData{MimeType: headerValue(e.Request.Headers, "Content-Type"), Text: b.String()}
		e.Request.BodySize = int64(b.Len())
	}
	status := int(ev.ResponseStatusCode)
	e.Response = har.Response{Status: status, StatusText: ev.ResponseStatusText, HTTPVersion: "HTTP/1.1", HeadersSize: -1, BodySize: -1,
		Content: har.Content{MimeType: "x-unknown"}}
	for _, h := range ev.ResponseHeaders {
		e.Response.Headers = append(e.Response.Headers, har.NameValue{Name: h.Name, Value: h.Value})
	}
	e.Response.Cookies = responseCookies(e.Response.Headers)
	if mt := headerValue(e.Response.Headers, "Content-Type"); mt != "" {
		e.Response.Content.MimeType = mt
	}
	if ev.ResponseErrorReason != "" {
		e.Response.Error = "net::ERR_" + errorName(ev.ResponseErrorReason)
	}
	if status >= 300 && status < 400 {
		e.Response.RedirectURL = headerValue(e.Response.Headers, "Location")
	}

	c.mu.Lock()
	e.Step = c.step
	if s, ok := c.started[ev.NetworkID]; ok && ev.NetworkID != "" {
		e.Step = s
	}
	closed := c.closed
	if !closed {
		// The episode's end waits for this response to reach the HAR.
		c.reading++
		if ev.NetworkID != "" {
			c.answered[ev.NetworkID] = true
		}
	}
	c.mu.Unlock()
	if closed {
		return
	}
	defer func() {
		c.mu.Lock()
		c.reading--
		c.mu.Unlock()
	}()
	var body []byte
	keep := ev.ResponseErrorReason == "" && status != 204 && status != 304 && (status < 300 || status >= 400) && req.Method != "HEAD"
	if n, err := strconv.ParseInt(headerValue(e.Response.Headers, "Content-Length"), 10, 64); keep && err == nil && n > c.bodyCap {
		// Not read at all: the response is paused while its body is read,
		// and one over the cap would not be kept anyway.
		keep = false
		c.mu.Lock()
		e.Response.Content.Comment = fmt.Sprintf("body of %d bytes not kept: over the %d-byte cap per body", n, c.bodyCap)
		c.sum.ArchiveBodiesCut++
		c.mu.Unlock()
	}
	if keep {
		res, err := chromedp.CallBrowser(r.bctx, fetch.GetResponseBody, fetch.GetResponseBodyParams{RequestID: ev.RequestID})
		if err != nil {
			e.Response.Content.Comment = "body not kept: " + err.Error()
			keep = false
		} else {
			body = res.Body
			e.Response.Content.Size = int64(len(body))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if keep {
		c.keepArchiveBody(&e, body)
	}
	if c.red != nil {
		c.red.Entry(&e)
	}
	c.archive = append(c.archive, e)
}

// keepArchiveBody names body in e (its hash), within the caps, redacting
// the secrets of a text body first; c.mu is held.
func (c *netCapture) keepArchiveBody(e *har.Entry, body []byte) {
	if int64(len(body)) > c.bodyCap {
		e.Response.Content.Comment = fmt.Sprintf("body of %d bytes not kept: over the %d-byte cap per body", len(body), c.bodyCap)
		c.sum.ArchiveBodiesCut++
		return
	}
	if c.red != nil && utf8.Valid(body) && textType(e.Response.Content.MimeType) {
		// Redacted as the HAR's bodies are (the values of secret keys);
		// a replayed page that sends a value back sends the placeholder.
		probe := har.Entry{Response: har.Response{Content: har.Content{MimeType: e.Response.Content.MimeType, Text: string(body)}}}
		c.red.Entry(&probe)
		body = []byte(probe.Response.Content.Text)
	}
	if c.policy != nil && utf8.Valid(body) && textType(e.Response.Content.MimeType) {
		body = []byte(c.policy.Text(string(body), c.known))
	}
	sum := sha256.Sum256(body)
	h := hex.EncodeToString(sum[:])
	if !c.archived[h] {
		if c.sum.ArchiveBytes+int64(len(body)) > c.epCap {
			e.Response.Content.Comment = fmt.Sprintf("body dropped: the episode's %d-byte cap on response bodies was reached", c.epCap)
			c.sum.ArchiveBodiesDropped++
			return
		}
		c.archived[h] = true
		c.sum.ArchiveBytes += int64(len(body))
		if c.bodies == nil {
			c.bodies = map[string][]byte{}
		}
		c.bodies[h] = body
	}
	e.Response.Content.Hash = h
}

// errorName is a Fetch error reason as Chromium's net error names it
// (Failed → FAILED, ConnectionRefused → CONNECTION_REFUSED).
func errorName(r network.ErrorReason) string {
	var b strings.Builder
	for i, ch := range string(r) {
		if i > 0 && ch >= 'A' && ch <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(ch)
	}
	return strings.ToUpper(b.String())
}

// websocket keeps a tab's WebSocket frames; c.mu is held.
func (c *netCapture) websocket(t *tab, ev any) {
	switch ev := ev.(type) {
	case *network.EventWebSocketCreated:
		if c.sockets == nil {
			c.sockets = map[netKey]*har.Entry{}
		}
		e := &har.Entry{StartedDateTime: har.Time(time.Now()), Step: c.step, ResourceType: "websocket",
			Request: har.Request{Method: "GET", URL: ev.URL, HTTPVersion: "HTTP/1.1", HeadersSize: -1},
			Response: har.Response{Status: 101, StatusText: "Switching Protocols", HeadersSize: -1, BodySize: -1,
				Content: har.Content{MimeType: "x-unknown"}}, WebSocketMessages: []har.WSMessage{}}
		c.sockets[netKey{t, ev.RequestID}] = e
	case *network.EventWebSocketFrameSent:
		c.wsFrame(t, ev.RequestID, "send", ev.Response)
	case *network.EventWebSocketFrameReceived:
		c.wsFrame(t, ev.RequestID, "receive", ev.Response)
	case *network.EventWebSocketClosed:
		k := netKey{t, ev.RequestID}
		if e := c.sockets[k]; e != nil {
			c.addSocket(e)
			delete(c.sockets, k)
		}
	}
}

func (c *netCapture) wsFrame(t *tab, id network.RequestID, typ string, f *network.WebSocketFrame) {
	e := c.sockets[netKey{t, id}]
	if e == nil || f == nil {
		return
	}
	data := string(f.PayloadData)
	if f.Opcode != 1 {
		data = base64.StdEncoding.EncodeToString(f.PayloadData)
	}
	if c.red != nil && f.Opcode == 1 {
		if red, ok := c.red.JSON(data); ok {
			data = red
		}
	}
	e.WebSocketMessages = append(e.WebSocketMessages, har.WSMessage{Type: typ, Time: float64(time.Now().UnixNano()) / 1e9, Opcode: int(f.Opcode), Data: data, Step: c.step})
}

// addSocket hands a socket's record over; c.mu is held.
func (c *netCapture) addSocket(e *har.Entry) {
	if c.red != nil {
		c.red.Entry(e)
	}
	c.archive = append(c.archive, *e)
}
