package endpoints

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigHAR is a log of n API calls over 20 endpoints, each answering a list
// of 20 products (about 2 KB of JSON), and as many static files.
func bigHAR(b *testing.B, n int) []byte {
	type obj = map[string]any
	var entries []any
	var products []any
	for i := 0; i < 20; i++ {
		products = append(products, obj{"id": i, "sku": fmt.Sprintf("MH%02d-XS-Black", i), "name": "Hoodie", "price": 52.5, "tags": []any{"a", "b"}, "stock": obj{"qty": i, "in_stock": i%2 == 0}})
	}
	body, _ := json.Marshal(products)
	for i := 0; i < n; i++ {
		entries = append(entries, obj{
			"_resourceType": "fetch",
			"request":       obj{"method": "GET", "url": fmt.Sprintf("http://shop.test/api/r%d/%d/items?page=%d", i%20, i, i%7), "headers": []any{}},
			"response":      obj{"status": 200, "headers": []any{}, "content": obj{"mimeType": "application/json", "text": string(body)}},
		}, obj{
			"_resourceType": "image",
			"request":       obj{"method": "GET", "url": fmt.Sprintf("http://shop.test/img/%d.png", i), "headers": []any{}},
			"response":      obj{"status": 200, "headers": []any{}, "content": obj{"mimeType": "image/png"}},
		})
	}
	data, err := json.Marshal(obj{"log": obj{"entries": entries}})
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkFromHAR: extraction speed on a 2,000-call log (≈ 6 MB).
func BenchmarkFromHAR(b *testing.B) {
	data := bigHAR(b, 2000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := FromHAR([][]byte{data}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Endpoints) != 20 {
			b.Fatalf("%d endpoints:\n%s", len(c.Endpoints), c.Summary())
		}
	}
	b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkSearch: one BM25 question over a 200-endpoint catalogue.
func BenchmarkSearch(b *testing.B) {
	c := &Catalogue{}
	shop := shopCatalogue(b)
	for i := 0; i < 200; i++ {
		base := shop.Endpoints[i%14]
		ep := *base
		ep.Path = fmt.Sprintf("/api/v%d%s", i/14, base.Path)
		c.Endpoints = append(c.Endpoints, &ep)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(c.Search("add item to cart", 3)) != 3 {
			b.Fatal("no results")
		}
	}
}
