package endpoints

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

// shopLogs are two episodes of a shop (Chromium-style HAR 1.2: page loads,
// scripts, styles, images, other hosts, a preflight, a form login, and the
// JSON API the pages call).
func shopLogs(t testing.TB) [][]byte {
	t.Helper()
	var logs [][]byte
	for _, name := range []string{"testdata/shop-episode1.har", "testdata/shop-episode2.har"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, b)
	}
	return logs
}

func shopCatalogue(t testing.TB) *Catalogue {
	t.Helper()
	c, err := FromHAR(shopLogs(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestShopSummary(t *testing.T) {
	c := shopCatalogue(t)
	want := `POST /api/carts
POST /api/carts/{cartId}/items
POST /api/carts/{cartId}/order
GET /api/carts/{cartId}/totals
GET /api/categories
GET /api/categories/{categoryId}
GET /api/orders/{orderId}
GET /api/products
GET /api/products/{productId}
GET /api/reviews/{reviewId}
GET /api/session
GET /api/stock/{stockId}
POST /api/wishlist/add
POST /api/wishlist/remove
`
	if got := c.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if c.Logs != 2 || c.Calls != 24 {
		t.Errorf("logs %d calls %d, want 2 and 24", c.Logs, c.Calls)
	}
	if !reflect.DeepEqual(c.Servers, []string{"http://127.0.0.1:7770"}) {
		t.Errorf("servers %v", c.Servers)
	}
}

func find(t *testing.T, c *Catalogue, method, path string) *Endpoint {
	t.Helper()
	for _, ep := range c.Endpoints {
		if ep.Method == method && ep.Path == path {
			return ep
		}
	}
	t.Fatalf("no %s %s in:\n%s", method, path, c.Summary())
	return nil
}

func TestShopSchemas(t *testing.T) {
	c := shopCatalogue(t)

	// Query: q in every call, limit in one of two.
	ep := find(t, c, "GET", "/api/products")
	if len(ep.Query) != 2 || ep.Query[0].Name != "limit" || ep.Query[0].Required || ep.Query[1].Name != "q" || !ep.Query[1].Required {
		t.Errorf("query params: %+v %+v", ep.Query[0], ep.Query[1])
	}
	if !reflect.DeepEqual(ep.Query[0].Schema.Type, []string{"integer"}) || !reflect.DeepEqual(ep.Query[1].Schema.Examples, []any{"hoodie", "bag"}) {
		t.Errorf("query schemas: %+v %+v", ep.Query[0].Schema, ep.Query[1].Schema)
	}
	// Array of products: sale_price nullable number, price integer and
	// float → number.
	items := ep.Responses[0].Schema.Items
	if got := ep.Responses[0].Schema.Type; !reflect.DeepEqual(got, []string{"array"}) {
		t.Errorf("products response type %v", got)
	}
	if got := items.Properties["sale_price"].Type; !reflect.DeepEqual(got, []string{"number", "null"}) {
		t.Errorf("sale_price type %v", got)
	}
	if got := items.Properties["price"].Type; !reflect.DeepEqual(got, []string{"number"}) {
		t.Errorf("price type %v", got)
	}
	if got := items.Properties["tags"].Items.Type; !reflect.DeepEqual(got, []string{"string"}) {
		t.Errorf("tags items %v", got)
	}
	if !reflect.DeepEqual(items.Required, []string{"id", "name", "price", "sale_price", "sku", "slug", "tags"}) {
		t.Errorf("required %v", items.Required)
	}

	// Path parameter samples and types.
	ep = find(t, c, "GET", "/api/products/{productId}")
	if ep.Calls != 3 || ep.Logs != 2 {
		t.Errorf("product detail calls %d logs %d", ep.Calls, ep.Logs)
	}
	p := ep.PathParams[0]
	if p.Name != "productId" || !reflect.DeepEqual(p.Schema.Type, []string{"integer"}) || !reflect.DeepEqual(p.Schema.Examples, []any{int64(12), int64(13), int64(14)}) {
		t.Errorf("productId %+v %+v", p, p.Schema)
	}
	if got := ep.Responses[0].Schema.Properties["description"].Type; !reflect.DeepEqual(got, []string{"string", "null"}) {
		t.Errorf("description %v", got)
	}
	stock := ep.Responses[0].Schema.Properties["stock"]
	if !reflect.DeepEqual(stock.Required, []string{"in_stock", "qty"}) || !reflect.DeepEqual(stock.Properties["in_stock"].Examples, []any{true, false}) {
		t.Errorf("stock %+v", stock)
	}
	if f := find(t, c, "GET", "/api/carts/{cartId}/totals").PathParams[0].Schema.Format; f != "uuid" {
		t.Errorf("cartId format %q", f)
	}
	if got := find(t, c, "GET", "/api/stock/{stockId}").PathParams[0].Schema.Examples; !reflect.DeepEqual(got, []any{"MH01-XS-Black", "24-MB01"}) {
		t.Errorf("SKU samples %v", got)
	}

	// A request body with an optional nested object; two status codes.
	ep = find(t, c, "POST", "/api/carts/{cartId}/items")
	if ep.RequestBody.MediaType != "application/json" || !ep.RequestBody.Required {
		t.Errorf("body %+v", ep.RequestBody)
	}
	if got := ep.RequestBody.Schema.Required; !reflect.DeepEqual(got, []string{"qty", "sku"}) {
		t.Errorf("body required %v", got)
	}
	if _, ok := ep.RequestBody.Schema.Properties["options"]; !ok {
		t.Error("body lost the optional options field")
	}
	if len(ep.Responses) != 2 || ep.Responses[0].Status != 200 || ep.Responses[0].Count != 2 || ep.Responses[1].Status != 400 || ep.Responses[1].Count != 1 {
		t.Errorf("responses %+v %+v", ep.Responses[0], ep.Responses[1])
	}
	if !reflect.DeepEqual(ep.Responses[1].Schema.Required, []string{"message"}) {
		t.Errorf("400 schema %+v", ep.Responses[1].Schema)
	}
	if !ep.Auth || find(t, c, "POST", "/api/carts").Auth {
		t.Error("auth observed where a Cookie header was sent, and only there")
	}

	// A field that is null in one sample and an object in another.
	user := find(t, c, "GET", "/api/session").Responses[0].Schema.Properties["user"]
	if !reflect.DeepEqual(user.Type, []string{"object", "null"}) || !reflect.DeepEqual(user.Required, []string{"email", "name"}) {
		t.Errorf("session user %+v", user)
	}
	// Slugs named after their collection, found because the category
	// list holds them.
	if got := find(t, c, "GET", "/api/categories/{categoryId}").PathParams[0].Schema.Examples; !reflect.DeepEqual(got, []any{"hoodies", "bags"}) {
		t.Errorf("category slugs %v", got)
	}
}

func TestBaseKeepsOnlyThatHost(t *testing.T) {
	c, err := FromHAR(shopLogs(t), Options{Base: "https://fonts.googleapis.com/"})
	if err != nil {
		t.Fatal(err)
	}
	// fonts.googleapis.com sent only a stylesheet: nothing is an API.
	if len(c.Endpoints) != 0 {
		t.Errorf("got %s", c.Summary())
	}
	c, err = FromHAR(shopLogs(t), Options{Base: "127.0.0.1:7770"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Endpoints) != 14 {
		t.Errorf("with --base host:port: %d endpoints, want 14", len(c.Endpoints))
	}
	if _, err := FromHAR(shopLogs(t), Options{Base: "http://[::1"}); err == nil || !strings.Contains(err.Error(), "--base") {
		t.Errorf("a bad base: %v", err)
	}
	if _, err := FromHAR([][]byte{[]byte(`{"nolog": 1}`)}, Options{}); err == nil || !strings.Contains(err.Error(), "log 1: not a HAR file") {
		t.Errorf("not a HAR: %v", err)
	}
}

func TestJSONRoundTripAndDeterminism(t *testing.T) {
	c := shopCatalogue(t)
	first := c.OpenAPI()
	for i := 0; i < 5; i++ {
		if again := shopCatalogue(t).OpenAPI(); !bytes.Equal(first, again) {
			t.Fatal("OpenAPI output differs between two runs")
		}
	}
	back, err := ReadJSON(c.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if back.Summary() != c.Summary() {
		t.Errorf("read back:\n%s", back.Summary())
	}
	if !bytes.Equal(back.OpenAPI(), first) {
		t.Error("the catalogue read back from JSON writes another OpenAPI document")
	}
	if _, err := ReadJSON([]byte(`{"log": {}}`)); err == nil || !strings.Contains(err.Error(), "--format json") {
		t.Errorf("a HAR given as a catalogue: %v", err)
	}
}

func TestIDLike(t *testing.T) {
	ids := []string{"12", "100000123", "3f2a9c1e-7b4d-4e2a-9f10-2c5d8e7a6b11", "5f2b8c9a0e1d", "MH01-XS-Black",
		"24-MB01", "WS03", "2026-11-30", "eyJhbGciOiJIUzI1NiJ9abc123", "sku_123"}
	for _, s := range ids {
		if !idLike(s) {
			t.Errorf("%q is an id", s)
		}
	}
	words := []string{"V1", "v2.1", "products", "guest-carts", "oauth2", "deadbeef", "search", "mine", "h2", "b2b"}
	for _, s := range words {
		if idLike(s) {
			t.Errorf("%q is not an id", s)
		}
	}
}

func TestParamNames(t *testing.T) {
	for in, want := range map[string]string{
		"products": "productId", "guest-carts": "guestCartId", "categories": "categoryId", "stock": "stockId",
		"addresses": "addressId", "boxes": "boxId", "orderItems": "orderItemId", "V1": "id", "": "id", "status": "statusId",
	} {
		if got := paramName(in); got != want {
			t.Errorf("paramName(%q) = %q, want %q", in, got, want)
		}
	}
	if got, _ := template([]string{"a", "", "b", ""}); got != "/a/{aId}/b/{bId}" {
		t.Error(got)
	}
	if got, names := template([]string{"", ""}); got != "/{id}/{id2}" || !reflect.DeepEqual(names, []string{"id", "id2"}) {
		t.Error(got, names)
	}
	if got := splitWords("getHTTPResponseCode_v2-fooBar"); !reflect.DeepEqual(got, []string{"get", "http", "response", "code", "v", "2", "foo", "bar"}) {
		t.Errorf("splitWords %v", got)
	}
}
