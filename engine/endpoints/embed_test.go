package endpoints

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// embedServer speaks the OpenAI embeddings API: each text's vector counts
// its words hashed into dim buckets (so similar texts are near). It
// records the requests; dim and fail can change what it answers.
type embedServer struct {
	mu       sync.Mutex
	dim      int
	short    bool // answer one vector fewer than asked
	requests []embedRequest
	srv      *httptest.Server
}

func newEmbedServer(t *testing.T, dim int) *embedServer {
	s := &embedServer{dim: dim}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		var req embedRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if req.Model != "google/embeddinggemma-300m" && req.Model != "other-model" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"The model %s does not exist.","type":"NotFoundError","code":404}}`, req.Model)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		dim, short := s.dim, s.short
		s.mu.Unlock()
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		// In reverse order: the client must sort by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			if short && i == 0 {
				continue
			}
			v := make([]float32, dim)
			// EmbeddingGemma's prompts carry no meaning of their own.
			text := strings.TrimPrefix(req.Input[i], "task: search result | query: ")
			if _, after, ok := strings.Cut(text, " | text: "); ok {
				text = after
			}
			for _, w := range tokens(text) {
				h := fnv.New32a()
				h.Write([]byte(w))
				v[h.Sum32()%uint32(dim)]++
			}
			data = append(data, item{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *embedServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func TestEmbeddingSearch(t *testing.T) {
	c := shopCatalogue(t)
	srv := newEmbedServer(t, 256)
	cache := t.TempDir()
	e := &Embedder{URL: srv.srv.URL, BatchSize: 4, CacheDir: cache}
	ctx := context.Background()
	res, err := c.SearchEmbedded(ctx, "review rating and nickname", 3, e)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Endpoint.Method + " " + res[0].Endpoint.Path; got != "GET /api/reviews/{reviewId}" || len(res) != 3 {
		t.Errorf("top result %s of %d", got, len(res))
	}
	if res[0].Score < res[1].Score || res[1].Score < res[2].Score || res[0].Score > 1.0001 {
		t.Errorf("scores not in order or not cosines: %v %v %v", res[0].Score, res[1].Score, res[2].Score)
	}
	// 14 documents in batches of 4, then the question.
	if srv.count() != 5 {
		t.Fatalf("%d requests, want 5", srv.count())
	}
	for i, n := range []int{4, 4, 4, 2, 1} {
		if got := len(srv.requests[i].Input); got != n {
			t.Errorf("request %d has %d inputs, want %d", i, got, n)
		}
	}
	first := srv.requests[0]
	if first.Model != "google/embeddinggemma-300m" || first.EncodingFormat != "float" ||
		!strings.HasPrefix(first.Input[0], "title: POST /api/carts | text: POST /api/carts\n") {
		t.Errorf("first request %+v", first)
	}
	if q := srv.requests[4].Input[0]; q != "task: search result | query: review rating and nickname" {
		t.Errorf("query text %q", q)
	}

	// The documents' vectors are cached: the next search asks only for
	// the question.
	files, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	if len(files) != 1 || len(filepath.Base(files[0])) != 37 {
		t.Fatalf("cache files %v", files)
	}
	if _, err := c.SearchEmbedded(ctx, "cart totals", 1, e); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 6 {
		t.Errorf("%d requests after a cached search, want 6", srv.count())
	}
	// Another model is another cache entry, and no gemma prompts.
	e2 := &Embedder{URL: srv.srv.URL + "/v1/", Model: "other-model", CacheDir: cache}
	if _, err := c.SearchEmbedded(ctx, "cart totals", 1, e2); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 8 || srv.requests[6].Input[0] != "POST /api/carts\n  body application/json: object\n  201 application/json: {cart_id: string, items: array}\n" {
		t.Errorf("other model: %d requests, first input %q", srv.count(), srv.requests[6].Input[0])
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*.json")); len(files) != 2 {
		t.Errorf("cache files %v", files)
	}

	// The server now serves vectors of another size under the same name:
	// the stale cache is replaced (the question, then the 4 batches), and
	// the search after that reads the new one.
	srv.mu.Lock()
	srv.dim = 64
	srv.mu.Unlock()
	if _, err := c.SearchEmbedded(ctx, "cart totals", 1, e); err != nil {
		t.Fatalf("stale cache: %v", err)
	}
	if srv.count() != 13 {
		t.Errorf("%d requests after a size change, want 13", srv.count())
	}
	if _, err := c.SearchEmbedded(ctx, "cart totals", 1, e); err != nil || srv.count() != 14 {
		t.Errorf("after the cache was renewed: %v, %d requests, want 14", err, srv.count())
	}
}

func TestEmbeddingErrors(t *testing.T) {
	c := shopCatalogue(t)
	ctx := context.Background()
	srv := newEmbedServer(t, 32)

	// Server down.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: down, CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the embedding server at "+down+"/v1/embeddings") || !strings.Contains(err.Error(), "--embed-url") {
		t.Errorf("server down: %v", err)
	}
	// An HTTP 4xx shows the server's words.
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: srv.srv.URL, Model: "no-such-model", CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "answered 400 Bad Request") || !strings.Contains(err.Error(), "The model no-such-model does not exist.") {
		t.Errorf("4xx: %v", err)
	}
	// Not an embeddings server at that path.
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: srv.srv.URL + "/api/embed/", CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "404 Not Found (it must be an OpenAI-compatible server answering POST /v1/embeddings") {
		t.Errorf("404: %v", err)
	}
	// Fewer vectors than texts.
	srv.short = true
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: srv.srv.URL, CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "gave 13 vectors for 14 texts") {
		t.Errorf("short answer: %v", err)
	}
	srv.short = false
	// Vectors of two sizes in one catalogue (a batch each).
	flip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req embedRequest
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": make([]float32, 8+len(req.Input))})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer flip.Close()
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: flip.URL, BatchSize: 10, CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "vectors of 18 and 12 dimensions") {
		t.Errorf("two sizes: %v", err)
	}
	// The question's vector has another size than the documents'.
	_, err = c.SearchEmbedded(ctx, "cart", 3, &Embedder{URL: flip.URL, BatchSize: 64, CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "gave the question 9 dimensions and the endpoints 22") {
		t.Errorf("question size: %v", err)
	}
	if _, err := (&Embedder{}).Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "--embed-url") {
		t.Errorf("no URL: %v", err)
	}
}
