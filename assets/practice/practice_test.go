package practice

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"waymark/engine/action"
)

func TestTaskPackIsWellFormed(t *testing.T) {
	ts := Tasks()
	if len(ts) < 30 {
		t.Fatalf("%d tasks, want at least 30", len(ts))
	}
	perCat := map[string]int{}
	keys, goals := map[string]bool{}, map[string]bool{}
	keyRE := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, tk := range ts {
		perCat[tk.Category]++
		if !keyRE.MatchString(tk.Key) {
			t.Errorf("task key %q is not a lower-case slug", tk.Key)
		}
		if keys[tk.Key] {
			t.Errorf("duplicate key %q", tk.Key)
		}
		keys[tk.Key] = true
		if goals[tk.Goal] {
			t.Errorf("duplicate goal %q", tk.Goal)
		}
		goals[tk.Goal] = true
		if len(tk.Goal) < 15 {
			t.Errorf("%s: goal %q is too short to be a real task", tk.Key, tk.Goal)
		}
		u, err := url.Parse(tk.StartURL)
		if err != nil || u.Scheme != "http" || !slices.Contains(Hosts, u.Host) {
			t.Errorf("%s: start URL %q is not http://<practice host>/...", tk.Key, tk.StartURL)
		}
		want := map[string]string{Information: action.CheckKindAnswer, Navigation: action.CheckKindURL, Interaction: action.CheckKindJS}[tk.Category]
		if want == "" {
			t.Errorf("%s: unknown category %q", tk.Key, tk.Category)
			continue
		}
		if tk.Check.Kind != want {
			t.Errorf("%s: %s task has check kind %q, want %q", tk.Key, tk.Category, tk.Check.Kind, want)
		}
		switch tk.Check.Kind {
		case action.CheckKindAnswer:
			for _, alt := range strings.Split(tk.Check.Answer, "|") {
				if action.Normalize(alt) == "" {
					t.Errorf("%s: answer alternative %q normalises to nothing", tk.Key, alt)
				}
			}
		case action.CheckKindURL:
			if _, err := regexp.Compile(tk.Check.URL); err != nil {
				t.Errorf("%s: URL pattern does not compile: %v", tk.Key, err)
			}
			if !strings.Contains(tk.Check.URL, "^") || !strings.HasSuffix(tk.Check.URL, "$") {
				t.Errorf("%s: URL pattern %q must be anchored at both ends", tk.Key, tk.Check.URL)
			}
		case action.CheckKindJS:
			if !strings.Contains(tk.Check.JS, "localStorage") {
				t.Errorf("%s: JS check does not read page state", tk.Key)
			}
		}
	}
	for _, c := range []string{Information, Navigation, Interaction} {
		if perCat[c] < 10 {
			t.Errorf("%d %s tasks, want at least 10", perCat[c], c)
		}
	}
	// Tasks returns a copy.
	ts[0].Goal = "changed"
	if Tasks()[0].Goal == "changed" {
		t.Error("Tasks() shares its slice with the package")
	}
}

// The answers the tasks expect follow from the shop's data, not from a copy.
func TestShopAnswersFollowFromData(t *testing.T) {
	s, err := newShop()
	if err != nil {
		t.Fatal(err)
	}
	cheapest := func(keep func(shopProduct) bool) shopProduct {
		var best shopProduct
		for _, p := range s.products {
			if keep(p) && (best.Slug == "" || p.Price < best.Price) {
				best = p
			}
		}
		return best
	}
	if p := cheapest(func(p shopProduct) bool { return p.Kind == "boot" && p.Waterproof }); p.Slug != "bog-trotter-rain-boot" {
		t.Errorf("cheapest waterproof boot is %s, the task expects bog-trotter-rain-boot", p.Slug)
	}
	if p := cheapest(func(p shopProduct) bool { return p.Kind == "boot" }); p.Waterproof {
		t.Errorf("the cheapest boot overall (%s) should not be waterproof, or the task has no trap", p.Slug)
	}
	if p := cheapest(func(p shopProduct) bool { return p.Kind == "tent" }); p.Brand != "Northpeak" {
		t.Errorf("cheapest tent is by %s, the task expects Northpeak", p.Brand)
	}
	if p := cheapest(func(p shopProduct) bool { return p.Category == "camping" }); p.Slug != "alpine-thermos" {
		t.Errorf("cheapest camping item is %s, the task expects alpine-thermos", p.Slug)
	}
	var top shopProduct
	for _, p := range s.products {
		if p.Category == "jackets" && p.Rating > top.Rating {
			top = p
		} else if p.Category == "jackets" && p.Rating == top.Rating {
			t.Errorf("two jackets share the top rating %v", p.Rating)
		}
	}
	if top.Slug != "glacier-parka" {
		t.Errorf("highest-rated jacket is %s, the task expects glacier-parka", top.Slug)
	}
	var between []string
	for _, p := range s.products {
		if p.Category == "jackets" && p.Price >= 10000 && p.Price <= 20000 {
			between = append(between, p.Slug)
		}
	}
	if len(between) == 0 {
		t.Error("no jacket costs between $100 and $200: the filter task shows an empty page")
	}
}

func get(t *testing.T, h http.Handler, host, path string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "http://"+host+path, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

var hrefRE = regexp.MustCompile(`(?:href|src)="([^"#]*)`)

// Every link on every page reachable from the three home pages answers 200,
// both by host name and by path prefix, and prefixed pages never link out of
// their prefix.
func TestEveryLinkResolvesByHostAndByPrefix(t *testing.T) {
	h, err := Handler()
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range Hosts {
		site := strings.TrimSuffix(host, ".waymark.test")
		for _, prefix := range []string{"", "/" + site} {
			seen := map[string]bool{}
			queue := []string{prefix + "/"}
			for len(queue) > 0 && len(seen) < 400 {
				p := queue[0]
				queue = queue[1:]
				if seen[p] {
					continue
				}
				seen[p] = true
				reqHost := host
				if prefix != "" {
					reqHost = "127.0.0.1:1"
				}
				code, body := get(t, h, reqHost, p)
				if code != 200 {
					t.Errorf("%s%s: status %d", reqHost, p, code)
					continue
				}
				if strings.Contains(p, "/static/") {
					continue // scripts and styles: fetched, not crawled
				}
				for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
					l := strings.ReplaceAll(m[1], "&amp;", "&")
					if l == "" || strings.HasPrefix(l, "javascript:") || strings.HasPrefix(l, "data:") {
						continue
					}
					if !strings.HasPrefix(l, "/") {
						t.Errorf("%s%s links to %q: links must be site-absolute paths", reqHost, p, l)
						continue
					}
					if prefix != "" && !strings.HasPrefix(l, prefix+"/") {
						t.Errorf("%s%s links to %q, outside %s/", reqHost, p, l, prefix)
						continue
					}
					if !seen[l] {
						queue = append(queue, l)
					}
				}
			}
			if len(seen) < 8 {
				t.Errorf("%s with prefix %q: only %d pages reachable", host, prefix, len(seen))
			}
		}
	}
}

func TestServerRoutesAndHostRules(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL() = %q", s.URL())
	}
	port := strings.TrimPrefix(s.URL(), "http://127.0.0.1:")
	want := "MAP shop.waymark.test 127.0.0.1:" + port + ",MAP wiki.waymark.test 127.0.0.1:" + port + ",MAP forms.waymark.test 127.0.0.1:" + port
	if s.HostRules() != want {
		t.Errorf("HostRules() = %q, want %q", s.HostRules(), want)
	}
	for _, c := range []struct {
		host, path, want string
		code             int
	}{
		{"shop.waymark.test", "/", "Trailhead", 200},
		{"wiki.waymark.test", "/wiki/Varnholm", "412,300", 200},
		{"forms.waymark.test", "/settings/security", "Two-factor authentication", 200},
		{"forms.waymark.test", "/signin", `type="password" autocomplete="current-password"`, 200},
		{"", "/shop/product/summit-gtx", "$189.00", 200},
		{"", "/wiki/search?q=comet", "Tobias Quell", 200},
		{"", "/", "Waymark practice sites", 200},
		{"shop.waymark.test", "/product/no-such-thing", "could not find that product", 404},
		{"wiki.waymark.test", "/wiki/Atlantis", "does not have a page", 404},
		{"", "/nothing", "three sites", 404},
	} {
		req, _ := http.NewRequest("GET", s.URL()+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), c.want) {
			t.Errorf("%s%s: %d, body has %q: %v; want %d", c.host, c.path, resp.StatusCode, c.want, strings.Contains(string(b), c.want), c.code)
		}
	}
	// The slow endpoints answer after a realistic delay.
	req, _ := http.NewRequest("GET", s.URL()+"/api/products?q=boot", nil)
	req.Host = "shop.waymark.test"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "summit-gtx") {
		t.Errorf("suggestions for boot: %s", b)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := http.Get(s.URL() + "/"); err == nil {
		t.Error("server still answers after Close")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestShopSearchAndFilters(t *testing.T) {
	h, err := Handler()
	if err != nil {
		t.Fatal(err)
	}
	names := func(body string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`class="card" href="/product/([^"]+)"`).FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	_, body := get(t, h, "shop.waymark.test", "/search?q=red+shoes")
	if got := names(body); !slices.Equal(got, []string{"trail-runner-x", "rapid-road-3"}) {
		t.Errorf("red shoes: %v", got)
	}
	_, body = get(t, h, "shop.waymark.test", "/category/jackets?min=100&max=200&sort=price-asc")
	if got := names(body); !slices.Equal(got, []string{"featherlite-down", "stormshell-jacket"}) {
		t.Errorf("jackets 100-200: %v", got)
	}
	_, body = get(t, h, "shop.waymark.test", "/category/footwear?waterproof=1&sort=price-asc")
	if got := names(body); len(got) == 0 || got[0] != "bog-trotter-rain-boot" {
		t.Errorf("waterproof footwear by price: %v", got)
	}
	_, body = get(t, h, "shop.waymark.test", "/search?q=zzzz")
	if !strings.Contains(body, "No products match") {
		t.Error("an empty search says nothing helpful")
	}
}

// The README gives the pack's number of tasks: it is the pack's.
func TestReadmeCountsThePracticeTasks(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("plus %d tasks with automatic checks", len(Tasks()))
	if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
