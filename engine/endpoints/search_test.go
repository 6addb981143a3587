package endpoints

import (
	"reflect"
	"strings"
	"testing"
)

func TestSearchBM25(t *testing.T) {
	c := shopCatalogue(t)
	for _, tc := range []struct {
		query string
		top   int
		want  []string
	}{
		{"add item to cart", 2, []string{"POST /api/carts/{cartId}/items", "POST /api/carts"}},
		{"create a guest cart", 1, []string{"POST /api/carts"}},
		{"search products", 1, []string{"GET /api/products"}},
		{"product details by id", 1, []string{"GET /api/products/{productId}"}},
		{"cart totals", 1, []string{"GET /api/carts/{cartId}/totals"}},
		{"place order checkout", 2, []string{"POST /api/carts/{cartId}/order", "GET /api/orders/{orderId}"}},
		{"category list", 2, []string{"GET /api/categories", "GET /api/categories/{categoryId}"}},
		// Synonyms: logged in → session, delete → remove.
		{"who is logged in", 3, []string{"GET /api/session"}},
		{"delete from wishlist", 3, []string{"POST /api/wishlist/remove", "POST /api/wishlist/add"}},
		{"reviews rating", 3, []string{"GET /api/reviews/{reviewId}"}},
		// Sample values are searched too.
		{"Joust Duffle Bag", 1, []string{"GET /api/products"}},
		{"xylophone", 3, nil},
	} {
		var got []string
		for _, r := range c.Search(tc.query, tc.top) {
			got = append(got, r.Endpoint.Method+" "+r.Endpoint.Path)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.query, got, tc.want)
		}
	}
	// Stock: the stock endpoint and the product detail (which has a stock
	// field) are the two answers.
	var got []string
	for _, r := range c.Search("is this product in stock", 2) {
		got = append(got, r.Endpoint.Path)
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "/api/stock/{stockId}") {
		t.Errorf("stock: %q", got)
	}
	if n := len(c.Search("api", 0)); n != 0 {
		t.Errorf("a stop word matched %d endpoints", n)
	}
	if n := len(c.Search("get", 0)); n != 9 {
		t.Errorf("top 0 lists every match: %d GET endpoints, want 9", n)
	}
}

func TestTokens(t *testing.T) {
	if got := tokens("addItemToGuestCart /api/carts/{cartId} remove_items PLACE-Orders"); !reflect.DeepEqual(got,
		[]string{"add", "item", "guest", "cart", "cart", "cart", "delete", "item", "add", "order"}) {
		t.Errorf("tokens: %q", got)
	}
}

func TestDocument(t *testing.T) {
	c := shopCatalogue(t)
	want := `POST /api/carts/{cartId}/items
  path cartId: string (e.g. 3f2a9c1e-7b4d-4e2a-9f10-2c5d8e7a6b11, a81be3c2-0f4e-4d9b-8e21-77c3d2f9e4a0)
  body application/json: {options?: {color: string}, qty: integer, sku: string}
  200 application/json: {item_id: integer, price: number, qty: integer, sku: string}
  400 application/json: {message: string}
  auth: cookie or token sent
`
	if got := find(t, c, "POST", "/api/carts/{cartId}/items").Document(); got != want {
		t.Errorf("document:\n%s\nwant:\n%s", got, want)
	}
	want = `GET /api/products
  query limit (optional): integer (e.g. 10)
  query q (required): string (e.g. hoodie, bag)
  200 application/json: [{id: integer, name: string, price: number, sale_price: number|null, sku: string, slug: string, tags: [string]}]
`
	if got := find(t, c, "GET", "/api/products").Document(); got != want {
		t.Errorf("document:\n%s\nwant:\n%s", got, want)
	}
}
