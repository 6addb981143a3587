package practice

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

type shopCategory struct {
	Slug, Name, Blurb, Kind, Color string
}

type shopReview struct {
	Author, Date, Title, Text string
	Rating                    int
}

type shopProduct struct {
	Slug, Name, Brand, Category, Kind, Color, ColorName string
	Price                                               int // cents
	Rating                                              float64
	ReviewCount                                         int
	Waterproof                                          bool
	Tags, Sizes                                         []string
	Stock                                               int
	Description                                         string
	Specs                                               [][2]string
	Reviews                                             []shopReview
}

type shop struct {
	cats     []shopCategory
	products []shopProduct
	pages    map[string]*template.Template
	static   http.Handler
}

// page is what every template of every site receives.
type page struct {
	Base  string // "" or "/shop": prefix of every site link
	Title string
	Query string // the search box's text
	Data  any
}

func newShop() (*shop, error) {
	raw, err := files.ReadFile("sites/shop/data.json")
	if err != nil {
		return nil, err
	}
	var d struct {
		Categories []shopCategory
		Products   []shopProduct
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("sites/shop/data.json: %w", err)
	}
	s := &shop{cats: d.Categories, products: d.Products, static: staticHandler("shop")}
	funcs := template.FuncMap{
		"money": money,
		"art":   productArt,
		"stars": stars,
		"cat":   s.category,
		"dict":  func(base string, p any) map[string]any { return map[string]any{"Base": base, "P": p} },
		"float": func(i int) float64 { return float64(i) },
		"json": func(v any) (template.JS, error) {
			b, err := json.Marshal(v)
			return template.JS(b), err
		},
	}
	s.pages, err = parsePages("shop", funcs, "home", "list", "product", "cart", "checkout", "order", "notfound")
	return s, err
}

// parsePages parses sites/<site>/layout.html with each page template.
func parsePages(site string, funcs template.FuncMap, names ...string) (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, n := range names {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "sites/"+site+"/layout.html", "sites/"+site+"/"+n+".html")
		if err != nil {
			return nil, err
		}
		out[n] = t
	}
	return out, nil
}

func render(w http.ResponseWriter, t *template.Template, status int, p page) {
	var b strings.Builder
	if err := t.Execute(&b, p); err != nil {
		http.Error(w, "practice site template error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func money(cents int) string {
	s := strconv.Itoa(cents / 100)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return fmt.Sprintf("$%s.%02d", s, cents%100)
}

func stars(r float64) string {
	n := int(r + 0.5)
	return strings.Repeat("★", n) + strings.Repeat("☆", 5-n)
}

func (s *shop) category(slug string) shopCategory {
	for _, c := range s.cats {
		if c.Slug == slug {
			return c
		}
	}
	return shopCategory{Slug: slug, Name: slug}
}

func (s *shop) product(slug string) (shopProduct, bool) {
	for _, p := range s.products {
		if p.Slug == slug {
			return p, true
		}
	}
	return shopProduct{}, false
}

// listing is the data of a category or search page.
type listing struct {
	Heading    string
	Category   string // slug, "" on search
	Query      string
	Min, Max   string
	Sort       string
	Products   []shopProduct
	Total      int
	Action     string // the filter form's action path (without base)
	Brands     []string
	Brand      string
	Waterproof bool
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := base(r)
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/static/"):
		s.static.ServeHTTP(w, r)
	case path == "/":
		featured := []shopProduct{}
		for _, slug := range []string{"trail-runner-x", "stormshell-jacket", "ridgeline-35", "nomad-2-tent", "summit-gtx", "alpine-thermos", "featherlite-down", "beacon-400-headlamp"} {
			if p, ok := s.product(slug); ok {
				featured = append(featured, p)
			}
		}
		render(w, s.pages["home"], 200, page{Base: b, Title: "Trailhead Outfitters — outdoor gear", Data: map[string]any{"Categories": s.cats, "Featured": featured}})
	case strings.HasPrefix(path, "/category/"):
		slug := strings.Trim(strings.TrimPrefix(path, "/category/"), "/")
		c := s.category(slug)
		if c.Blurb == "" {
			render(w, s.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: "There is no category called “" + slug + "”."})
			return
		}
		l := s.filter(r, func(p shopProduct) bool { return p.Category == slug })
		l.Heading, l.Category, l.Action = c.Name, slug, "/category/"+slug
		render(w, s.pages["list"], 200, page{Base: b, Title: c.Name + " — Trailhead Outfitters", Data: l})
	case path == "/search":
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		l := s.filter(r, func(p shopProduct) bool { return matches(p, s.category(p.Category).Name, q) })
		l.Query, l.Action = q, "/search"
		l.Heading = "Search results for “" + q + "”"
		if q == "" {
			l.Heading = "All products"
		}
		render(w, s.pages["list"], 200, page{Base: b, Title: "Search: " + q + " — Trailhead Outfitters", Query: q, Data: l})
	case strings.HasPrefix(path, "/product/"):
		slug := strings.Trim(strings.TrimPrefix(path, "/product/"), "/")
		p, ok := s.product(slug)
		if !ok {
			render(w, s.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: "We could not find that product. It may have been discontinued."})
			return
		}
		var related []shopProduct
		for _, o := range s.products {
			if o.Category == p.Category && o.Slug != p.Slug && len(related) < 3 {
				related = append(related, o)
			}
		}
		render(w, s.pages["product"], 200, page{Base: b, Title: p.Name + " — Trailhead Outfitters", Data: map[string]any{"P": p, "Related": related, "Cat": s.category(p.Category)}})
	case path == "/cart":
		render(w, s.pages["cart"], 200, page{Base: b, Title: "Your cart — Trailhead Outfitters"})
	case path == "/checkout":
		render(w, s.pages["checkout"], 200, page{Base: b, Title: "Checkout — Trailhead Outfitters"})
	case strings.HasPrefix(path, "/order/"):
		render(w, s.pages["order"], 200, page{Base: b, Title: "Order confirmed — Trailhead Outfitters", Data: strings.Trim(strings.TrimPrefix(path, "/order/"), "/")})
	case strings.HasPrefix(path, "/api/") && s.serveAPI(w, r, path):
	default:
		render(w, s.pages["notfound"], 404, page{Base: b, Title: "Not found", Data: "This page does not exist on Trailhead Outfitters."})
	}
}

// matches reports whether every word of q is found in the product's text (a
// trailing plural "s" may be dropped: "boots" finds "boot").
func matches(p shopProduct, catName, q string) bool {
	text := strings.ToLower(strings.Join(append([]string{p.Name, p.Brand, p.Category, catName, p.Kind, p.ColorName, p.Description}, p.Tags...), " "))
	if p.Waterproof {
		text += " waterproof"
	}
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.Contains(text, w) && !strings.Contains(text, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return true
}

func (s *shop) filter(r *http.Request, keep func(shopProduct) bool) listing {
	q := r.URL.Query()
	l := listing{Min: q.Get("min"), Max: q.Get("max"), Sort: q.Get("sort"), Brand: q.Get("brand"), Waterproof: q.Get("waterproof") == "1"}
	minC, hasMin := dollars(l.Min)
	maxC, hasMax := dollars(l.Max)
	brands := map[string]bool{}
	for _, p := range s.products {
		if !keep(p) {
			continue
		}
		brands[p.Brand] = true
		if (hasMin && p.Price < minC) || (hasMax && p.Price > maxC) || (l.Brand != "" && p.Brand != l.Brand) || (l.Waterproof && !p.Waterproof) {
			continue
		}
		l.Products = append(l.Products, p)
	}
	for br := range brands {
		l.Brands = append(l.Brands, br)
	}
	slices.Sort(l.Brands)
	switch l.Sort {
	case "price-asc":
		slices.SortStableFunc(l.Products, func(a, b shopProduct) int { return a.Price - b.Price })
	case "price-desc":
		slices.SortStableFunc(l.Products, func(a, b shopProduct) int { return b.Price - a.Price })
	case "rating":
		slices.SortStableFunc(l.Products, func(a, b shopProduct) int {
			switch {
			case a.Rating > b.Rating:
				return -1
			case a.Rating < b.Rating:
				return 1
			}
			return 0
		})
	}
	l.Total = len(l.Products)
	return l
}

func dollars(s string) (int, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return int(f*100 + 0.5), true
}
