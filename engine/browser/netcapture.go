package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/har"
	"waymark/engine/redact"
)

// Network capture (Settings.HAR): every request of every tab and frame of
// the episode, from the CDP Network events each tab's listener (and each
// out-of-process frame's) sees, becomes a HAR entry stamped with the step
// during which it started. Text response bodies are read with
// Network.getResponseBody outside the event loop, within the per-body and
// per-episode caps. Secrets are redacted as each entry completes, before it
// leaves the engine.

// Default caps of the response bodies kept.
const (
	DefaultHARBodyCap    = 1 << 20
	DefaultHAREpisodeCap = 64 << 20
)

// bodyFetchTimeout bounds one Network.getResponseBody; finalWait how long
// the episode's end waits for the bodies being read; extraInfoWait how long
// it waits for the raw headers of requests that finished without them.
const (
	bodyFetchTimeout = 5 * time.Second
	finalWait        = 2 * time.Second
	extraInfoWait    = 500 * time.Millisecond
)

type netKey struct {
	t  *tab
	id network.RequestID
}

// netEntry is a request in flight.
type netEntry struct {
	step     int
	wall     time.Time
	ts       float64 // monotonic seconds at requestWillBeSent
	req      *network.Request
	typ      network.ResourceType
	loader   cdp.LoaderID
	resp     *network.Response
	extra    bool // the response has ExtraInfo events
	dataLen  int64
	endTs    float64
	encoded  float64
	bodyLen  float64
	errText  string
	pageIdx  int
	reqHdrs  network.Headers // raw headers from requestWillBeSentExtraInfo
	respHdrs network.Headers // raw headers from responseReceivedExtraInfo
	respText string          // the raw status line and headers
}

type netPage struct {
	har.Page
	ts     float64 // monotonic start (the document request's)
	loader cdp.LoaderID
}

// netCapture is one episode's capture; its methods are safe on nil (no
// capture).
type netCapture struct {
	mu       sync.Mutex
	red      *har.Redactor // nil: not redacted
	bodyCap  int64
	epCap    int64
	step     int
	pending  map[netKey]*netEntry
	reqXtra  map[netKey][]network.Headers
	respXtra map[netKey][]*network.EventResponseReceivedExtraInfo
	waiting  map[netKey][]parked // finished, waiting for their response's ExtraInfo
	docs     map[*tab]*netEntry  // the latest main-frame document request of each tab
	current  map[*tab]int        // the page each tab shows (index in pages, -1 none)
	pages    []*netPage
	done     []har.Entry
	sum      har.Summary
	reading  int // response bodies being read (the HAR's and the archive's)
	closed   bool

	// The replay archive (archivecap.go): its records and bodies not yet
	// taken, the bodies' hashes kept so far, the step each request
	// started in (by its Network id), and the WebSockets open.
	archive  []har.Entry
	bodies   map[string][]byte
	archived map[string]bool
	started  map[network.RequestID]int
	answered map[network.RequestID]bool // answered, not in the HAR yet
	sockets  map[netKey]*har.Entry
	rec      *archiveRecorder

	// policy, when set, is the redaction policy: its patterns and the
	// personal values the pages showed (known) are replaced in every
	// entry and archive record (redact.go).
	policy *redact.Policy
	known  []string
}

// newCapture starts an episode's capture, or returns nil when off.
func newCapture(set engine.Settings) *netCapture {
	if !set.HAR {
		return nil
	}
	c := &netCapture{bodyCap: set.HARBodyCap, epCap: set.HAREpisodeCap,
		pending: map[netKey]*netEntry{}, reqXtra: map[netKey][]network.Headers{},
		respXtra: map[netKey][]*network.EventResponseReceivedExtraInfo{}, waiting: map[netKey][]parked{},
		docs: map[*tab]*netEntry{}, current: map[*tab]int{}, archived: map[string]bool{}, started: map[network.RequestID]int{},
		answered: map[network.RequestID]bool{}}
	c.rec = &archiveRecorder{c: c}
	if c.bodyCap <= 0 {
		c.bodyCap = DefaultHARBodyCap
	}
	if c.epCap <= 0 {
		c.epCap = DefaultHAREpisodeCap
	}
	c.sum = har.Summary{BodyCap: c.bodyCap, EpisodeCap: c.epCap}
	c.policy = set.Redact
	if !set.HARNoRedact {
		c.red = har.NewRedactor(splitList(set.HARRedactHeaders), splitList(set.HARRedactKeys))
		c.sum.Redacted, c.sum.RedactHeaders, c.sum.RedactKeys = true, c.red.Headers, c.red.Keys
	}
	return c
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// TakeHAR drains the entries complete so far (engine.NetworkCapture).
func (e *Engine) TakeHAR(final bool) har.Capture {
	c := e.netCap.Load()
	if c == nil {
		return har.Capture{Off: true}
	}
	return c.take(final)
}

var _ engine.NetworkCapture = (*Engine)(nil)

// setStep stamps the requests that start from now on.
func (c *netCapture) setStep(n int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.step = n
	c.mu.Unlock()
}

// observe takes one event of a tab's (or its frames') session. It runs in
// the session's event loop: no commands here.
func (c *netCapture) observe(t *tab, ev any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	switch ev := ev.(type) {
	case *network.EventWebSocketCreated, *network.EventWebSocketFrameSent, *network.EventWebSocketFrameReceived, *network.EventWebSocketClosed:
		c.websocket(t, ev) // archivecap.go
	case *network.EventRequestWillBeSent:
		c.started[ev.RequestID] = c.step
		k := netKey{t, ev.RequestID}
		if p, ok := c.pending[k]; ok {
			if ev.RedirectResponse == nil {
				return // the same request seen twice (a frame's session)
			}
			p.resp, p.extra = ev.RedirectResponse, ev.RedirectHasExtraInfo
			p.endTs = ev.Timestamp.Float64()
			delete(c.pending, k)
			c.finish(k, p, ev.Request.URL)
		}
		if ev.Request == nil {
			return
		}
		n := &netEntry{step: c.step, wall: wallTime(ev.WallTime), ts: ev.Timestamp.Float64(), req: ev.Request,
			typ: ev.Type, loader: ev.LoaderID, pageIdx: c.pageOf(t)}
		c.pending[k] = n
		if ev.Type == network.ResourceTypeDocument && t.isMain(ev.FrameID) {
			c.docs[t] = n
		}
	case *network.EventRequestWillBeSentExtraInfo:
		k := netKey{t, ev.RequestID}
		c.reqXtra[k] = append(c.reqXtra[k], ev.Headers)
	case *network.EventResponseReceivedExtraInfo:
		k := netKey{t, ev.RequestID}
		c.respXtra[k] = append(c.respXtra[k], ev)
		for len(c.waiting[k]) > 0 && len(c.respXtra[k]) > 0 {
			w := c.waiting[k][0]
			c.waiting[k] = c.waiting[k][1:]
			c.complete(k, w.p, w.redirect)
		}
		if len(c.waiting[k]) == 0 {
			delete(c.waiting, k)
		}
	case *network.EventResponseReceived:
		if p := c.pending[netKey{t, ev.RequestID}]; p != nil {
			p.resp, p.extra, p.typ = ev.Response, ev.HasExtraInfo, ev.Type
		}
	case *network.EventDataReceived:
		if p := c.pending[netKey{t, ev.RequestID}]; p != nil {
			p.dataLen += ev.DataLength
		}
	case *network.EventLoadingFinished:
		k := netKey{t, ev.RequestID}
		p := c.pending[k]
		if p == nil {
			return
		}
		delete(c.pending, k)
		p.endTs, p.encoded, p.bodyLen = ev.Timestamp.Float64(), ev.EncodedDataLength, ev.EncodedBodyLength
		c.finish(k, p, "")
	case *network.EventLoadingFailed:
		k := netKey{t, ev.RequestID}
		p := c.pending[k]
		if p == nil {
			return
		}
		delete(c.pending, k)
		p.endTs, p.errText = ev.Timestamp.Float64(), ev.ErrorText
		if ev.BlockedReason != "" {
			p.errText += " (blocked: " + string(ev.BlockedReason) + ")"
		}
		c.finish(k, p, "")
	case *page.EventFrameNavigated:
		if ev.Frame == nil || ev.Frame.ParentID != "" {
			return
		}
		np := &netPage{Page: har.Page{ID: fmt.Sprintf("page_%d", len(c.pages)+1), Title: ev.Frame.URL,
			StartedDateTime: har.Time(time.Now()), PageTimings: har.PageTimings{OnContentLoad: -1, OnLoad: -1}},
			loader: ev.Frame.LoaderID}
		if d := c.docs[t]; d != nil && d.loader == ev.Frame.LoaderID {
			np.StartedDateTime, np.ts = har.Time(d.wall), d.ts
			d.pageIdx = len(c.pages)
		}
		c.pages = append(c.pages, np)
		c.current[t] = len(c.pages) - 1
	case *page.EventDomContentEventFired:
		if p := c.pageAt(t); p != nil && p.ts > 0 {
			p.PageTimings.OnContentLoad = ms(ev.Timestamp.Float64() - p.ts)
		}
	case *page.EventLoadEventFired:
		if p := c.pageAt(t); p != nil && p.ts > 0 {
			p.PageTimings.OnLoad = ms(ev.Timestamp.Float64() - p.ts)
		}
	}
}

// pageOf is the index of the page t shows (-1: none yet); c.mu is held.
func (c *netCapture) pageOf(t *tab) int {
	if i, ok := c.current[t]; ok {
		return i
	}
	return -1
}

func (c *netCapture) pageAt(t *tab) *netPage {
	if i := c.pageOf(t); i >= 0 {
		return c.pages[i]
	}
	return nil
}

// parked is a finished request waiting for its response's ExtraInfo.
type parked struct {
	p        *netEntry
	redirect string
}

// finish completes a request that left pending, or parks it until its
// response's ExtraInfo event (the raw headers: Set-Cookie, the cookies
// sent) comes: Chromium sends that event on a path of its own, and on a
// busy machine it can come after loadingFinished. c.mu is held.
func (c *netCapture) finish(k netKey, p *netEntry, redirect string) {
	if p.resp != nil && p.extra && (len(c.waiting[k]) > 0 || len(c.respXtra[k]) == 0) {
		c.waiting[k] = append(c.waiting[k], parked{p, redirect})
		return
	}
	c.complete(k, p, redirect)
}

// complete makes a finished request an entry, its body read when wanted.
// redirect is the next hop's URL for a redirect response. c.mu is held.
func (c *netCapture) complete(k netKey, p *netEntry, redirect string) {
	if p.extra && len(c.reqXtra[k]) > 0 {
		p.reqHdrs, c.reqXtra[k] = c.reqXtra[k][0], c.reqXtra[k][1:]
	}
	if p.resp != nil && p.extra && len(c.respXtra[k]) > 0 {
		x := c.respXtra[k][0]
		c.respXtra[k] = c.respXtra[k][1:]
		p.respHdrs, p.respText = x.Headers, x.HeadersText
	}
	if redirect == "" {
		delete(c.reqXtra, k)
		delete(c.respXtra, k)
		delete(c.answered, k.id)
	}
	e := p.entry(c.pages, redirect)
	if redirect != "" || p.resp == nil || p.errText != "" || !textType(p.resp.MimeType) || p.resp.Status == 204 || p.resp.Status == 304 {
		c.add(e)
		return
	}
	if p.dataLen > c.bodyCap {
		e.Response.Content.Comment = fmt.Sprintf("body of %d bytes not kept: over the %d-byte cap per body", p.dataLen, c.bodyCap)
		c.sum.BodiesCut++
		c.add(e)
		return
	}
	if c.sum.BodyBytes+p.dataLen > c.epCap {
		c.drop(&e)
		c.add(e)
		return
	}
	reserved := p.dataLen
	c.sum.BodyBytes += reserved
	c.reading++
	go func() {
		body, b64, err := fetchBody(k)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reading--
		c.sum.BodyBytes -= reserved
		switch {
		case err != nil:
			e.Response.Content.Comment = "body not kept: " + err.Error()
		case int64(len(body)) > c.bodyCap:
			e.Response.Content.Comment = fmt.Sprintf("body of %d bytes not kept: over the %d-byte cap per body", len(body), c.bodyCap)
			c.sum.BodiesCut++
		case c.sum.BodyBytes+int64(len(body)) > c.epCap:
			c.drop(&e)
		default:
			c.sum.BodyBytes += int64(len(body))
			e.Response.Content.Size = int64(len(body))
			if !b64 && utf8.Valid(body) {
				e.Response.Content.Text = string(body)
			} else {
				e.Response.Content.Text, e.Response.Content.Encoding = base64.StdEncoding.EncodeToString(body), "base64"
			}
		}
		c.add(e)
	}()
}

// drop notes a body dropped at the episode's cap; c.mu is held.
func (c *netCapture) drop(e *har.Entry) {
	c.sum.BodiesDropped++
	e.Response.Content.Comment = fmt.Sprintf("body dropped: the episode's %d-byte cap on response bodies was reached", c.epCap)
}

// add redacts an entry and hands it over at the next take; c.mu is held.
func (c *netCapture) add(e har.Entry) {
	if c.red != nil {
		c.red.Entry(&e)
	}
	c.done = append(c.done, e)
}

// fetchBody reads a response body from the session that saw the request:
// the tab's, else one of its out-of-process frames'.
func fetchBody(k netKey) ([]byte, bool, error) {
	ctxs := []context.Context{k.t.ctx}
	k.t.mu.Lock()
	for _, fc := range k.t.frameCtx {
		ctxs = append(ctxs, fc)
	}
	k.t.mu.Unlock()
	var err error
	for _, ctx := range ctxs {
		tctx, cancel := context.WithTimeout(ctx, bodyFetchTimeout)
		var res network.GetResponseBodyResult
		res, err = chromedp.Call(tctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: k.id})
		cancel()
		if err == nil {
			return res.Body, res.Base64encoded, nil
		}
	}
	return nil, false, err
}

// settleWaiting gives the ExtraInfo events still missing a moment to come,
// then completes the requests that wait for them without their raw headers.
func (c *netCapture) settleWaiting() {
	deadline := time.Now().Add(extraInfoWait)
	for {
		c.mu.Lock()
		n := len(c.waiting)
		if n == 0 || time.Now().After(deadline) {
			for k, ws := range c.waiting {
				for _, w := range ws {
					c.complete(k, w.p, w.redirect)
				}
				delete(c.waiting, k)
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
}

// take drains the finished entries; with final it waits for bodies being
// read, hands over the requests still open, and stops the capture.
// awaitAnswered waits, until deadline, for the requests the servers have
// answered to be in the capture: the bodies being read, and the responses
// seen by the archive or the page whose loading has not finished (a large
// body read for the archive holds its response until it is read). A
// request not answered yet (a long poll) is not waited for, nor is a
// media stream.
func (c *netCapture) awaitAnswered(deadline time.Time) {
	for {
		c.mu.Lock()
		busy := c.reading > 0
		for k, p := range c.pending {
			if p.typ != network.ResourceTypeMedia && (p.resp != nil || c.answered[k.id]) {
				busy = true
				break
			}
		}
		c.mu.Unlock()
		if !busy || time.Now().After(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *netCapture) take(final bool) har.Capture {
	if final {
		c.settleWaiting()
		c.awaitAnswered(time.Now().Add(finalWait))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if final && !c.closed {
		c.closed = true
		for k, p := range c.pending {
			e := p.entry(c.pages, "")
			e.Comment = "the episode ended before this request finished"
			c.add(e)
			delete(c.pending, k)
		}
		for k, s := range c.sockets {
			c.addSocket(s)
			delete(c.sockets, k)
		}
	}
	if c.policy != nil {
		// The personal values the step's observation found are known by
		// now: they leave with no entry, record or body.
		c.personalBodies()
		for i := range c.done {
			c.personal(&c.done[i])
		}
		for i := range c.archive {
			c.personal(&c.archive[i])
		}
	}
	out := har.Capture{Entries: c.done, Archive: c.archive, Bodies: c.bodies}
	c.done, c.archive, c.bodies = nil, nil, nil
	c.sum.Entries += len(out.Entries)
	c.sum.ArchiveEntries += len(out.Archive)
	out.Summary = c.sum
	for _, p := range c.pages {
		out.Pages = append(out.Pages, p.Page)
	}
	return out
}
