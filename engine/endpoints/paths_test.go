package endpoints

import (
	"encoding/json"
	"testing"
)

// miniHAR builds a HAR log of fetch calls to http://shop.test: each call
// is METHOD, path and JSON response body (method PAGE: a page load).
func miniHAR(t *testing.T, calls ...[3]string) []byte {
	t.Helper()
	type obj = map[string]any
	entries := []any{obj{
		"_resourceType": "document",
		"request":       obj{"method": "GET", "url": "http://shop.test/", "headers": []any{}},
		"response":      obj{"status": 200, "headers": []any{}, "content": obj{"mimeType": "text/html", "text": "<html>"}},
	}}
	for _, c := range calls {
		if c[0] == "PAGE" {
			entries = append(entries, obj{
				"_resourceType": "document",
				"request":       obj{"method": "GET", "url": "http://shop.test" + c[1], "headers": []any{}},
				"response":      obj{"status": 200, "headers": []any{}, "content": obj{"mimeType": "text/html", "text": "<html>"}},
			})
			continue
		}
		entries = append(entries, obj{
			"_resourceType": "fetch",
			"request":       obj{"method": c[0], "url": "http://shop.test" + c[1], "headers": []any{}},
			"response":      obj{"status": 200, "headers": []any{}, "content": obj{"mimeType": "application/json", "text": c[2]}},
		})
	}
	b, err := json.Marshal(obj{"log": obj{"version": "1.2", "pages": []any{}, "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func summary(t *testing.T, logs ...[]byte) string {
	t.Helper()
	c, err := FromHAR(logs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c.Summary()
}

func TestActionWordsStayLiteral(t *testing.T) {
	// Three actions that answer alike are still three endpoints: their
	// names are no data of the application.
	got := summary(t, miniHAR(t,
		[3]string{"POST", "/api/cart/add", `{"ok":true}`},
		[3]string{"POST", "/api/cart/remove", `{"ok":true}`},
		[3]string{"POST", "/api/cart/clear", `{"ok":true}`},
		[3]string{"GET", "/api/users/me", `{"id":7,"name":"Ann"}`},
		[3]string{"GET", "/api/users/8", `{"id":8,"name":"Bob","email":"b@x.test"}`},
		[3]string{"GET", "/api/users/9", `{"id":9,"name":"Cy"}`},
		// Three reads answering the same fields are one endpoint.
		[3]string{"GET", "/api/profiles/alice", `{"bio":"a","avatar":null}`},
		[3]string{"GET", "/api/profiles/bob", `{"bio":"b","avatar":null}`},
		[3]string{"GET", "/api/profiles/carol", `{"bio":"c","avatar":"c.png"}`},
		// Lists alike are still different collections.
		[3]string{"GET", "/api/tags", `[{"id":1,"name":"a"}]`},
		[3]string{"GET", "/api/colors", `[{"id":2,"name":"b"}]`},
		[3]string{"GET", "/api/sizes", `[{"id":3,"name":"c"}]`},
		// Two are not enough.
		[3]string{"GET", "/api/help/shipping", `{"text":"a"}`},
		[3]string{"GET", "/api/help/returns", `{"text":"b"}`},
	))
	want := "POST /api/cart/add\nPOST /api/cart/clear\nPOST /api/cart/remove\nGET /api/colors\nGET /api/help/returns\nGET /api/help/shipping\n" +
		"GET /api/profiles/{profileId}\nGET /api/sizes\nGET /api/tags\nGET /api/users/me\nGET /api/users/{userId}\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSlugsBecomeParameters(t *testing.T) {
	// Slugs that a list answered are data; so are slug-like keys of
	// three pages answering alike, even when nothing listed them.
	got := summary(t, miniHAR(t,
		[3]string{"GET", "/api/brands", `[{"key":"acme","home":{"href":"/api"}},{"key":"globex"},{"key":"initech"}]`},
		[3]string{"GET", "/api/brands/acme", `{"key":"acme","country":"US"}`},
		[3]string{"GET", "/api/brands/globex", `{"key":"globex","country":"DE"}`},
		[3]string{"GET", "/api/pages/about-us", `{"title":"About","body":"…"}`},
		[3]string{"GET", "/api/pages/shipping-info", `{"title":"Shipping","body":"…"}`},
		[3]string{"GET", "/api/pages/returns-policy", `{"title":"Returns","body":"…","updated":"2026-01-01"}`},
		[3]string{"GET", "/api/posts/17/comments", `[]`},
		// One call is enough when a search answered its key.
		[3]string{"GET", "/api/products?q=boot", `{"query":"boot","results":[{"id":"summit-gtx","name":"add","url":"/product/summit-gtx"}]}`},
		[3]string{"GET", "/api/products/summit-gtx", `{"id":"summit-gtx","sku":"TH-18900-10"}`},
		// Nor a page with the same key.
		[3]string{"PAGE", "/product/trail-runner", ""},
		[3]string{"GET", "/api/reviews/trail-runner", `{"stars":4}`},
		[3]string{"PAGE", "/cart", ""},
		[3]string{"GET", "/api/cart", `{"items":[]}`},
		// A value of a field that is no key is no evidence.
		[3]string{"POST", "/api/list/add", `{"ok":true}`},
		[3]string{"GET", "/api/posts/hello-world/comments", `[]`},
	), miniHAR(t,
		// The second log shows the slug a first log's list had.
		[3]string{"GET", "/api/posts", `[{"url":"/blog/hello-world"}]`},
	))
	want := "GET /api/brands\nGET /api/brands/{brandId}\nGET /api/cart\nPOST /api/list/add\nGET /api/pages/{pageId}\nGET /api/posts\nGET /api/posts/{postId}/comments\n" +
		"GET /api/products\nGET /api/products/{productId}\nGET /api/reviews/{reviewId}\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
