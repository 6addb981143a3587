// Package endpoints builds an API endpoint catalogue from HAR 1.2 logs: it
// keeps the application's own API calls (same host as the site, no static
// files, no page loads), turns the ids in their paths into named
// parameters, merges the calls of many logs per METHOD /path, infers query
// parameters, request and response JSON schemas and status codes from all
// samples, and writes the result as OpenAPI 3.1, as JSON, or as METHOD
// /path lines. Search ranks the endpoints for a question, by BM25 or by
// the embeddings of an OpenAI-compatible server. No SQL, no browser.
package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"waymark/engine/har"
)

// Options tune the extraction.
type Options struct {
	// Base is the application's URL (or host[:port]): only calls to its
	// host are kept. Empty: each log's own site, the host of its first
	// page load.
	Base string
	// Hosts are more hosts whose calls are the application's (an API on
	// its own host name).
	Hosts []string
	// Samples is how many distinct sample values are kept per field and
	// parameter (default 3).
	Samples int
}

// Catalogue is the set of endpoints seen in some HAR logs.
type Catalogue struct {
	// Servers are the application's origins (scheme://host) seen.
	Servers   []string    `json:"servers"`
	Logs      int         `json:"logs"`
	Calls     int         `json:"calls"`
	Endpoints []*Endpoint `json:"endpoints"`
	// Skipped counts the requests left out, by reason ("static file",
	// "other host", "page or static resource"…).
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Endpoint is one METHOD /path with everything seen of it.
type Endpoint struct {
	Method string `json:"method"`
	// Path is a template: /products/{productId}/reviews.
	Path        string      `json:"path"`
	PathParams  []*Param    `json:"path_params,omitempty"`
	Query       []*Param    `json:"query,omitempty"`
	RequestBody *Body       `json:"request_body,omitempty"`
	Responses   []*Response `json:"responses"`
	// Calls is how many requests were merged; Logs in how many logs.
	Calls int `json:"calls"`
	Logs  int `json:"logs"`
	// Auth is true when requests carried Authorization, Cookie or an API
	// key header.
	Auth bool `json:"auth_observed"`
}

// Param is a path or query parameter.
type Param struct {
	Name     string  `json:"name"`
	Required bool    `json:"required"`
	Schema   *Schema `json:"schema"`
}

// Body is a request body: its media type and, for JSON and forms, schema.
type Body struct {
	MediaType string  `json:"media_type"`
	Required  bool    `json:"required"`
	Schema    *Schema `json:"schema,omitempty"`
}

// Response is what one status code answered.
type Response struct {
	Status    int     `json:"status"`
	Count     int     `json:"count"`
	MediaType string  `json:"media_type,omitempty"`
	Schema    *Schema `json:"schema,omitempty"`
}

func decodeJSON(text string) any {
	text = strings.TrimSpace(text)
	if text == "" || (text[0] != '{' && text[0] != '[') {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil
	}
	return v
}

func hostOf(base string) string {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// FromHAR builds the catalogue of the API calls in logs, each a HAR 1.2
// document ({"log": {...}}).
func FromHAR(logs [][]byte, opts Options) (*Catalogue, error) {
	parsed := make([]*har.Log, len(logs))
	for i, data := range logs {
		f, err := parseHAR(data)
		if err != nil {
			return nil, fmt.Errorf("log %d: %w", i+1, err)
		}
		parsed[i] = f.Log
	}
	return FromLogs(parsed, opts)
}

// FromLogs builds the catalogue of the API calls in logs (a store's
// captures, or HAR files read by FromHAR).
func FromLogs(logs []*har.Log, opts Options) (*Catalogue, error) {
	if opts.Samples <= 0 {
		opts.Samples = 3
	}
	extra := map[string]bool{}
	for _, h := range opts.Hosts {
		if hh := hostOf(h); hh != "" {
			extra[hh] = true
		}
	}
	base := ""
	if opts.Base != "" {
		if base = hostOf(opts.Base); base == "" {
			return nil, fmt.Errorf("--base %q is not a URL or host: give e.g. http://localhost:7770", opts.Base)
		}
	}
	cat := &Catalogue{Logs: len(logs), Skipped: map[string]int{}}
	servers := map[string]bool{}
	values := map[string]bool{}
	var calls []*call
	for li, l := range logs {
		hosts := map[string]bool{}
		for h := range extra {
			hosts[h] = true
		}
		if base != "" {
			hosts[base] = true
		} else if h := siteHost(l); h != "" {
			hosts[h] = true
		}
		for i := range l.Entries {
			e := &l.Entries[i]
			pageEvidence(e, values)
			u, err := url.Parse(e.Request.URL)
			if err != nil {
				cat.Skipped["bad URL"]++
				continue
			}
			if why := skipReason(e, u, hosts); why != "" {
				cat.Skipped[why]++
				continue
			}
			servers[u.Scheme+"://"+u.Host] = true
			raw := splitPath(u.EscapedPath())
			c := &call{method: strings.ToUpper(e.Request.Method), raw: raw, segs: make([]string, len(raw)), entry: e, log: li}
			for k, vs := range u.Query() {
				for _, v := range vs {
					c.query = append(c.query, har.NameValue{Name: k, Value: v})
				}
			}
			c.body = decodeJSON(responseText(e))
			calls = append(calls, c)
			collectValues(c.body, values, "", 0)
		}
	}
	cat.Servers = sortedKeys(servers)
	cat.Calls = len(calls)
	normalise(calls, values)
	byKey := map[string][]*call{}
	for _, c := range calls {
		p, _ := template(c.segs)
		byKey[c.method+" "+p] = append(byKey[c.method+" "+p], c)
	}
	for _, k := range sortedKeys(byKey) {
		cat.Endpoints = append(cat.Endpoints, buildEndpoint(byKey[k], opts.Samples))
	}
	sortEndpoints(cat.Endpoints)
	return cat, nil
}

func splitPath(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		segs = append(segs, s)
	}
	return segs
}

var methodOrder = map[string]int{"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}

func sortEndpoints(eps []*Endpoint) {
	sort.SliceStable(eps, func(i, j int) bool {
		if eps[i].Path != eps[j].Path {
			return eps[i].Path < eps[j].Path
		}
		oi, ok := methodOrder[eps[i].Method]
		if !ok {
			oi = 9
		}
		oj, ok := methodOrder[eps[j].Method]
		if !ok {
			oj = 9
		}
		if oi != oj {
			return oi < oj
		}
		return eps[i].Method < eps[j].Method
	})
}

func buildEndpoint(cs []*call, samples int) *Endpoint {
	p, names := template(cs[0].segs)
	ep := &Endpoint{Method: cs[0].method, Path: p, Calls: len(cs)}
	logs := map[int]bool{}
	// Path parameters: the raw values at the parameter positions.
	pi := 0
	for i, s := range cs[0].segs {
		if s != "" {
			continue
		}
		var vals []string
		for _, c := range cs {
			vals = append(vals, c.raw[i])
		}
		ep.PathParams = append(ep.PathParams, &Param{Name: names[pi], Required: true, Schema: scalarSchema(vals, samples)})
		pi++
	}
	// Query parameters: required when every call had them.
	qvals := map[string][]string{}
	qcalls := map[string]int{}
	bodies := &Schema{}
	bodyTypes := map[string]int{}
	withBody := 0
	resp := map[int]*Response{}
	respSchema := map[int]*Schema{}
	respTypes := map[int]map[string]int{}
	for _, c := range cs {
		logs[c.log] = true
		seen := map[string]bool{}
		for _, q := range c.query {
			qvals[q.Name] = append(qvals[q.Name], q.Value)
			if !seen[q.Name] {
				seen[q.Name] = true
				qcalls[q.Name]++
			}
		}
		e := c.entry
		for _, h := range []string{"Authorization", "Cookie", "X-Api-Key", "X-Auth-Token"} {
			if header(e.Request.Headers, h) != "" {
				ep.Auth = true
			}
		}
		if pd := e.Request.PostData; pd != nil && (pd.Text != "" || len(pd.Params) > 0) {
			withBody++
			mt := mediaType(pd.MimeType)
			if mt == "" {
				mt = mediaType(header(e.Request.Headers, "Content-Type"))
			}
			if mt == "" {
				mt = "application/octet-stream"
			}
			bodyTypes[mt]++
			bodies.merge(bodyValue(mt, pd.Text, pd.Params), samples, 0)
		}
		st := e.Response.Status
		r := resp[st]
		if r == nil {
			r = &Response{Status: st}
			resp[st] = r
			respSchema[st] = &Schema{}
			respTypes[st] = map[string]int{}
		}
		r.Count++
		if mt := responseType(e); mt != "" {
			respTypes[st][mt]++
			if c.body != nil {
				respSchema[st].merge(c.body, samples, 0)
			}
		}
	}
	ep.Logs = len(logs)
	for _, name := range sortedKeys(qvals) {
		ep.Query = append(ep.Query, &Param{Name: name, Required: qcalls[name] == len(cs), Schema: scalarSchema(qvals[name], samples)})
	}
	if withBody > 0 {
		b := &Body{MediaType: most(bodyTypes), Required: withBody == len(cs)}
		if len(bodies.Type) > 0 {
			bodies.finish()
			b.Schema = bodies
		}
		ep.RequestBody = b
	}
	for _, st := range sortedInts(resp) {
		r := resp[st]
		r.MediaType = most(respTypes[st])
		if s := respSchema[st]; len(s.Type) > 0 {
			s.finish()
			r.Schema = s
		}
		ep.Responses = append(ep.Responses, r)
	}
	return ep
}

// bodyValue decodes a request body for schema inference: JSON as is, a
// form as an object of strings, anything else as a string.
func bodyValue(mt, text string, params []har.Param) any {
	switch {
	case strings.Contains(mt, "json"):
		if v := decodeJSON(text); v != nil {
			return v
		}
	case mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data":
		m := map[string]any{}
		for _, p := range params {
			m[p.Name] = p.Value
		}
		if len(params) == 0 && mt == "application/x-www-form-urlencoded" {
			q, err := url.ParseQuery(text)
			if err == nil {
				for k, vs := range q {
					m[k] = vs[0]
				}
			}
		}
		return m
	}
	return "" // a string of unknown form; its text is no sample
}

func most(counts map[string]int) string {
	best := ""
	for _, k := range sortedKeys(counts) {
		if counts[k] > counts[best] {
			best = k
		}
	}
	return best
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// Summary is the catalogue as "METHOD /path" lines, one per endpoint.
func (c *Catalogue) Summary() string {
	var b strings.Builder
	for _, ep := range c.Endpoints {
		b.WriteString(ep.Method + " " + ep.Path + "\n")
	}
	return b.String()
}

// JSON is the catalogue as indented JSON (ReadJSON reads it back).
func (c *Catalogue) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		panic(err) // only plain values: cannot fail
	}
	return b.Bytes()
}

// ReadJSON reads a catalogue written by JSON.
func ReadJSON(data []byte) (*Catalogue, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var c Catalogue
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("not a Waymark endpoint catalogue (write one with 'waymark endpoints --format json'): %w", err)
	}
	if c.Endpoints == nil {
		return nil, fmt.Errorf("not a Waymark endpoint catalogue: it has no \"endpoints\" (write one with 'waymark endpoints --format json')")
	}
	return &c, nil
}
