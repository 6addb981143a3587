package endpoints

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Schema is a JSON Schema (2020-12 subset, as OpenAPI 3.1 uses) inferred
// from samples: the types seen (with "null" when a value was null), the
// properties of objects with the ones present in every sample required,
// the items of arrays merged over all elements, and a few distinct sample
// values of scalars.
type Schema struct {
	Type []string `json:"type,omitempty"`
	// Format is "uuid" or "date" for path and query values that all were.
	Format     string             `json:"format,omitempty"`
	Properties map[string]*Schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	// AdditionalProperties is set instead of Properties for objects used
	// as maps keyed by ids ({"12": {...}, "13": {...}}).
	AdditionalProperties *Schema `json:"additionalProperties,omitempty"`
	Items                *Schema `json:"items,omitempty"`
	Examples             []any   `json:"examples,omitempty"`

	// Counts while merging (not kept in JSON).
	objects int
	seen    map[string]int
}

const (
	maxDepth    = 12
	maxProps    = 200
	maxExampleL = 80
)

// merge adds one decoded JSON value (json.Number for numbers) to s.
func (s *Schema) merge(v any, samples, depth int) {
	if depth > maxDepth {
		return
	}
	switch x := v.(type) {
	case nil:
		s.addType("null")
	case bool:
		s.addType("boolean")
		s.addExample(x, samples)
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			s.addType("integer")
			n, _ := x.Int64()
			s.addExample(n, samples)
		} else {
			s.addType("number")
			f, _ := x.Float64()
			if !math.IsInf(f, 0) && !math.IsNaN(f) {
				s.addExample(f, samples)
			}
		}
	case string:
		s.addType("string")
		if x != "" && x != "[redacted]" && len(x) <= maxExampleL {
			s.addExample(x, samples)
		}
	case []any:
		s.addType("array")
		if s.Items == nil && len(x) > 0 {
			s.Items = &Schema{}
		}
		for _, it := range x {
			s.Items.merge(it, samples, depth+1)
		}
	case map[string]any:
		s.addType("object")
		s.objects++
		if s.seen == nil {
			s.seen = map[string]int{}
		}
		if s.AdditionalProperties != nil || (len(x) >= 2 && allIDKeys(x) && s.Properties == nil) {
			if s.AdditionalProperties == nil {
				s.AdditionalProperties = &Schema{}
			}
			for _, val := range x {
				s.AdditionalProperties.merge(val, samples, depth+1)
			}
			return
		}
		if s.Properties == nil {
			s.Properties = map[string]*Schema{}
		}
		for k, val := range x {
			p := s.Properties[k]
			if p == nil {
				if len(s.Properties) >= maxProps {
					continue
				}
				p = &Schema{}
				s.Properties[k] = p
			}
			s.seen[k]++
			p.merge(val, samples, depth+1)
		}
	}
}

func allIDKeys(m map[string]any) bool {
	for k := range m {
		if !isNumeric(k) && !isUUID(k) {
			return false
		}
	}
	return true
}

func (s *Schema) addType(t string) {
	for _, have := range s.Type {
		if have == t {
			return
		}
	}
	s.Type = append(s.Type, t)
}

func (s *Schema) addExample(v any, samples int) {
	for _, e := range s.Examples {
		if e == v {
			return
		}
	}
	if len(s.Examples) < samples {
		s.Examples = append(s.Examples, v)
	}
}

// finish settles the merged schema: required properties, "integer" folded
// into "number" when both were seen, types in a fixed order.
func (s *Schema) finish() {
	if s == nil {
		return
	}
	has := map[string]bool{}
	for _, t := range s.Type {
		has[t] = true
	}
	if has["integer"] && has["number"] {
		delete(has, "integer")
	}
	s.Type = s.Type[:0]
	for _, t := range []string{"object", "array", "string", "integer", "number", "boolean", "null"} {
		if has[t] {
			s.Type = append(s.Type, t)
		}
	}
	s.Required = nil
	for k := range s.Properties {
		if s.seen[k] == s.objects {
			s.Required = append(s.Required, k)
		}
		s.Properties[k].finish()
	}
	sort.Strings(s.Required)
	s.Items.finish()
	s.AdditionalProperties.finish()
}

// fieldNames lists the property names in s, depth first, for search.
func (s *Schema) fieldNames(out []string, depth int) []string {
	if s == nil || depth > 4 {
		return out
	}
	for _, k := range sortedKeys(s.Properties) {
		out = append(out, k)
		out = s.Properties[k].fieldNames(out, depth+1)
	}
	out = s.Items.fieldNames(out, depth+1)
	return s.AdditionalProperties.fieldNames(out, depth+1)
}

// exampleWords lists the string examples in s that are words, not
// numbers, UUIDs or hashes, for search.
func (s *Schema) exampleWords(out []string, depth int) []string {
	if s == nil || depth > 4 {
		return out
	}
	for _, e := range s.Examples {
		if str, ok := e.(string); ok && !isNumeric(str) && !isUUID(str) && !hexRe.MatchString(str) {
			out = append(out, str)
		}
	}
	for _, k := range sortedKeys(s.Properties) {
		out = s.Properties[k].exampleWords(out, depth+1)
	}
	out = s.Items.exampleWords(out, depth+1)
	return s.AdditionalProperties.exampleWords(out, depth+1)
}

// brief is a one-line outline of s: {id: integer, name: string, tags: [string]}.
func (s *Schema) brief(depth int) string {
	if s == nil {
		return "?"
	}
	switch {
	case len(s.Properties) > 0:
		if depth >= 2 {
			return "{…}"
		}
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		var parts []string
		for _, k := range sortedKeys(s.Properties) {
			opt := "?"
			if req[k] {
				opt = ""
			}
			parts = append(parts, k+opt+": "+s.Properties[k].brief(depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case s.AdditionalProperties != nil:
		return "{id: " + s.AdditionalProperties.brief(depth+1) + "}"
	case s.Items != nil:
		return "[" + s.Items.brief(depth+1) + "]"
	}
	return strings.Join(s.Type, "|")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// scalarSchema infers the type of query, path and form values (strings on
// the wire): integer, number, boolean or string.
func scalarSchema(values []string, samples int) *Schema {
	s := &Schema{}
	kind := ""
	for _, v := range values {
		k := "string"
		switch {
		case isNumeric(v) && len(v) < 16:
			k = "integer"
		case isFloat(v):
			k = "number"
		case v == "true" || v == "false":
			k = "boolean"
		}
		switch {
		case kind == "":
			kind = k
		case kind == k:
		case (kind == "integer" && k == "number") || (kind == "number" && k == "integer"):
			kind = "number"
		default:
			kind = "string"
		}
	}
	if kind == "" {
		kind = "string"
	}
	s.Type = []string{kind}
	if kind == "string" && len(values) > 0 {
		uuids, dates := 0, 0
		for _, v := range values {
			if isUUID(v) {
				uuids++
			}
			if len(v) == 10 && dateRe.MatchString(v) {
				dates++
			}
		}
		switch len(values) {
		case uuids:
			s.Format = "uuid"
		case dates:
			s.Format = "date"
		}
	}
	for _, v := range values {
		if v == "" || v == "[redacted]" || len(v) > maxExampleL {
			continue
		}
		var ex any = v
		switch kind {
		case "integer":
			n, _ := strconv.ParseInt(v, 10, 64)
			ex = n
		case "number":
			f, _ := strconv.ParseFloat(v, 64)
			ex = f
		case "boolean":
			ex = v == "true"
		}
		s.addExample(ex, samples)
	}
	return s
}

func isFloat(v string) bool {
	if v == "" || strings.ContainsAny(v, "eExXpP_ ") || strings.HasPrefix(v, "+") {
		return false
	}
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}
