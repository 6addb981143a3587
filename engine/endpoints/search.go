package endpoints

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Result is one endpoint found by a search, with its score (BM25, or the
// cosine similarity for embeddings; higher is better).
type Result struct {
	Endpoint *Endpoint
	Score    float64
}

// The words a question uses for what a method does.
var methodWords = map[string]string{
	"GET":    "get list show view read",
	"POST":   "post add submit send",
	"PUT":    "put update replace save",
	"PATCH":  "patch update",
	"DELETE": "delete",
}

// synonyms map words of a question and of an endpoint to one term, so
// "delete from wishlist" finds /wishlist/remove.
var synonyms = map[string]string{}

func init() {
	for _, group := range []string{
		"add create new insert make put place",
		"delete remove drop erase destroy",
		"get fetch show view read retrieve see",
		"update edit change modify set patch",
		"search find query lookup filter q keyword term",
		"order checkout purchase buy",
		"session login logged signin whoami",
		"detail info information",
		"total sum subtotal",
		"user customer account profile",
		"item line",
		"stock inventory availability available",
		"price cost",
	} {
		ws := strings.Fields(group)
		for _, w := range ws {
			synonyms[w] = ws[0]
		}
	}
}

var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "in": true, "on": true,
	"by": true, "with": true, "and": true, "or": true, "my": true, "me": true, "i": true, "is": true,
	"it": true, "from": true, "into": true, "at": true, "this": true, "that": true, "how": true,
	"do": true, "does": true, "what": true, "which": true, "be": true, "id": true, "api": true,
}

// tokens splits text into search terms: words of identifiers (camelCase,
// snake_case, kebab-case), lower case, singular, no stop words.
func tokens(text string) []string {
	var out []string
	for _, w := range splitWords(text) {
		if stopWords[w] {
			continue
		}
		w = singular(w)
		if c, ok := synonyms[w]; ok {
			w = c
		}
		out = append(out, w)
	}
	return out
}

// terms are an endpoint's search terms, weighted by repetition: path words
// count three times (the last one five: it names what the endpoint is
// about), parameter and request field names twice, the method's words,
// response field names and sample values once. A GET ending in a path
// parameter is a "detail"; one with a q-like query parameter a "search".
func (ep *Endpoint) terms() []string {
	var t []string
	add := func(text string, times int) {
		ws := tokens(text)
		for i := 0; i < times; i++ {
			t = append(t, ws...)
		}
	}
	add(methodWords[ep.Method], 1)
	var words []string
	for _, seg := range splitPath(ep.Path) {
		if !strings.HasPrefix(seg, "{") {
			words = append(words, seg)
		}
	}
	add(strings.Join(words, " "), 3)
	if len(words) > 0 {
		add(words[len(words)-1], 2)
	}
	if ep.Method == "GET" && strings.HasSuffix(ep.Path, "}") {
		add("detail", 1)
	}
	if ep.Method == "GET" && len(ep.Responses) > 0 && ep.Responses[0].Schema != nil && ep.Responses[0].Schema.Items != nil {
		add("list", 1)
	}
	for _, p := range ep.PathParams {
		add(p.Name, 1)
		add(strings.Join(p.Schema.exampleWords(nil, 0), " "), 1)
	}
	for _, p := range ep.Query {
		add(p.Name, 2)
		add(strings.Join(p.Schema.exampleWords(nil, 0), " "), 1)
	}
	if b := ep.RequestBody; b != nil && b.Schema != nil {
		add(strings.Join(b.Schema.fieldNames(nil, 0), " "), 2)
		add(strings.Join(b.Schema.exampleWords(nil, 0), " "), 1)
	}
	for _, r := range ep.Responses {
		if r.Schema != nil && r.Status < 400 {
			add(strings.Join(r.Schema.fieldNames(nil, 0), " "), 1)
			add(strings.Join(r.Schema.exampleWords(nil, 0), " "), 1)
		}
	}
	return t
}

// Search ranks the catalogue's endpoints for a question by BM25 over
// their terms and returns the best top (all when top <= 0) with a score
// above zero.
func (c *Catalogue) Search(query string, top int) []Result {
	q := tokens(query)
	docs := make([][]string, len(c.Endpoints))
	df := map[string]int{}
	total := 0
	for i, ep := range c.Endpoints {
		docs[i] = ep.terms()
		total += len(docs[i])
		seen := map[string]bool{}
		for _, w := range docs[i] {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	if len(docs) == 0 {
		return nil
	}
	const k1, b = 1.2, 0.3
	avg := float64(total) / float64(len(docs))
	n := float64(len(docs))
	var res []Result
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		score := 0.0
		for _, w := range uniq(q) {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
		if score > 0 {
			res = append(res, Result{Endpoint: c.Endpoints[i], Score: score})
		}
	}
	return topResults(res, top)
}

func uniq(ws []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func topResults(res []Result, top int) []Result {
	sort.SliceStable(res, func(i, j int) bool { return res[i].Score > res[j].Score })
	if top > 0 && len(res) > top {
		res = res[:top]
	}
	return res
}

// Document is the endpoint as text for a person or an agent (and for
// embedding): method and path, parameters, request body, responses.
func (ep *Endpoint) Document() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", ep.Method, ep.Path)
	for _, p := range ep.PathParams {
		fmt.Fprintf(&b, "  path %s: %s%s\n", p.Name, strings.Join(p.Schema.Type, "|"), examples(p.Schema))
	}
	for _, p := range ep.Query {
		req := "optional"
		if p.Required {
			req = "required"
		}
		fmt.Fprintf(&b, "  query %s (%s): %s%s\n", p.Name, req, strings.Join(p.Schema.Type, "|"), examples(p.Schema))
	}
	if rb := ep.RequestBody; rb != nil {
		fmt.Fprintf(&b, "  body %s: %s\n", rb.MediaType, rb.Schema.brief(0))
	}
	for _, r := range ep.Responses {
		if r.Schema != nil {
			fmt.Fprintf(&b, "  %d %s: %s\n", r.Status, r.MediaType, r.Schema.brief(0))
		} else {
			fmt.Fprintf(&b, "  %d %s\n", r.Status, r.MediaType)
		}
	}
	if ep.Auth {
		b.WriteString("  auth: cookie or token sent\n")
	}
	return b.String()
}

func examples(s *Schema) string {
	if s == nil || len(s.Examples) == 0 {
		return ""
	}
	var parts []string
	for _, e := range s.Examples {
		parts = append(parts, fmt.Sprint(plainValue(e)))
	}
	return " (e.g. " + strings.Join(parts, ", ") + ")"
}
