package practice

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

type wikiTable struct {
	Caption string
	Head    []string
	Rows    [][]string
}

type wikiSection struct {
	H     string
	P     []string
	Table *wikiTable
}

type wikiArticle struct {
	Title      string
	Categories []string
	Image      string
	Lead       string
	Infobox    [][2]string
	Sections   []wikiSection
}

type wiki struct {
	articles []wikiArticle
	pages    map[string]*template.Template
	static   http.Handler
}

func newWiki() (*wiki, error) {
	raw, err := files.ReadFile("sites/wiki/articles.json")
	if err != nil {
		return nil, err
	}
	wk := &wiki{static: staticHandler("wiki")}
	if err := json.Unmarshal(raw, &wk.articles); err != nil {
		return nil, fmt.Errorf("sites/wiki/articles.json: %w", err)
	}
	funcs := template.FuncMap{
		"wikitext": func(base, s string) template.HTML { return wikiText(base, s) },
		"slug":     wikiSlug,
		"picture":  wikiPicture,
		"plain":    plainText,
	}
	wk.pages, err = parsePages("wiki", funcs, "main", "article", "search", "category", "notfound")
	return wk, err
}

// wikiSlug turns a title into its URL path element: spaces become underscores.
func wikiSlug(title string) string { return strings.ReplaceAll(title, " ", "_") }

var (
	wikiLink = regexp.MustCompile(`\[\[([^\]|]+)(?:\|([^\]]+))?\]\]`)
	wikiBold = regexp.MustCompile(`'''(.+?)'''`)
)

// wikiText renders the tiny markup of the articles: [[Title]], [[Title|text]]
// and ”'bold”', everything else escaped.
func wikiText(base, s string) template.HTML {
	s = template.HTMLEscapeString(s)
	s = strings.ReplaceAll(s, "&#39;", "'")
	s = wikiBold.ReplaceAllString(s, "<b>$1</b>")
	s = wikiLink.ReplaceAllStringFunc(s, func(m string) string {
		sub := wikiLink.FindStringSubmatch(m)
		text := sub[1]
		if sub[2] != "" {
			text = sub[2]
		}
		return `<a href="` + base + `/wiki/` + url.PathEscape(wikiSlug(sub[1])) + `">` + text + `</a>`
	})
	s = strings.ReplaceAll(s, "'", "&#39;")
	return template.HTML(s)
}

// plainText drops the markup: for search snippets.
func plainText(s string) string {
	s = wikiBold.ReplaceAllString(s, "$1")
	return wikiLink.ReplaceAllStringFunc(s, func(m string) string {
		sub := wikiLink.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[2]
		}
		return sub[1]
	})
}

func (wk *wiki) article(title string) (wikiArticle, bool) {
	for _, a := range wk.articles {
		if strings.EqualFold(a.Title, title) {
			return a, true
		}
	}
	return wikiArticle{}, false
}

func (wk *wiki) categories() []string {
	var out []string
	for _, a := range wk.articles {
		for _, c := range a.Categories {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

type wikiHit struct {
	Title, Snippet string
}

func (wk *wiki) search(q string) []wikiHit {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return nil
	}
	type scored struct {
		hit   wikiHit
		score int
	}
	var hits []scored
	for _, a := range wk.articles {
		var body strings.Builder
		body.WriteString(plainText(a.Lead))
		for _, row := range a.Infobox {
			body.WriteString(" " + row[0] + " " + plainText(row[1]))
		}
		for _, s := range a.Sections {
			body.WriteString(" " + s.H + " " + plainText(strings.Join(s.P, " ")))
		}
		text := strings.ToLower(body.String())
		title := strings.ToLower(a.Title)
		score := 0
		ok := true
		for _, w := range words {
			switch {
			case strings.Contains(title, w):
				score += 10 + strings.Count(text, w)
			case strings.Contains(text, w):
				score += strings.Count(text, w)
			default:
				ok = false
			}
		}
		if ok {
			snip := plainText(a.Lead)
			if len(snip) > 160 {
				snip = snip[:strings.LastIndex(snip[:160], " ")] + " …"
			}
			hits = append(hits, scored{wikiHit{a.Title, snip}, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	out := make([]wikiHit, len(hits))
	for i, h := range hits {
		out[i] = h.hit
	}
	return out
}

func (wk *wiki) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := base(r)
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/static/"):
		wk.static.ServeHTTP(w, r)
	case path == "/":
		// The featured article changes every day, the same for everyone.
		day := time.Now().UTC().YearDay()
		feat := wk.articles[(day*7)%len(wk.articles)]
		var recent []string
		for i := 0; i < 5; i++ {
			recent = append(recent, wk.articles[(day+3*i+1)%len(wk.articles)].Title)
		}
		render(w, wk.pages["main"], 200, page{Base: b, Title: "Kaldopedia, the free encyclopedia of Kaldoria", Data: map[string]any{
			"Featured": feat, "Count": len(wk.articles), "Categories": wk.categories(), "Recent": recent}})
	case strings.HasPrefix(path, "/wiki/"):
		title := strings.ReplaceAll(strings.TrimPrefix(path, "/wiki/"), "_", " ")
		a, ok := wk.article(title)
		if !ok {
			render(w, wk.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: title})
			return
		}
		if wikiSlug(a.Title) != strings.TrimPrefix(path, "/wiki/") {
			http.Redirect(w, r, b+"/wiki/"+url.PathEscape(wikiSlug(a.Title)), http.StatusFound)
			return
		}
		render(w, wk.pages["article"], 200, page{Base: b, Title: a.Title + " — Kaldopedia", Data: a})
	case path == "/search":
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		render(w, wk.pages["search"], 200, page{Base: b, Title: "Search results: " + q + " — Kaldopedia", Query: q, Data: map[string]any{"Q": q, "Hits": wk.search(q)}})
	case strings.HasPrefix(path, "/category/"):
		name := strings.ReplaceAll(strings.TrimPrefix(path, "/category/"), "_", " ")
		var titles []string
		for _, a := range wk.articles {
			for _, c := range a.Categories {
				if strings.EqualFold(c, name) {
					titles = append(titles, a.Title)
					name = c
				}
			}
		}
		if titles == nil {
			render(w, wk.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: "Category:" + name})
			return
		}
		slices.Sort(titles)
		render(w, wk.pages["category"], 200, page{Base: b, Title: "Category: " + name + " — Kaldopedia", Data: map[string]any{"Name": name, "Titles": titles}})
	case path == "/categories":
		render(w, wk.pages["category"], 200, page{Base: b, Title: "All categories — Kaldopedia", Data: map[string]any{"Name": "", "Cats": wk.categories()}})
	default:
		render(w, wk.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: strings.TrimPrefix(path, "/")})
	}
}

// wikiPicture draws an infobox picture in SVG.
func wikiPicture(kind string) template.HTML {
	var body string
	switch kind {
	case "flag":
		body = `<rect width="240" height="150" fill="#1d4e89"/><rect y="60" width="240" height="30" fill="#f2f2f2"/><rect x="70" width="30" height="150" fill="#f2f2f2"/><rect y="68" width="240" height="14" fill="#d8342c"/><rect x="78" width="14" height="150" fill="#d8342c"/>`
	case "city":
		body = `<rect width="240" height="150" fill="#bfe0f2"/><circle cx="200" cy="30" r="14" fill="#ffd166"/><rect y="118" width="240" height="32" fill="#3b6e8f"/>` +
			`<rect x="14" y="70" width="26" height="50" fill="#7a8793"/><rect x="44" y="50" width="22" height="70" fill="#5f6b76"/><path d="M70 120 V60 L84 40 L98 60 V120Z" fill="#9a6b4f"/><rect x="104" y="80" width="30" height="40" fill="#c9b79c"/><rect x="138" y="56" width="18" height="64" fill="#6d7a86"/><rect x="160" y="74" width="34" height="46" fill="#8c99a5"/><rect x="198" y="64" width="24" height="56" fill="#5f6b76"/>`
	case "river":
		body = `<rect width="240" height="150" fill="#a8d5a2"/><path d="M0 40 Q60 20 100 60 T240 110 L240 140 Q160 100 110 90 T0 70Z" fill="#4a90c2"/><circle cx="40" cy="110" r="14" fill="#5d9c59"/><circle cx="190" cy="40" r="18" fill="#5d9c59"/>`
	case "lake":
		body = `<rect width="240" height="150" fill="#9fcf98"/><ellipse cx="120" cy="80" rx="90" ry="44" fill="#3f86bf"/><ellipse cx="100" cy="70" rx="30" ry="8" fill="#ffffff44"/><path d="M0 40 L40 10 L80 40Z" fill="#6b8f5e"/>`
	case "mountain":
		body = `<rect width="240" height="150" fill="#cfe6f5"/><path d="M0 150 L80 50 L120 90 L160 20 L240 150Z" fill="#6b7b8c"/><path d="M144 44 L160 20 L178 50 L166 44 L156 54Z" fill="#fff"/><path d="M0 150 L60 110 L120 150Z" fill="#4f7a4a"/>`
	case "person":
		body = `<rect width="240" height="150" fill="#e9e4da"/><circle cx="120" cy="58" r="30" fill="#8f7f6e"/><path d="M60 150 Q60 96 120 96 Q180 96 180 150Z" fill="#5b4f45"/>`
	case "observatory":
		body = `<rect width="240" height="150" fill="#1b2a4a"/><circle cx="40" cy="30" r="2" fill="#fff"/><circle cx="200" cy="20" r="2" fill="#fff"/><circle cx="170" cy="50" r="1.5" fill="#fff"/><path d="M0 150 Q120 100 240 150Z" fill="#2c3e2e"/><rect x="90" y="80" width="60" height="45" fill="#d9d4c7"/><path d="M86 82 A34 34 0 0 1 154 82Z" fill="#b8b2a4"/><rect x="116" y="52" width="8" height="26" fill="#1b2a4a"/>`
	case "coin":
		body = `<rect width="240" height="150" fill="#f3efe2"/><circle cx="95" cy="75" r="50" fill="#d4a63a"/><circle cx="95" cy="75" r="40" fill="none" stroke="#b08526" stroke-width="3"/><text x="95" y="86" font-size="30" text-anchor="middle" fill="#7a5a10" font-family="serif">K</text><rect x="150" y="45" width="70" height="60" rx="4" fill="#6fa37a"/><circle cx="185" cy="75" r="16" fill="#4f8a5c"/>`
	case "train":
		body = `<rect width="240" height="150" fill="#d7ecf7"/><rect y="120" width="240" height="6" fill="#555"/><rect x="30" y="70" width="150" height="46" rx="8" fill="#b03a2e"/><rect x="180" y="82" width="36" height="34" rx="6" fill="#8e2a20"/><rect x="44" y="80" width="26" height="18" fill="#e8f4fb"/><rect x="80" y="80" width="26" height="18" fill="#e8f4fb"/><rect x="116" y="80" width="26" height="18" fill="#e8f4fb"/><circle cx="60" cy="120" r="8" fill="#333"/><circle cx="150" cy="120" r="8" fill="#333"/>`
	default:
		body = `<rect width="240" height="150" fill="#ddd"/>`
	}
	return template.HTML(`<svg width="240" height="150" viewBox="0 0 240 150" role="img" aria-label="` + template.HTMLEscapeString(kind) + `">` + body + `</svg>`)
}
