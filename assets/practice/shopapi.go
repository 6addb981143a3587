package practice

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The shop's JSON API, used by its own pages (static/app.js): search
// suggestions, the cart's price check, the stock check and placing an order.
// Every answer is a function of the request and the catalogue only — no
// server state, no random ids, no clock — so the same steps in a fresh
// browser profile give the same responses.
//
//	GET  /api/products?q=…&limit=N  search (the search box's suggestions)
//	GET  /api/products/{id}         one product (the cart checks prices)
//	GET  /api/stock/{sku}?size=S    stock of a product, per size
//	POST /api/orders                place an order (JSON body) → 201

// apiProduct is a product in a search answer.
type apiProduct struct {
	ID        string `json:"id"` // the product's slug
	SKU       string `json:"sku"`
	Name      string `json:"name"`
	Brand     string `json:"brand"`
	Category  string `json:"category"`
	Price     int    `json:"price"` // cents
	PriceText string `json:"priceText"`
	URL       string `json:"url"` // the product page's path on the site
}

// apiProductDetail is the answer of GET /api/products/{id}.
type apiProductDetail struct {
	apiProduct
	Rating      float64     `json:"rating"`
	ReviewCount int         `json:"reviewCount"`
	Waterproof  bool        `json:"waterproof"`
	Color       string      `json:"color"`
	Sizes       []string    `json:"sizes"`
	Tags        []string    `json:"tags"`
	Description string      `json:"description"`
	Specs       [][2]string `json:"specs"`
}

// sku is the product's item number, as its page shows it.
func (p shopProduct) sku() string { return fmt.Sprintf("TH-%d-%d", p.Price, len(p.Slug)) }

func (p shopProduct) api() apiProduct {
	return apiProduct{ID: p.Slug, SKU: p.sku(), Name: p.Name, Brand: p.Brand, Category: p.Category,
		Price: p.Price, PriceText: money(p.Price), URL: "/product/" + p.Slug}
}

// serveAPI answers the paths under /api/ and reports whether path was one.
func (s *shop) serveAPI(w http.ResponseWriter, r *http.Request, path string) bool {
	switch {
	case path == "/api/products":
		if allow(w, r, http.MethodGet) {
			s.apiSearch(w, r)
		}
	case strings.HasPrefix(path, "/api/products/"):
		if !allow(w, r, http.MethodGet) {
			return true
		}
		p, ok := s.product(strings.TrimPrefix(path, "/api/products/"))
		if !ok {
			apiError(w, http.StatusNotFound, "no product with this id: use an id from GET /api/products?q=…")
			return true
		}
		writeJSON(w, apiProductDetail{apiProduct: p.api(), Rating: p.Rating, ReviewCount: p.ReviewCount, Waterproof: p.Waterproof,
			Color: p.ColorName, Sizes: nonNil(p.Sizes), Tags: nonNil(p.Tags), Description: p.Description, Specs: p.Specs})
	case strings.HasPrefix(path, "/api/stock/"):
		if allow(w, r, http.MethodGet) {
			s.apiStock(w, r, strings.TrimPrefix(path, "/api/stock/"))
		}
	case path == "/api/orders":
		if allow(w, r, http.MethodPost) {
			s.apiOrder(w, r)
		}
	default:
		return false
	}
	return true
}

func (s *shop) apiSearch(w http.ResponseWriter, r *http.Request) {
	// Answers after a short delay, like a real search backend.
	time.Sleep(200 * time.Millisecond)
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	limit := 6
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 50 {
			apiError(w, http.StatusBadRequest, "limit must be a whole number from 1 to 50")
			return
		}
		limit = n
	}
	out := []apiProduct{}
	total := 0
	for _, p := range s.products {
		if matches(p, s.category(p.Category).Name, q) {
			total++
			if len(out) < limit {
				out = append(out, p.api())
			}
		}
	}
	writeJSON(w, map[string]any{"query": q, "total": total, "products": out})
}

func (s *shop) apiStock(w http.ResponseWriter, r *http.Request, sku string) {
	time.Sleep(250 * time.Millisecond)
	i := slices.IndexFunc(s.products, func(p shopProduct) bool { return p.sku() == sku })
	if i < 0 {
		apiError(w, http.StatusNotFound, "no product with this SKU (the item number on its page, like TH-12900-14)")
		return
	}
	p := s.products[i]
	size := r.URL.Query().Get("size")
	n := p.Stock
	if size != "" {
		if !slices.Contains(p.Sizes, size) {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("%s has no size %q", p.Name, size))
			return
		}
		// A stable per-size figure.
		n = (p.Stock*7 + len(size)*3 + int(size[len(size)-1])) % (p.Stock + 1)
	}
	writeJSON(w, map[string]any{"sku": sku, "id": p.Slug, "size": size, "stock": n})
}

// orderRequest is the body of POST /api/orders. Seq is the number of orders
// this browser placed before (the page keeps them): the order number follows
// from it, so a replay in a fresh profile gets the same number.
type orderRequest struct {
	Seq   int `json:"seq"`
	Items []struct {
		ID   string `json:"id"`
		Size string `json:"size"`
		Qty  int    `json:"qty"`
	} `json:"items"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Address   string `json:"address"`
	City      string `json:"city"`
	Zip       string `json:"zip"`
	Country   string `json:"country"`
	Shipping  string `json:"shipping"`
	CardLast4 string `json:"cardLast4"`
}

var shippingCents = map[string]int{"standard": 500, "express": 1500, "pickup": 0}

func (s *shop) apiOrder(w http.ResponseWriter, r *http.Request) {
	var req orderRequest
	if msg := readJSON(r, &req); msg != "" {
		apiError(w, http.StatusBadRequest, msg)
		return
	}
	ship, ok := shippingCents[req.Shipping]
	switch {
	case len(req.Items) == 0:
		apiError(w, http.StatusUnprocessableEntity, "the order has no items: add a product to the cart first")
		return
	case !ok:
		apiError(w, http.StatusUnprocessableEntity, "shipping must be standard, express or pickup")
		return
	case strings.TrimSpace(req.Name) == "" || !strings.Contains(req.Email, "@"):
		apiError(w, http.StatusUnprocessableEntity, "a name and a valid email address are needed")
		return
	case req.Seq < 0 || req.Seq > 100000:
		apiError(w, http.StatusUnprocessableEntity, "seq must be the number of earlier orders (0 or more)")
		return
	}
	type line struct {
		ID        string `json:"id"`
		SKU       string `json:"sku"`
		Name      string `json:"name"`
		Size      string `json:"size"`
		Qty       int    `json:"qty"`
		Price     int    `json:"price"`
		LineTotal int    `json:"lineTotal"`
	}
	lines := []line{}
	sub := 0
	for _, it := range req.Items {
		p, ok := s.product(it.ID)
		switch {
		case !ok:
			apiError(w, http.StatusUnprocessableEntity, fmt.Sprintf("no product with id %q", it.ID))
			return
		case len(p.Sizes) > 0 && !slices.Contains(p.Sizes, it.Size):
			apiError(w, http.StatusUnprocessableEntity, fmt.Sprintf("%s needs one of its sizes, not %q", p.Name, it.Size))
			return
		case it.Qty < 1 || it.Qty > 10:
			apiError(w, http.StatusUnprocessableEntity, fmt.Sprintf("%s: the quantity must be 1 to 10", p.Name))
			return
		}
		lines = append(lines, line{p.Slug, p.sku(), p.Name, it.Size, it.Qty, p.Price, p.Price * it.Qty})
		sub += p.Price * it.Qty
	}
	writeJSONStatus(w, http.StatusCreated, map[string]any{
		"number": "TH-" + strconv.Itoa(482917+req.Seq), "status": "confirmed", "items": lines,
		"subtotal": sub, "shippingCost": ship, "total": sub + ship, "shipping": req.Shipping,
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// allow answers 405 with an Allow header unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || (method == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	w.Header().Set("Allow", method)
	apiError(w, http.StatusMethodNotAllowed, "use "+method+" here")
	return false
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSONStatus(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readJSON decodes a small JSON request body into v; it returns "" or what
// is wrong with the request.
func readJSON(r *http.Request, v any) string {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return "send the body as JSON with Content-Type: application/json"
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return "the body is not the JSON this endpoint expects: " + err.Error()
	}
	return ""
}
