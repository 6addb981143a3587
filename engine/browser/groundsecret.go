package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"waymark/engine/action"
)

// Grounding never lets the text of a secret field (secretfield.go) out of
// the engine: marks.js does not copy such a field's value into its value
// attribute, and before the extras are made the accessibility tree and the
// DOM snapshot have the field's value, and every string holding it, replaced
// by action.RedactedText. Chromium itself shows a password field's value in
// the tree as bullets (which tell its length) and a card number's in clear,
// and the snapshot holds every field's value (inputValue, and the text node
// of the field's own editor).

// minSecretPart is the length from which a snapshot string that holds a
// secret value inside a longer text is masked too (shorter values are
// masked only where a string is exactly them).
const minSecretPart = 4

// redactedJSON is action.RedactedText as a JSON string.
var redactedJSON, _ = json.Marshal(action.RedactedText)

// maskAXSecrets replaces the value of every secret field in the tree, and
// the names and values of the nodes below it, by action.RedactedText, and
// drops those values' sources (Chromium repeats the text there); then any
// other name, description, value or property that holds one of those texts
// (an element aria-labelledby the field is named with its value) has them
// replaced too. A
// field is secret when marks.js listed its bid; a field without a bid (in a
// closed shadow root, or in a frame the marking could not reach) is looked
// up in the DOM, and one that cannot be looked up counts as secret.
func (e *Engine) maskAXSecrets(ctx context.Context, t *tab, tr *axTree, secretBids []string) {
	if tr == nil {
		return
	}
	bids := make(map[string]bool, len(secretBids))
	for _, b := range secretBids {
		bids[b] = true
	}
	byID := make(map[string]*axNode, len(tr.Nodes))
	for _, n := range tr.Nodes {
		byID[n.NodeID] = n
	}
	var secret []*axNode
	for _, n := range tr.Nodes {
		switch {
		case n.BrowsergymID != nil:
			if bids[*n.BrowsergymID] {
				secret = append(secret, n)
			}
		case n.BackendDOMNodeID != 0 && axField[n.Role.str()] && e.secretDOMNode(ctx, t, n.BackendDOMNodeID):
			secret = append(secret, n)
		}
	}
	if len(secret) == 0 {
		return
	}
	texts := map[string]bool{} // the secret fields' texts
	seen := map[*axNode]bool{}
	var mask func(n *axNode, self bool)
	mask = func(n *axNode, self bool) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		texts[n.Value.str()] = true
		redactAXValue(n.Value, false)
		if !self {
			texts[n.Name.str()] = true
		}
		redactAXValue(n.Name, self) // a field's own name is its label
		for _, c := range n.ChildIDs {
			mask(byID[c], false)
		}
	}
	for _, n := range secret {
		mask(n, true)
	}
	// JSON-escaped, as they would appear in a value's JSON.
	var quoted [][]byte
	var plain []string
	for x := range texts {
		// (a password shows as bullets, which tell nothing when repeated)
		if len(x) >= minSecretPart && strings.Trim(x, "\u2022") != "" {
			q, _ := json.Marshal(x)
			quoted = append(quoted, q[1:len(q)-1])
			plain = append(plain, x)
		}
	}
	if len(quoted) == 0 {
		return
	}
	holds := func(v *axValue) bool {
		if v == nil {
			return false
		}
		raw, _ := json.Marshal(v)
		for _, q := range quoted {
			if bytes.Contains(raw, q) {
				return true
			}
		}
		return false
	}
	// scrub replaces the texts inside a string value ("Pay with
	// [redacted]"), drops the value's sources and related nodes (they
	// repeat the texts), and replaces a value that still holds one.
	scrub := func(v *axValue) {
		if !holds(v) {
			return
		}
		if s := v.str(); s != "" {
			for _, x := range plain {
				s = strings.ReplaceAll(s, x, action.RedactedText)
			}
			v.Value, _ = json.Marshal(s)
		}
		v.Sources, v.RelatedNodes = nil, nil
		if holds(v) {
			v.Value = redactedJSON
		}
	}
	for _, n := range tr.Nodes {
		scrub(n.Name)
		scrub(n.Description)
		scrub(n.Value)
		for _, p := range n.Properties {
			scrub(p.Value)
		}
	}
}

// axField are the roles of the fields a secret can be typed into.
var axField = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "spinbutton": true}

// redactAXValue replaces a value that is a non-empty string (unless
// keep) and drops where Chromium says it came from (its sources repeat
// the text).
func redactAXValue(v *axValue, keep bool) {
	if v == nil {
		return
	}
	if !keep && v.str() != "" {
		v.Value = redactedJSON
	}
	v.Sources, v.RelatedNodes = nil, nil
}

// secretDOMNode tells whether the DOM node with backend id id is a secret
// field; true when it cannot be told.
func (e *Engine) secretDOMNode(ctx context.Context, t *tab, id int64) bool {
	var n *cdp.Node
	err := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		r, err := chromedp.Call(c, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: cdp.BackendNodeID(id)})
		n = r.Node
		return err
	})
	if err != nil || n == nil {
		e.logf("browser: could not tell whether a field is a password or payment field (%v); its value is masked", err)
		return true
	}
	var typ, ac string
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		switch strings.ToLower(n.Attributes[i]) {
		case "type":
			typ = n.Attributes[i+1]
		case "autocomplete":
			ac = n.Attributes[i+1]
		}
	}
	return secretField(n.LocalName, typ, ac)
}

// maskSecrets returns raw, the snapshot s was decoded from, with every
// string that is, or holds, the value of a secret field (its value
// attribute, inputValue or textValue) replaced by action.RedactedText: the
// field's editor's text node and layout text share the string. The masked
// strings are s's own from then on. ok is false when the snapshot cannot be
// written back (it is then left out).
func (s *domSnap) maskSecrets(raw json.RawMessage) (json.RawMessage, bool) {
	values := map[string]bool{} // the secret fields' values
	for _, d := range s.Documents {
		nn := d.Nodes
		secret := map[int]bool{}
		for i, a := range nn.Attributes {
			if i >= len(nn.NodeName) {
				break
			}
			var typ, ac, val string
			for k := 0; k+1 < len(a); k += 2 {
				switch strings.ToLower(s.str(a[k])) {
				case "type":
					typ = s.str(a[k+1])
				case "autocomplete":
					ac = s.str(a[k+1])
				case "value":
					val = s.str(a[k+1])
				}
			}
			if secretField(s.str(nn.NodeName[i]), typ, ac) {
				secret[i] = true
				values[val] = true
			}
		}
		for _, r := range []*rareStrings{nn.InputValue, nn.TextValue} {
			if r == nil {
				continue
			}
			for k, i := range r.Index {
				if secret[i] && k < len(r.Value) {
					values[s.str(r.Value[k])] = true
				}
			}
		}
	}
	delete(values, "")
	if len(values) == 0 {
		return raw, true
	}
	changed := false
	for i, x := range s.Strings {
		for v := range values {
			if x == v || (len(v) >= minSecretPart && strings.Contains(x, v)) {
				s.Strings[i] = action.RedactedText
				changed = true
				break
			}
		}
	}
	if !changed {
		return raw, true
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil, false
	}
	b, err := json.Marshal(s.Strings)
	if err != nil {
		return nil, false
	}
	top["strings"] = b
	out, err := json.Marshal(top)
	if err != nil {
		return nil, false
	}
	return out, true
}
