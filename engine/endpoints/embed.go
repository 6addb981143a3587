package endpoints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultEmbedModel is the model asked for when none is named.
const DefaultEmbedModel = "google/embeddinggemma-300m"

// Embedder is a client of an OpenAI-compatible embeddings server (vLLM,
// text-embeddings-inference, llama.cpp's server…): POST /v1/embeddings
// with {"model", "input": [texts]}.
type Embedder struct {
	// URL is the server (http://host:8000), its /v1, or the full
	// /v1/embeddings address.
	URL string
	// Model is sent as "model" (default DefaultEmbedModel).
	Model string
	// BatchSize is how many texts go in one request (default 32).
	BatchSize int
	// Client defaults to one with a two-minute timeout.
	Client *http.Client
	// CacheDir keeps the catalogue's vectors between searches, one file
	// per catalogue and model (default: the user cache dir's
	// waymark/embeddings; "-": no cache).
	CacheDir string
}

func (e *Embedder) endpoint() string {
	u := strings.TrimRight(strings.TrimSpace(e.URL), "/")
	switch {
	case strings.HasSuffix(u, "/embeddings"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/embeddings"
	}
	return u + "/v1/embeddings"
}

func (e *Embedder) model() string {
	if e.Model == "" {
		return DefaultEmbedModel
	}
	return e.Model
}

// gemma: EmbeddingGemma was trained with these prompts for retrieval.
func (e *Embedder) gemma() bool {
	return strings.Contains(strings.ToLower(e.model()), "embeddinggemma")
}

func (e *Embedder) docText(ep *Endpoint) string {
	if e.gemma() {
		return "title: " + ep.Method + " " + ep.Path + " | text: " + ep.Document()
	}
	return ep.Document()
}

func (e *Embedder) queryText(q string) string {
	if e.gemma() {
		return "task: search result | query: " + q
	}
	return q
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// Embed returns one vector per text, asking the server in batches.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if strings.TrimSpace(e.URL) == "" {
		return nil, errors.New("no embedding server: give --embed-url, e.g. http://localhost:8000 for 'vllm serve " + DefaultEmbedModel + "'")
	}
	batch := e.BatchSize
	if batch <= 0 {
		batch = 32
	}
	var out [][]float32
	for start := 0; start < len(texts); start += batch {
		end := min(start+batch, len(texts))
		vs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	for i := range out {
		if len(out[i]) != len(out[0]) {
			return nil, fmt.Errorf("the embedding server at %s gave vectors of %d and %d dimensions in one catalogue: it must serve one model (%s)",
				e.endpoint(), len(out[0]), len(out[i]), e.model())
		}
	}
	return out, nil
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(embedRequest{Model: e.model(), Input: texts, EncodingFormat: "float"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("--embed-url %q is not a usable URL: %w", e.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	client := e.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the embedding server at %s: %v; start one (e.g. 'vllm serve %s --task embed' or text-embeddings-inference) or fix --embed-url",
			e.endpoint(), err, e.model())
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("the embedding server at %s broke off its answer: %w", e.endpoint(), err)
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		hint := ""
		if resp.StatusCode == http.StatusNotFound {
			hint = " (it must be an OpenAI-compatible server answering POST /v1/embeddings, with the model given by --embed-model)"
		}
		return nil, fmt.Errorf("the embedding server at %s answered %s%s: %s", e.endpoint(), resp.Status, hint, msg)
	}
	var er embedResponse
	if err := json.Unmarshal(data, &er); err != nil {
		return nil, fmt.Errorf("the embedding server at %s did not answer with embeddings JSON ({\"data\": [{\"embedding\": [...]}]}): %w", e.endpoint(), err)
	}
	if len(er.Data) != len(texts) {
		return nil, fmt.Errorf("the embedding server at %s gave %d vectors for %d texts", e.endpoint(), len(er.Data), len(texts))
	}
	sort.SliceStable(er.Data, func(i, j int) bool { return er.Data[i].Index < er.Data[j].Index })
	out := make([][]float32, len(texts))
	for i, d := range er.Data {
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("the embedding server at %s gave an empty vector for text %d", e.endpoint(), i)
		}
		out[i] = d.Embedding
	}
	return out, nil
}

type embedCache struct {
	Model   string      `json:"model"`
	Key     string      `json:"key"`
	Vectors [][]float32 `json:"vectors"`
}

// cachePath is the file for these documents and this model.
func (e *Embedder) cachePath(docs []string) (string, string) {
	dir := e.CacheDir
	if dir == "-" {
		return "", ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", ""
		}
		dir = filepath.Join(base, "waymark", "embeddings")
	}
	h := sha256.New()
	fmt.Fprintf(h, "model %s\n", e.model())
	for _, d := range docs {
		fmt.Fprintf(h, "%d\n%s", len(d), d)
	}
	key := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(dir, key[:32]+".json"), key
}

// docVectors embeds the catalogue's documents, or reads them from the
// cache; fromCache says which.
func (e *Embedder) docVectors(ctx context.Context, docs []string, readCache bool) (vs [][]float32, fromCache bool, err error) {
	path, key := e.cachePath(docs)
	if path != "" && readCache {
		if data, err := os.ReadFile(path); err == nil {
			var c embedCache
			if json.Unmarshal(data, &c) == nil && c.Key == key && c.Model == e.model() && len(c.Vectors) == len(docs) {
				return c.Vectors, true, nil
			}
		}
	}
	vs, err = e.Embed(ctx, docs)
	if err != nil {
		return nil, false, err
	}
	if path != "" {
		// A cache that cannot be written only costs time next search.
		if data, err := json.Marshal(embedCache{Model: e.model(), Key: key, Vectors: vs}); err == nil && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
			tmp := path + ".tmp"
			if os.WriteFile(tmp, data, 0o600) == nil {
				_ = os.Rename(tmp, path)
			}
		}
	}
	return vs, false, nil
}

// SearchEmbedded ranks the endpoints by the cosine similarity of their
// documents' embeddings to the question's, and returns the best top (all
// when top <= 0). The documents' vectors are cached per catalogue and
// model.
func (c *Catalogue) SearchEmbedded(ctx context.Context, query string, top int, e *Embedder) ([]Result, error) {
	if len(c.Endpoints) == 0 {
		return nil, nil
	}
	docs := make([]string, len(c.Endpoints))
	for i, ep := range c.Endpoints {
		docs[i] = e.docText(ep)
	}
	vs, cached, err := e.docVectors(ctx, docs, true)
	if err != nil {
		return nil, err
	}
	qv, err := e.Embed(ctx, []string{e.queryText(query)})
	if err != nil {
		return nil, err
	}
	if len(qv[0]) != len(vs[0]) && cached {
		// The server now serves another model under the same name: the
		// cached vectors are stale.
		vs, _, err = e.docVectors(ctx, docs, false)
		if err != nil {
			return nil, err
		}
	}
	if len(qv[0]) != len(vs[0]) {
		return nil, fmt.Errorf("the embedding server at %s gave the question %d dimensions and the endpoints %d: it must serve one model (%s)",
			e.endpoint(), len(qv[0]), len(vs[0]), e.model())
	}
	res := make([]Result, len(vs))
	for i, v := range vs {
		res[i] = Result{Endpoint: c.Endpoints[i], Score: cosine(qv[0], v)}
	}
	return topResults(res, top), nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
