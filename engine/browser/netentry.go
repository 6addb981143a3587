package browser

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"waymark/engine/har"
)

// HAR entries from the CDP records of one request, as Chromium's own HAR
// export fills them (DevTools' HARLog): _resourceType in lower case,
// _transferSize, the timings from the response's ResourceTiming.

func wallTime(t cdp.TimeSinceEpoch) time.Time {
	f := t.Float64()
	if f <= 0 {
		return time.Now()
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9))
}

// ms turns seconds into milliseconds rounded to 0.001.
func ms(s float64) float64 { return math.Round(s*1e6) / 1e3 }

// textType reports the MIME types whose bodies are kept: JSON, HTML,
// JavaScript, XML, form data and plain text.
func textType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	switch {
	case strings.HasSuffix(mt, "/json"), strings.HasSuffix(mt, "+json"),
		strings.HasSuffix(mt, "/xml"), strings.HasSuffix(mt, "+xml"),
		strings.Contains(mt, "javascript"), strings.Contains(mt, "ecmascript"):
		return true
	}
	switch mt {
	case "text/html", "text/plain", "application/x-www-form-urlencoded", "text/json", "application/x-ndjson":
		return true
	}
	return false
}

// headerList turns CDP headers into HAR headers sorted by name; values
// holding several lines (Set-Cookie) become one header each. The browser's
// Proxy-Authorization is left out, whatever the redaction: it carries the
// context's secret for Waymark's own host proxy (engine/chromium's
// hostproxy.go), not the site's traffic.
func headerList(h network.Headers) []har.NameValue {
	out := []har.NameValue{}
	for name, v := range h {
		if strings.EqualFold(name, "Proxy-Authorization") {
			continue
		}
		s := fmt.Sprint(v)
		for _, line := range strings.Split(s, "\n") {
			out = append(out, har.NameValue{Name: name, Value: line})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

func headerValue(hs []har.NameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// requestCookies parses the Cookie header.
func requestCookies(hs []har.NameValue) []har.Cookie {
	out := []har.Cookie{}
	for _, h := range hs {
		if !strings.EqualFold(h.Name, "cookie") {
			continue
		}
		for _, part := range strings.Split(h.Value, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
			if name != "" {
				out = append(out, har.Cookie{Name: name, Value: value})
			}
		}
	}
	return out
}

// responseCookies parses the Set-Cookie headers.
func responseCookies(hs []har.NameValue) []har.Cookie {
	out := []har.Cookie{}
	for _, h := range hs {
		if !strings.EqualFold(h.Name, "set-cookie") {
			continue
		}
		parts := strings.Split(h.Value, ";")
		name, value, _ := strings.Cut(strings.TrimSpace(parts[0]), "=")
		if name == "" {
			continue
		}
		c := har.Cookie{Name: name, Value: value}
		for _, a := range parts[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(a), "=")
			switch strings.ToLower(k) {
			case "path":
				c.Path = v
			case "domain":
				c.Domain = v
			case "expires":
				if t, err := time.Parse(time.RFC1123, v); err == nil {
					c.Expires = har.Time(t)
				}
			case "httponly":
				c.HTTPOnly = true
			case "secure":
				c.Secure = true
			}
		}
		out = append(out, c)
	}
	return out
}

// queryList keeps the URL's query parameters in order, decoded.
func queryList(raw string) []har.NameValue {
	out := []har.NameValue{}
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return out
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		if p == "" {
			continue
		}
		name, value, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if v, err := url.QueryUnescape(value); err == nil {
			value = v
		}
		out = append(out, har.NameValue{Name: name, Value: value})
	}
	return out
}

func httpVersion(protocol string) string {
	switch strings.ToLower(protocol) {
	case "http/1.0":
		return "HTTP/1.0"
	case "http/1.1", "":
		return "HTTP/1.1"
	case "h2", "http/2", "http/2.0":
		return "HTTP/2.0"
	case "h3", "http/3", "quic":
		return "HTTP/3"
	}
	return protocol
}

// entry builds the HAR entry; redirect is the next hop's URL when the
// response is a redirect.
func (p *netEntry) entry(pages []*netPage, redirect string) har.Entry {
	r := p.req
	e := har.Entry{StartedDateTime: har.Time(p.wall), Step: p.step, ResourceType: strings.ToLower(string(p.typ))}
	if e.ResourceType == "" {
		e.ResourceType = "other"
	}
	if p.pageIdx >= 0 && p.pageIdx < len(pages) {
		e.Pageref = pages[p.pageIdx].ID
	}
	for _, pg := range pages {
		if p.loader != "" && pg.loader == p.loader {
			e.Pageref = pg.ID
		}
	}
	rh := p.reqHdrs
	if rh == nil {
		rh = r.Headers
	}
	u := r.URL + r.URLFragment
	e.Request = har.Request{Method: r.Method, URL: u, Headers: headerList(rh), QueryString: queryList(u),
		HeadersSize: -1, BodySize: 0}
	e.Request.Cookies = requestCookies(e.Request.Headers)
	if r.HasPostData {
		var b strings.Builder
		for _, pe := range r.PostDataEntries {
			b.Write(pe.Bytes)
		}
		mt := headerValue(e.Request.Headers, "Content-Type")
		pd := &har.PostData{MimeType: mt, Text: b.String()}
		if len(r.PostDataEntries) == 0 {
			pd.Comment = "the browser did not report this body (too large)"
		}
		if strings.HasPrefix(strings.ToLower(mt), "application/x-www-form-urlencoded") {
			for _, nv := range queryList("?" + pd.Text) {
				pd.Params = append(pd.Params, har.Param{Name: nv.Name, Value: nv.Value})
			}
		}
		e.Request.PostData = pd
		e.Request.BodySize = int64(b.Len())
	}
	e.Response = har.Response{Status: 0, HTTPVersion: "HTTP/1.1", HeadersSize: -1, BodySize: -1, RedirectURL: redirect,
		Content: har.Content{Size: p.dataLen, MimeType: "x-unknown"}, Error: p.errText}
	if s := p.resp; s != nil {
		hs := p.respHdrs
		if hs == nil {
			hs = s.Headers
		}
		e.Response.Status, e.Response.StatusText = int(s.Status), s.StatusText
		e.Response.HTTPVersion = httpVersion(s.Protocol)
		e.Request.HTTPVersion = e.Response.HTTPVersion
		e.Response.Headers = headerList(hs)
		e.Response.Cookies = responseCookies(e.Response.Headers)
		if s.MimeType != "" {
			e.Response.Content.MimeType = s.MimeType
			if s.Charset != "" && !strings.Contains(s.MimeType, "charset") {
				e.Response.Content.MimeType += "; charset=" + s.Charset
			}
		}
		if redirect == "" {
			redirect = headerValue(e.Response.Headers, "Location")
			if redirect != "" && s.Status >= 300 && s.Status < 400 {
				e.Response.RedirectURL = redirect
			}
		}
		if p.respText != "" {
			e.Response.HeadersSize = int64(len(p.respText))
		}
		transfer := p.encoded
		if transfer == 0 {
			transfer = s.EncodedDataLength
		}
		e.TransferSize = int64(transfer)
		switch {
		case s.Status == 304 || s.FromDiskCache || s.FromPrefetchCache:
			e.Response.BodySize = 0
		case p.bodyLen > 0:
			e.Response.BodySize = int64(p.bodyLen)
		case e.Response.HeadersSize >= 0:
			e.Response.BodySize = max(int64(transfer)-e.Response.HeadersSize, 0)
		}
		ip := strings.Trim(s.RemoteIPAddress, "[]")
		e.ServerIPAddress = ip
		if s.ConnectionID > 0 {
			e.Connection = fmt.Sprint(int64(s.ConnectionID))
		}
		e.Timings = p.timings(s.Timing)
	} else {
		e.Timings = p.timings(nil)
	}
	if p.errText != "" {
		e.Comment = "failed: " + p.errText
	}
	e.Time = e.Timings.Total()
	return e
}

// timings reads a request's phases from Chromium's ResourceTiming (offsets
// in ms from requestTime), as DevTools' HAR export does.
func (p *netEntry) timings(t *network.ResourceTiming) har.Timings {
	out := har.Timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	if t == nil || t.RequestTime <= 0 {
		if p.endTs > p.ts {
			out.Wait = ms(p.endTs - p.ts)
		}
		return out
	}
	queued := math.Max(ms(t.RequestTime-p.ts), 0)
	first := -1.0
	for _, v := range []float64{t.DNSStart, t.ConnectStart, t.SendStart} {
		if v >= 0 {
			first = v
			break
		}
	}
	out.Blocked = queued + math.Max(first, 0)
	span := func(a, b float64) float64 {
		if a < 0 || b < a {
			return -1
		}
		return ms((b - a) / 1e3)
	}
	out.DNS = span(t.DNSStart, t.DNSEnd)
	out.Connect = span(t.ConnectStart, t.ConnectEnd)
	out.SSL = span(t.SslStart, t.SslEnd)
	out.Send = math.Max(span(t.SendStart, t.SendEnd), 0)
	out.Wait = math.Max(span(t.SendEnd, t.ReceiveHeadersEnd), 0)
	if p.endTs > 0 {
		out.Receive = math.Max(ms(p.endTs-t.RequestTime)-t.ReceiveHeadersEnd, 0)
		out.Receive = math.Round(out.Receive*1e3) / 1e3
	}
	return out
}
