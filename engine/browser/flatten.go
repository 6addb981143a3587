package browser

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"waymark/engine/action/pyrepr"
)

// The flattened accessibility tree (axtree_txt) is written exactly as
// BrowserGym's flatten_axtree_to_str with its default arguments: a depth
// first walk from the first node; one line per printed node, one tab per
// depth, "[bid] role 'name'", then " value=..." and ", prop=value" for each
// property (required, focused and atomic bare when true; editable, readonly,
// level, settable, multiline, invalid and focusable left out). A node is not
// printed, its children moving up one level, when its role is LineBreak,
// when it has no name, when it is a generic node without properties, or
// when it is StaticText whose text is part of its parent's name. Strings and
// values are Python literals (repr).

// axIgnoredProps are the properties the flattener leaves out.
var axIgnoredProps = map[string]bool{"editable": true, "readonly": true, "level": true, "settable": true,
	"multiline": true, "invalid": true, "focusable": true}

// flattenAXTree writes the tree as BrowserGym's flatten_axtree_to_str does
// with its defaults.
func flattenAXTree(tr *axTree) string {
	if tr == nil || len(tr.Nodes) == 0 {
		return ""
	}
	// As BrowserGym's dict, a repeated node id keeps its last index.
	index := make(map[string]int, len(tr.Nodes))
	for i, n := range tr.Nodes {
		index[n.NodeID] = i
	}
	var dfs func(i, depth int, parentName string, seen map[int]bool) string
	dfs = func(i, depth int, parentName string, seen map[int]bool) string {
		if seen[i] {
			return "" // a cycle (never in a tree Chromium sends)
		}
		seen[i] = true
		defer delete(seen, i)
		n := tr.Nodes[i]
		var b strings.Builder
		role := n.Role.str()
		name := ""
		skip := false
		switch {
		case role == "LineBreak":
			skip = true
		case n.Name == nil:
			skip = true
		default:
			name = n.Name.str()
			var attrs []string
			for _, p := range n.Properties {
				if p.Value == nil || len(p.Value.Value) == 0 || axIgnoredProps[p.Name] {
					continue
				}
				switch p.Name {
				case "required", "focused", "atomic":
					if pyTruthy(p.Value.Value) {
						attrs = append(attrs, p.Name)
					}
				default:
					attrs = append(attrs, p.Name+"="+pyReprJSON(p.Value.Value))
				}
			}
			if role == "generic" && len(attrs) == 0 {
				skip = true
			}
			if role == "StaticText" && strings.Contains(parentName, name) {
				skip = true
			}
			if !skip {
				s := role
				if !(role == "generic" && name == "") {
					s += " " + pyrepr.String(pyStrip(name))
				}
				if n.BrowsergymID != nil {
					s = "[" + *n.BrowsergymID + "] " + s
				}
				if n.Value != nil && len(n.Value.Value) > 0 {
					s += " value=" + pyReprJSON(n.Value.Value)
				}
				for _, a := range attrs {
					s += ", " + a
				}
				b.WriteString(strings.Repeat("\t", depth))
				b.WriteString(s)
			}
		}
		childDepth := depth + 1
		if skip {
			childDepth = depth
		}
		for _, c := range n.ChildIDs {
			j, ok := index[c]
			if !ok || c == n.NodeID {
				continue
			}
			if cs := dfs(j, childDepth, name, seen); cs != "" {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(cs)
			}
		}
		return b.String()
	}
	return dfs(0, 0, "", map[int]bool{})
}

// pyStrip is Python's str.strip(): whitespace at both ends.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// pyTruthy is Python's truth of a JSON value.
func pyTruthy(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	case nil:
		return false
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// pyReprJSON writes a JSON value as Python's repr() of what json.loads
// makes of it: 'text', True, False, None, 3, 0.5.
func pyReprJSON(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	switch {
	case t == "true":
		return "True"
	case t == "false":
		return "False"
	case t == "null":
		return "None"
	case strings.HasPrefix(t, `"`):
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return pyrepr.String(s)
		}
	case strings.ContainsAny(t, ".eE"):
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return pyrepr.Float(f)
		}
	default:
		if _, err := strconv.ParseInt(t, 10, 64); err == nil {
			return t
		}
	}
	return t
}
