package practice_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"waymark/assets/practice"
)

// apiEndpoints is the ground truth of the practice sites' JSON APIs: every
// endpoint each site has (METHOD and path template), and nothing else. Its
// pages call every one of them (shop: static/app.js; forms:
// static/forms.js). TestCatalogueOfPracticeSites checks the endpoint
// catalogue extracted from a captured episode against it; TestAPI checks
// each endpoint answers as its pages expect.
var apiEndpoints = map[string][]string{
	"shop.waymark.test": {
		"GET /api/products",      // ?q=…&limit=N: the search box's suggestions
		"GET /api/products/{id}", // the cart page's price check
		"GET /api/stock/{sku}",   // ?size=S: the product page's Check stock
		"POST /api/orders",       // JSON body; the checkout's Place order → 201
	},
	"forms.waymark.test": {
		"POST /api/signin",   // JSON email, password; the sign-in page
		"POST /api/bookings", // JSON body; the booking wizard's Book → 201
	},
}

type apiCall struct {
	method, host, path, ctype, body string
	status                          int
	want                            []string // substrings of the body
}

func (c apiCall) do(t *testing.T, h http.Handler) string {
	t.Helper()
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	req.Host = c.host
	if c.ctype != "" {
		req.Header.Set("Content-Type", c.ctype)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != c.status {
		t.Errorf("%s %s%s: HTTP %d, want %d (%s)", c.method, c.host, c.path, rec.Code, c.status, body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s%s: Content-Type %q, want application/json", c.method, c.host, c.path, ct)
	}
	if !json.Valid(body) {
		t.Errorf("%s %s%s: not JSON: %s", c.method, c.host, c.path, body)
	}
	for _, w := range c.want {
		if !strings.Contains(string(body), w) {
			t.Errorf("%s %s%s: body lacks %s: %s", c.method, c.host, c.path, w, body)
		}
	}
	return string(body)
}

func TestAPI(t *testing.T) {
	h, err := practice.Handler()
	if err != nil {
		t.Fatal(err)
	}
	const shop, forms, js = "shop.waymark.test", "forms.waymark.test", "application/json"
	order := `{"seq":1,"items":[{"id":"summit-gtx","size":"44","qty":2},{"id":"alpine-thermos","size":"","qty":1}],"name":"Jane Doe","email":"jane@example.com",` +
		`"address":"5 Fjord Street","city":"Varnholm","zip":"10115","country":"Kaldoria","shipping":"express","cardLast4":"4242"}`
	booking := `{"seq":0,"workshop":"bread","date":"2026-12-12","participants":3,"fullName":"Alex Kim","email":"alex.kim@example.com","phone":"","diet":"None"}`
	calls := []apiCall{
		{"GET", shop, "/api/products?q=boot", "", "", 200, []string{`"query":"boot"`, `"id":"summit-gtx","sku":"TH-18900-10","name":"Summit GTX Hiking Boot"`, `"priceText":"$189.00","url":"/product/summit-gtx"`}},
		{"GET", shop, "/api/products?q=zzzz", "", "", 200, []string{`{"products":[],"query":"zzzz","total":0}`}},
		{"GET", shop, "/api/products?q=&limit=2", "", "", 200, []string{`"total":26`}},
		{"GET", shop, "/api/products?q=boot&limit=x", "", "", 400, []string{"limit must be"}},
		{"GET", shop, "/api/products/summit-gtx", "", "", 200, []string{`"price":18900`, `"sizes":["39","40","41","42","43","44","45","46"]`, `"reviewCount":`}},
		{"GET", shop, "/api/products/alpine-thermos", "", "", 200, []string{`"sizes":[]`, `"sku":"TH-3400-14"`}},
		{"GET", shop, "/api/products/no-such-thing", "", "", 404, []string{`"error":"no product with this id`}},
		{"GET", shop, "/api/stock/TH-18900-10?size=44", "", "", 200, []string{`{"id":"summit-gtx","size":"44","sku":"TH-18900-10","stock":1}`}},
		{"GET", shop, "/api/stock/TH-12900-14?size=42", "", "", 200, []string{`"stock":4}`}},
		{"GET", shop, "/api/stock/TH-18900-10", "", "", 200, []string{`"size":"","sku":"TH-18900-10","stock":9}`}},
		{"GET", shop, "/api/stock/TH-18900-10?size=99", "", "", 400, []string{`has no size \"99\"`}},
		{"GET", shop, "/api/stock/TH-1-1", "", "", 404, []string{"no product with this SKU"}},
		{"POST", shop, "/api/orders", js, order, 201, []string{`"number":"TH-482918"`, `"subtotal":41200`, `"shippingCost":1500`, `"total":42700`, `"lineTotal":37800`}},
		{"POST", shop, "/api/orders", js, strings.Replace(order, `"size":"44"`, `"size":""`, 1), 422, []string{"needs one of its sizes"}},
		{"POST", shop, "/api/orders", js, `{"seq":0,"items":[]}`, 422, []string{"no items"}},
		{"POST", shop, "/api/orders", "text/plain", order, 400, []string{"Content-Type: application/json"}},
		{"POST", shop, "/api/orders", js, `{"seq":0,"card":"4242424242424242"}`, 400, []string{"unknown field"}},
		{"GET", shop, "/api/orders", "", "", 405, []string{"use POST here"}},
		{"POST", shop, "/api/products", js, "{}", 405, []string{"use GET here"}},
		{"POST", forms, "/api/signin", js, `{"email":"robin.vale@example.com","password":"practice-pass","remember":true}`, 200, []string{`{"email":"robin.vale@example.com","remember":true,"signedIn":true}`}},
		{"POST", forms, "/api/signin", js, `{"email":"robin.vale@example.com","password":""}`, 401, []string{"your password"}},
		{"POST", forms, "/api/bookings", js, booking, 201, []string{`"ref":"BK-5038"`, `"total":135`, `"workshopName":"Bread Baking"`}},
		{"POST", forms, "/api/bookings", js, strings.Replace(booking, "12-12", "12-11", 1), 422, []string{"Saturdays only"}},
		{"GET", forms, "/api/bookings", "", "", 405, nil},
	}
	for _, c := range calls {
		first := c.do(t, h)
		// Deterministic: the same request, the same bytes.
		if again := c.do(t, h); again != first {
			t.Errorf("%s %s%s: a second call answered %s, the first %s", c.method, c.host, c.path, again, first)
		}
	}
	// The path-prefix form reaches the same API.
	apiCall{"GET", "127.0.0.1", "/shop/api/products/summit-gtx", "", "", 200, []string{`"id":"summit-gtx"`}}.do(t, h)
	// The password never comes back.
	if b := (apiCall{"POST", forms, "/api/signin", js, `{"email":"a@b.co","password":"hunter2-secret"}`, 200, nil}).do(t, h); strings.Contains(b, "hunter2") {
		t.Errorf("the sign-in answer echoes the password: %s", b)
	}
	// Paths under /api/ that are not endpoints stay 404 on every site.
	for _, host := range practice.Hosts {
		req := httptest.NewRequest("GET", "/api/nothing", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 404 {
			t.Errorf("%s/api/nothing: HTTP %d, want 404", host, rec.Code)
		}
	}
}
