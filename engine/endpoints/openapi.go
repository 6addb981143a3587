package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// omap is a JSON/YAML object that keeps its keys in the order given, so
// the OpenAPI document reads openapi, info, servers, paths in that order.
type omap []kv

type kv struct {
	k string
	v any
}

func (m omap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (m omap) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range m {
		var v yaml.Node
		if err := v.Encode(e.v); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.k}, &v)
	}
	return n, nil
}

// OpenAPI is the catalogue as an OpenAPI 3.1 document in YAML.
func (c *Catalogue) OpenAPI() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c.openAPIDoc()); err != nil {
		panic(err) // only plain values: cannot fail
	}
	_ = enc.Close()
	return b.Bytes()
}

// OpenAPIJSON is the same OpenAPI 3.1 document in JSON.
func (c *Catalogue) OpenAPIJSON() []byte {
	b, err := json.MarshalIndent(c.openAPIDoc(), "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

func (c *Catalogue) openAPIDoc() omap {
	desc := fmt.Sprintf("Endpoints observed in %d HAR log(s), %d API call(s), extracted by Waymark. "+
		"Schemas are inferred from the samples: a field is required when every sample had it.", c.Logs, c.Calls)
	doc := omap{
		{"openapi", "3.1.0"},
		{"info", omap{{"title", "Observed API"}, {"version", "1"}, {"description", desc}}},
	}
	if len(c.Servers) > 0 {
		var servers []any
		for _, s := range c.Servers {
			servers = append(servers, omap{{"url", s}})
		}
		doc = append(doc, kv{"servers", servers})
	}
	paths := omap{}
	ids := map[string]int{}
	idx := map[string]int{}
	for _, ep := range c.Endpoints {
		i, ok := idx[ep.Path]
		if !ok {
			i = len(paths)
			idx[ep.Path] = i
			paths = append(paths, kv{ep.Path, omap{}})
		}
		paths[i].v = append(paths[i].v.(omap), kv{strings.ToLower(ep.Method), ep.operation(ids)})
	}
	return append(doc, kv{"paths", paths})
}

func (ep *Endpoint) operation(ids map[string]int) omap {
	id := operationID(ep.Method, ep.Path)
	ids[id]++
	if ids[id] > 1 {
		id += strconv.Itoa(ids[id])
	}
	op := omap{
		{"operationId", id},
		{"summary", ep.Method + " " + ep.Path},
	}
	var params []any
	for _, p := range ep.PathParams {
		params = append(params, omap{{"name", p.Name}, {"in", "path"}, {"required", true}, {"schema", p.Schema.doc()}})
	}
	for _, p := range ep.Query {
		params = append(params, omap{{"name", p.Name}, {"in", "query"}, {"required", p.Required}, {"schema", p.Schema.doc()}})
	}
	if len(params) > 0 {
		op = append(op, kv{"parameters", params})
	}
	if b := ep.RequestBody; b != nil {
		media := omap{}
		if b.Schema != nil {
			media = append(media, kv{"schema", b.Schema.doc()})
		}
		op = append(op, kv{"requestBody", omap{{"required", b.Required}, {"content", omap{{b.MediaType, media}}}}})
	}
	responses := omap{}
	for _, r := range ep.Responses {
		resp := omap{{"description", fmt.Sprintf("Observed %d time(s).", r.Count)}}
		if r.MediaType != "" && r.Status != 204 && r.Status != 304 {
			media := omap{}
			if r.Schema != nil {
				media = append(media, kv{"schema", r.Schema.doc()})
			}
			resp = append(resp, kv{"content", omap{{r.MediaType, media}}})
		}
		responses = append(responses, kv{strconv.Itoa(r.Status), resp})
	}
	if len(responses) == 0 {
		responses = omap{{"default", omap{{"description", "No response observed."}}}}
	}
	op = append(op, kv{"responses", responses})
	op = append(op, kv{"x-observed-calls", ep.Calls}, kv{"x-auth-observed", ep.Auth})
	return op
}

// operationID is camelCase of the method and the path words:
// getProductsProductId.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, w := range splitWords(path) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// doc is the schema as a JSON Schema object for OpenAPI 3.1.
func (s *Schema) doc() omap {
	if s == nil {
		return omap{}
	}
	var d omap
	switch len(s.Type) {
	case 0:
	case 1:
		d = append(d, kv{"type", s.Type[0]})
	default:
		d = append(d, kv{"type", s.Type})
	}
	if s.Format != "" {
		d = append(d, kv{"format", s.Format})
	}
	if len(s.Properties) > 0 {
		props := omap{}
		for _, k := range sortedKeys(s.Properties) {
			props = append(props, kv{k, s.Properties[k].doc()})
		}
		d = append(d, kv{"properties", props})
		if len(s.Required) > 0 {
			d = append(d, kv{"required", s.Required})
		}
	}
	if s.AdditionalProperties != nil {
		d = append(d, kv{"additionalProperties", s.AdditionalProperties.doc()})
	}
	if s.Items != nil {
		d = append(d, kv{"items", s.Items.doc()})
	}
	if len(s.Examples) > 0 {
		ex := make([]any, len(s.Examples))
		for i, e := range s.Examples {
			ex[i] = plainValue(e)
		}
		d = append(d, kv{"examples", ex})
	}
	return d
}

// plainValue turns a json.Number (from ReadJSON) into an int or float so
// YAML writes a number, not a string.
func plainValue(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		f, _ := n.Float64()
		return f
	}
	return v
}
