package endpoints

import (
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"

	"waymark/engine/har"
)

var (
	uuidRe    = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)
	hexRe     = regexp.MustCompile(`^[0-9a-fA-F]{8,}$`)
	versionRe = regexp.MustCompile(`^[vV][0-9]+(\.[0-9]+)*$`)
	dateRe    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`)
)

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func isUUID(s string) bool { return uuidRe.MatchString(s) }

// idLike says whether one path segment is an identifier by its form alone:
// a number, a UUID, a hex hash, a date, a long random token, or a SKU-like
// code mixing letters and digits with separators (MH01-XS-Black, 24-MB01).
// Version segments (v1, V2.1) are not.
func idLike(seg string) bool {
	if seg == "" || versionRe.MatchString(seg) {
		return false
	}
	if isNumeric(seg) || isUUID(seg) || dateRe.MatchString(seg) {
		return true
	}
	if hexRe.MatchString(seg) && strings.ContainsAny(seg, "0123456789") {
		return true
	}
	var letters, digits, upper, other int
	for _, r := range seg {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsUpper(r):
			upper++
			letters++
		case unicode.IsLetter(r):
			letters++
		default:
			other++
		}
	}
	if digits == 0 {
		return false
	}
	// A long token (session ids, base64 ids, hashes): 16+ characters with
	// digits and letters.
	if len(seg) >= 16 && letters > 0 && digits >= 2 {
		return true
	}
	// A SKU or code: digits with separators, or digits among capitals.
	if strings.ContainsAny(seg, "-_.~") && len(seg) >= 4 {
		return true
	}
	return upper > 0 && digits >= 2 && len(seg) >= 4
}

// slugLike says whether a segment may be a human-readable key (blue-shirt,
// Some_Title): separators, or mixed case after the first letter.
func slugLike(seg string) bool {
	if strings.ContainsAny(seg, "-_.~%+ ") {
		return true
	}
	for i, r := range seg {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// paramName names a path parameter after the segment before it, in camel
// case: products → productId, guest-carts → guestCartId, none → id.
func paramName(prev string) string {
	if prev == "" || strings.HasPrefix(prev, "{") || versionRe.MatchString(prev) {
		return "id"
	}
	words := splitWords(prev)
	if len(words) == 0 {
		return "id"
	}
	words[len(words)-1] = singular(words[len(words)-1])
	var b strings.Builder
	for i, w := range words {
		if i == 0 {
			b.WriteString(w)
		} else {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	b.WriteString("Id")
	return b.String()
}

// singular is a plain English singular for resource names.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "uses"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// splitWords splits an identifier into lower-case words at camelCase,
// snake_case, kebab-case, dots and digits' edges.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prev := cur[len(cur)-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		case unicode.IsDigit(r) && len(cur) > 0 && !unicode.IsDigit(cur[len(cur)-1]):
			flush()
		case !unicode.IsDigit(r) && len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// call is one kept API request, its path split into segments.
type call struct {
	method string
	segs   []string // literal segments; "" marks a parameter
	raw    []string // the segments as requested
	entry  *har.Entry
	body   any // the response decoded, when JSON
	keys   []string
	keysOK bool
	query  []har.NameValue
	log    int
}

// normalise turns the calls' literal segments into parameters: first the
// segments that are ids by their form, then, at each position of the path
// tree, sibling segments that vary between calls while what follows them
// looks alike (the same methods, sub-paths and response fields) and that
// are data, not names: values of the key fields of the application's
// responses (a category's slug in the category list, a product's id or
// link in the search results), or slugs beside an id already found, or
// three slugs or more answering alike, or three GETs or more answering
// objects (not lists: /api/brands, /api/tags) with the same fields. Action words (/cart/add,
// /cart/remove) are not data, so they stay even when their responses look
// alike.
func normalise(calls []*call, values map[string]bool) {
	for _, c := range calls {
		for i, s := range c.raw {
			if idLike(s) {
				c.segs[i] = ""
			} else {
				c.segs[i] = s
			}
		}
	}
	maxLen := 0
	for _, c := range calls {
		maxLen = max(maxLen, len(c.segs))
	}
	for pos := 0; pos < maxLen; pos++ {
		groups := map[string][]*call{}
		for _, c := range calls {
			if len(c.segs) > pos {
				k := strings.Join(c.segs[:pos], "/")
				groups[k] = append(groups[k], c)
			}
		}
		for _, k := range sortedKeys(groups) {
			mergeSiblings(groups[k], pos, values)
		}
	}
}

func mergeSiblings(group []*call, pos int, values map[string]bool) {
	bySeg := map[string][]*call{}
	var params []*call
	for _, c := range group {
		if c.segs[pos] == "" {
			params = append(params, c)
			continue
		}
		bySeg[c.segs[pos]] = append(bySeg[c.segs[pos]], c)
	}
	if len(bySeg) == 0 {
		return
	}
	var ps *shapeInfo
	if len(params) > 0 {
		ps = shape(params, pos)
	}
	// Cluster the siblings by shape.
	type cluster struct {
		sh   *shapeInfo
		segs []string
	}
	var clusters []*cluster
	for _, seg := range sortedKeys(bySeg) {
		sh := shape(bySeg[seg], pos)
		var home *cluster
		for _, cl := range clusters {
			if cl.sh.alike(sh) {
				home = cl
				break
			}
		}
		if home == nil {
			home = &cluster{sh: sh}
			clusters = append(clusters, home)
		}
		home.segs = append(home.segs, seg)
	}
	for _, cl := range clusters {
		data, slugs := 0, 0
		for _, s := range cl.segs {
			if values[s] {
				data++
			}
			if slugLike(s) {
				slugs++
			}
		}
		besideParam := ps != nil && ps.alike(cl.sh)
		if len(bySeg) == 1 && ps == nil && data == 1 && !slugLike(cl.segs[0]) && !lastInAll(bySeg[cl.segs[0]], pos) {
			// A lone plain word with deeper paths (/api/…) is a prefix,
			// even when some link ends in it.
			continue
		}
		merge := data >= 1 || (besideParam && slugs == len(cl.segs)) ||
			(len(cl.segs) >= 3 && cl.sh.onlyGET && (slugs == len(cl.segs) || (len(cl.sh.keys) > 0 && !cl.sh.keys["[]"])))
		if !merge {
			continue
		}
		for _, s := range cl.segs {
			for _, c := range bySeg[s] {
				c.segs[pos] = ""
			}
		}
	}
}

func lastInAll(cs []*call, pos int) bool {
	for _, c := range cs {
		if len(c.segs) != pos+1 {
			return false
		}
	}
	return true
}

// shapeInfo is what follows a path position in some calls: the set of
// method + remaining path, and the response field names.
type shapeInfo struct {
	routes  string
	keys    map[string]bool
	onlyGET bool
}

func shape(cs []*call, pos int) *shapeInfo {
	set := map[string]bool{}
	sh := &shapeInfo{keys: map[string]bool{}, onlyGET: true}
	for _, c := range cs {
		rest := make([]string, 0, len(c.segs)-pos-1)
		for _, s := range c.segs[pos+1:] {
			if s == "" {
				s = "{}"
			}
			rest = append(rest, s)
		}
		set[c.method+" /"+strings.Join(rest, "/")] = true
		if c.method != "GET" {
			sh.onlyGET = false
		}
		if len(rest) == 0 {
			if !c.keysOK {
				c.keys, c.keysOK = responseKeys(c.body), true
			}
			for _, k := range c.keys {
				sh.keys[k] = true
			}
		}
	}
	sh.routes = strings.Join(sortedKeys(set), "\n")
	return sh
}

// alike: the same routes, and response fields that mostly overlap
// (Jaccard 0.6 or more; optional fields differ between samples).
func (a *shapeInfo) alike(b *shapeInfo) bool {
	if a.routes != b.routes {
		return false
	}
	if len(a.keys) == 0 && len(b.keys) == 0 {
		return true
	}
	inter := 0
	for k := range a.keys {
		if b.keys[k] {
			inter++
		}
	}
	union := len(a.keys) + len(b.keys) - inter
	return float64(inter) >= 0.6*float64(union)
}

// responseKeys is the top-level field set of a JSON object response (or
// of the first element of an array), with "[]" marking an array.
func responseKeys(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		out = append(out, "[]")
		if len(a) == 0 {
			return out
		}
		v = a[0]
	}
	if m, ok := v.(map[string]any); ok {
		out = append(out, sortedKeys(m)...)
	}
	return out
}

// pageEvidence adds the last segment of a page load's URL to values when
// it looks like a key (/product/summit-gtx → summit-gtx): an API path
// with the same segment names the same thing.
func pageEvidence(e *har.Entry, values map[string]bool) {
	if e.ResourceType != "document" && (e.ResourceType != "" || responseType(e) != "text/html") {
		return
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return
	}
	if segs := splitPath(u.Path); len(segs) > 0 {
		if last := segs[len(segs)-1]; idLike(last) || (slugLike(last) && !staticExt[strings.ToLower(path.Ext(last))]) {
			values[last] = true
		}
	}
}

// keyish says whether a JSON field names a key of something: id, slug,
// sku, code, handle, key, uuid, or a link (url, href, path, permalink).
func keyish(field string) bool {
	ws := splitWords(field)
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "id", "ids", "slug", "sku", "code", "handle", "key", "uuid", "guid", "url", "href", "path", "permalink", "link", "uri":
		return true
	}
	return false
}

// collectValues gathers the values of a JSON document's key fields (see
// keyish) into set: strings and numbers as they are, and of links their
// last path segment (/product/summit-gtx → summit-gtx).
func collectValues(v any, set map[string]bool, field string, depth int) {
	if depth > maxDepth || len(set) > 200000 {
		return
	}
	switch x := v.(type) {
	case string:
		if len(x) > 300 || !keyish(field) {
			return
		}
		if !strings.Contains(x, "/") {
			set[x] = true
			return
		}
		p := x
		if u, err := url.Parse(x); err == nil {
			p = u.Path
		}
		if segs := splitPath(p); len(segs) > 0 {
			set[segs[len(segs)-1]] = true
		}
	case []any:
		for _, it := range x {
			collectValues(it, set, field, depth+1)
		}
	case map[string]any:
		for k, it := range x {
			collectValues(it, set, k, depth+1)
		}
	}
}

// template builds the path template of segments, naming the parameters.
func template(segs []string) (string, []string) {
	var b strings.Builder
	var names []string
	used := map[string]int{}
	prev := ""
	for _, s := range segs {
		b.WriteByte('/')
		if s == "" {
			n := paramName(prev)
			used[n]++
			if used[n] > 1 {
				n += string(rune('0' + min(used[n], 9)))
			}
			names = append(names, n)
			b.WriteString("{" + n + "}")
			prev = "{"
			continue
		}
		b.WriteString(s)
		prev = s
	}
	if len(segs) == 0 {
		b.WriteByte('/')
	}
	return b.String(), names
}
