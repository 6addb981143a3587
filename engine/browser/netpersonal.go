package browser

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"unicode/utf8"

	"waymark/engine/har"
)

// The personal values a redaction policy found on the episode's pages,
// replaced in the network capture's entries and bodies (redact.go finds
// them).

// personalBodies replaces the personal data in the archive's bodies not
// handed over yet, renaming each changed body (its hash) in the records
// that name it; c.mu is held.
func (c *netCapture) personalBodies() {
	for h, b := range c.bodies {
		if !utf8.Valid(b) {
			continue
		}
		nb := c.policy.Text(string(b), c.known)
		if nb == string(b) {
			continue
		}
		sum := sha256.Sum256([]byte(nb))
		nh := hex.EncodeToString(sum[:])
		delete(c.bodies, h)
		c.bodies[nh] = []byte(nb)
		c.archived[nh] = true
		for i := range c.archive {
			if c.archive[i].Response.Content.Hash == h {
				c.archive[i].Response.Content.Hash = nh
			}
		}
	}
}

// know adds personal values the pages showed.
func (c *netCapture) know(values []string) {
	if c == nil || c.policy == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range values {
		if !slices.Contains(c.known, v) {
			c.known = append(c.known, v)
		}
	}
}

// personal replaces the personal data in an entry (c.mu is held): the
// URL and its query, headers, cookies, the posted body and a text
// response body.
func (c *netCapture) personal(e *har.Entry) {
	p := c.policy
	if p == nil {
		return
	}
	t := func(s string) string { return p.Text(s, c.known) }
	e.Request.URL = t(e.Request.URL)
	e.Response.RedirectURL = t(e.Response.RedirectURL)
	for _, hs := range [][]har.NameValue{e.Request.Headers, e.Response.Headers, e.Request.QueryString} {
		for i := range hs {
			hs[i].Value = t(hs[i].Value)
		}
	}
	for _, cs := range [][]har.Cookie{e.Request.Cookies, e.Response.Cookies} {
		for i := range cs {
			cs[i].Value = t(cs[i].Value)
		}
	}
	if pd := e.Request.PostData; pd != nil {
		pd.Text = t(pd.Text)
		for i := range pd.Params {
			pd.Params[i].Value = t(pd.Params[i].Value)
		}
	}
	if e.Response.Content.Encoding == "" {
		e.Response.Content.Text = t(e.Response.Content.Text)
	}
	for i := range e.WebSocketMessages {
		if e.WebSocketMessages[i].Opcode == 1 {
			e.WebSocketMessages[i].Data = t(e.WebSocketMessages[i].Data)
		}
	}
}
