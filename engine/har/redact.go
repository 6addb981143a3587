package har

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path"
	"strings"
)

// Redacted replaces every secret value.
const Redacted = "[redacted]"

// DefaultHeaders are the headers whose values are always redacted.
var DefaultHeaders = []string{"Authorization", "Cookie", "Set-Cookie", "Proxy-Authorization", "X-Api-Key"}

// DefaultKeys are the parts of a field name that make its value a secret in
// form bodies, JSON bodies (at any depth) and query strings.
var DefaultKeys = []string{"password", "passwd", "secret", "token"}

// Redactor removes secrets from entries. Header names match
// case-insensitively, exactly or by a path.Match pattern ("x-*-token");
// a field name is secret when it contains one of Keys, case-insensitively.
type Redactor struct {
	Headers []string
	Keys    []string
}

// NewRedactor adds extra headers and keys to the defaults.
func NewRedactor(extraHeaders, extraKeys []string) *Redactor {
	r := &Redactor{}
	for _, h := range append(append([]string{}, DefaultHeaders...), extraHeaders...) {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			r.Headers = append(r.Headers, h)
		}
	}
	for _, k := range append(append([]string{}, DefaultKeys...), extraKeys...) {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			r.Keys = append(r.Keys, k)
		}
	}
	return r
}

// SecretHeader reports whether a header's value is redacted.
func (r *Redactor) SecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, h := range r.Headers {
		if h == n {
			return true
		}
		if ok, _ := path.Match(h, n); ok {
			return true
		}
	}
	return false
}

// SecretKey reports whether a field name marks a secret value.
func (r *Redactor) SecretKey(name string) bool {
	n := strings.ToLower(name)
	for _, k := range r.Keys {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// Entry redacts one entry in place: secret headers, all cookie values,
// secret query parameters (in queryString and in the URL), secret fields
// of form and JSON request bodies, and secret keys of JSON response
// bodies.
func (r *Redactor) Entry(e *Entry) {
	r.headers(e.Request.Headers)
	r.headers(e.Response.Headers)
	cookies(e.Request.Cookies)
	cookies(e.Response.Cookies)
	for i := range e.Request.QueryString {
		if r.SecretKey(e.Request.QueryString[i].Name) {
			e.Request.QueryString[i].Value = Redacted
		}
	}
	e.Request.URL = r.URL(e.Request.URL)
	e.Response.RedirectURL = r.URL(e.Response.RedirectURL)
	if pd := e.Request.PostData; pd != nil {
		r.postData(pd)
	}
	c := &e.Response.Content
	if c.Text != "" && c.Encoding == "" && jsonBody(c.MimeType, c.Text) {
		if t, ok := r.JSON(c.Text); ok {
			c.Text = t
		}
	}
}

func (r *Redactor) headers(hs []NameValue) {
	for i := range hs {
		switch {
		case r.SecretHeader(hs[i].Name):
			hs[i].Value = Redacted
		case strings.EqualFold(hs[i].Name, "Location") || strings.EqualFold(hs[i].Name, "Referer"):
			hs[i].Value = r.URL(hs[i].Value) // they repeat a URL's query
		}
	}
}

// cookies redacts every cookie's value: a cookie is a credential more
// often than not, and its name says which.
func cookies(cs []Cookie) {
	for i := range cs {
		cs[i].Value = Redacted
	}
}

// URL redacts the secret query parameters of u, and those of its fragment
// (an OAuth implicit grant's redirect carries #access_token=…), keeping
// the others as they were written.
func (r *Redactor) URL(u string) string {
	base, frag, hasFrag := strings.Cut(u, "#")
	changed := false
	if q := strings.IndexByte(base, '?'); q >= 0 {
		if out, ok := r.query(base[q+1:]); ok {
			base, changed = base[:q+1]+out, true
		}
	}
	if hasFrag && strings.Contains(frag, "=") {
		if out, ok := r.query(frag); ok {
			frag, changed = out, true
		}
	}
	if !changed {
		return u
	}
	if hasFrag {
		return base + "#" + frag
	}
	return base
}

// query redacts an application/x-www-form-urlencoded string part by part.
func (r *Redactor) query(s string) (string, bool) {
	parts := strings.Split(s, "&")
	changed := false
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if name != "" && r.SecretKey(name) {
			parts[i] = strings.SplitN(p, "=", 2)[0] + "=" + url.QueryEscape(Redacted)
			changed = true
		}
	}
	return strings.Join(parts, "&"), changed
}

func (r *Redactor) postData(pd *PostData) {
	secret := false
	for i := range pd.Params {
		if r.SecretKey(pd.Params[i].Name) {
			pd.Params[i].Value = Redacted
			secret = true
		}
	}
	mt := strings.ToLower(pd.MimeType)
	switch {
	case strings.HasPrefix(mt, "application/x-www-form-urlencoded"):
		pd.Text, _ = r.query(pd.Text)
	case jsonBody(mt, pd.Text):
		if t, ok := r.JSON(pd.Text); ok {
			pd.Text = t
		}
	case strings.HasPrefix(mt, "multipart/"):
		if secret || r.multipartSecret(pd.Text) {
			pd.Text = Redacted
			pd.Comment = "the multipart body had a secret field; its text was redacted whole"
		}
	}
}

// multipartSecret reports a part named like a secret in a multipart body.
func (r *Redactor) multipartSecret(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		l := strings.ToLower(line)
		if !strings.HasPrefix(l, "content-disposition:") {
			continue
		}
		if i := strings.Index(l, "name=\""); i >= 0 {
			name, _, _ := strings.Cut(l[i+6:], "\"")
			if r.SecretKey(name) {
				return true
			}
		}
	}
	return false
}

// JSON redacts the values of secret keys at any depth of a JSON document,
// or of each document of a stream of them (JSON lines, or documents one
// after another): the documents are then written one a line. A stream whose
// rest is not JSON keeps its documents redacted and loses the rest (it
// becomes Redacted: text that was not read cannot be known to hold no
// secret). ok is false when text does not start with a JSON document (then
// it is left alone).
func (r *Redactor) JSON(text string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var docs []any
	changed, broken := false, false
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			broken = true
			break
		}
		docs = append(docs, v)
		if r.walk(v) {
			changed = true
		}
	}
	if len(docs) == 0 {
		return text, false
	}
	if !changed && !broken {
		return text, true
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, v := range docs {
		if err := enc.Encode(v); err != nil {
			return Redacted, true
		}
	}
	if broken {
		b.WriteString(Redacted)
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// walk redacts in place and reports whether anything changed.
func (r *Redactor) walk(v any) bool {
	changed := false
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if r.SecretKey(k) {
				x[k] = Redacted
				changed = true
				continue
			}
			if r.walk(val) {
				changed = true
			}
		}
	case []any:
		for _, val := range x {
			if r.walk(val) {
				changed = true
			}
		}
	}
	return changed
}

// jsonBody reports whether a body of media type mt is redacted as JSON:
// its type says JSON, or it has no type or text/plain (a fetch() of a JSON
// string sends text/plain) and starts like JSON.
func jsonBody(mt, text string) bool {
	if isJSON(mt) {
		return true
	}
	base, _, _ := strings.Cut(strings.ToLower(mt), ";")
	base = strings.TrimSpace(base)
	return (base == "" || base == "text/plain") && looksJSON(text)
}

// isJSON reports a JSON media type: application/json, a +json suffix
// (application/vnd.api+json, problem+json), JSON lines
// (application/x-ndjson, application/jsonl).
func isJSON(mt string) bool {
	base, _, _ := strings.Cut(strings.ToLower(mt), ";")
	_, sub, _ := strings.Cut(base, "/")
	return strings.Contains(sub, "json")
}

func looksJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}
