package app

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine/har"
)

const shopHAR1, shopHAR2 = "../engine/endpoints/testdata/shop-episode1.har", "../engine/endpoints/testdata/shop-episode2.har"

const shopSummary = `POST /api/carts
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

// endpointsStore makes a store with one task of the shop, two episodes
// whose capture is the two HAR fixtures (saved through the recorder's own
// SaveHARChunk), and one episode recorded without capture.
func endpointsStore(t *testing.T) (db, task string, eps []string) {
	t.Helper()
	db = filepath.Join(t.TempDir(), "w.db")
	st, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tk, err := st.AddTask(t.Context(), dataset.Task{Goal: "Buy a hoodie", Category: dataset.Interaction, StartURL: "http://127.0.0.1:7770/", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{shopHAR1, shopHAR2, ""} {
		ep, err := st.CreateEpisode(t.Context(), dataset.Episode{TaskID: tk.ID, Annotator: "ann"})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, ep.ID)
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file har.File
		if err := json.Unmarshal(b, &file); err != nil {
			t.Fatal(err)
		}
		sum := har.Summary{Redacted: true, BodyCap: 1 << 20, EpisodeCap: 64 << 20, Entries: len(file.Log.Entries)}
		if err := st.SaveHARChunk(t.Context(), ep.ID, file.Log.Entries, sum, file.Log.Pages); err != nil {
			t.Fatal(err)
		}
	}
	return db, tk.ID, eps
}

func TestEndpointsCommand(t *testing.T) {
	db, task, eps := endpointsStore(t)
	run := func(args ...string) (int, string, string) {
		t.Helper()
		return tasksRun(t, append([]string{"--db", db, "endpoints"}, args...)...)
	}

	code, out, errs := run("--har-file", shopHAR1, "--har-file", shopHAR2, "--summary")
	if code != 0 || out != shopSummary {
		t.Errorf("--har-file: code %d\n%s\n%s", code, out, errs)
	}
	// From the store: a task's episodes (the one without capture is left
	// out, and said so), all episodes, or the episodes named.
	code, out, errs = run("--task", task, "--summary")
	if code != 0 || out != shopSummary || !strings.Contains(errs, "1 episode(s) of task "+task+" were recorded without network capture") {
		t.Errorf("--task: code %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs = run("--all", "--summary"); code != 0 || out != shopSummary {
		t.Errorf("--all: code %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run(eps[0], "--format", "openapi")
	if code != 0 || !strings.HasPrefix(out, "openapi: 3.1.0\n") || !strings.Contains(out, "  - url: http://127.0.0.1:7770\n") ||
		!strings.Contains(out, "/api/carts/{cartId}/items:") || strings.Contains(out, "/api/orders/{orderId}:") {
		t.Errorf("one episode: code %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(eps[1], "--format", "openapi-json")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc["openapi"] != "3.1.0" {
		t.Errorf("openapi-json: code %d\n%.200s", code, out)
	}

	// A catalogue written as JSON is searched later.
	catFile := filepath.Join(t.TempDir(), "shop.json")
	code, out, errs = run("--task", task, "--format", "json", "-o", catFile)
	if code != 0 || out != "Wrote "+catFile+": 14 endpoints from 24 API calls in 2 log(s).\n" {
		t.Errorf("-o: code %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = run("search", "add item to cart", "--catalogue", catFile, "--top", "2")
	wantTop := "2 of 14 endpoints for \"add item to cart\" (BM25):\n\n1. (score 4.983) POST /api/carts/{cartId}/items\n"
	if code != 0 || !strings.HasPrefix(out, wantTop) || !strings.Contains(out, "\n2. (score 4.717) POST /api/carts\n") {
		t.Errorf("search: code %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run("search", "who is logged in", "--har-file", shopHAR2)
	if code != 0 || !strings.Contains(out, "1. (score") || !strings.Contains(out, "GET /api/session\n  200 application/json: {currency: string, user: {email: string, name: string}}\n") {
		t.Errorf("search a HAR file: code %d\n%s", code, out)
	}
	if code, out, _ = run("search", "xylophone", "--all"); code != 0 || out != "No endpoint of the 14 matches \"xylophone\".\n" {
		t.Errorf("no match: code %d\n%s", code, out)
	}

	// Errors say what to do.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "give one source of traffic"},
		{[]string{"--all", "--task", task}, 2, "give one source of traffic"},
		{[]string{"--har-file", shopHAR1, "--format", "xml"}, 2, `--format "xml": use openapi, openapi-json or json`},
		{[]string{eps[2]}, 1, "episode " + eps[2] + " was recorded without network capture"},
		{[]string{"no-such-episode"}, 2, `no episode "no-such-episode"`},
		{[]string{"--task", "no-such-task"}, 2, `no task "no-such-task"`},
		{[]string{"--har-file", "/nonexistent.har"}, 1, "cannot read the HAR file"},
		{[]string{"--har-file", catFile}, 1, "log 1: not a HAR file"},
		{[]string{"search"}, 2, "give the question"},
		{[]string{"search", "cart", "--catalogue", shopHAR1}, 1, "not a Waymark endpoint catalogue"},
		{[]string{"search", "cart", "--all", "--embed-url", down}, 1, "cannot reach the embedding server at " + down + "/v1/embeddings"},
	} {
		code, out, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: code %d (want %d)\nstdout %s\nstderr %s", tc.args, code, tc.code, out, errs)
		}
	}
	// Only other hosts' traffic: no endpoint, and why.
	code, out, errs = run("--har-file", shopHAR1, "--base", "http://elsewhere.test", "--summary")
	if code != 0 || out != "" || !strings.Contains(errs, "no API call found in 1 log(s) (requests left out: other host 21)") {
		t.Errorf("other base: code %d\n%s\n%s", code, out, errs)
	}
}
