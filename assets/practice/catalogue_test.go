package practice_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/endpoints"
	"waymark/engine/har"
)

// shopEpisodes are two episodes on the practice shop, as a person would act
// at 800×600, that together call every endpoint of its API: search
// suggestions (typing in the search box), Check stock (Tab from Add to cart,
// Enter), the cart's price check (opening the cart) and Place order. Three
// products and three SKUs are seen, so ids vary between calls as in real use.
var shopEpisodes = map[string][]action.Action{
	"checkout": {
		action.ClickAt(389, 26), action.TypeText("boot"), action.PressKey("ESCAPE"),
		action.ScrollBy(600), action.ClickAt(297, 328), // Alpine Thermos
		action.ClickAt(396, 386), action.PressKey("TAB"), action.PressKey("ENTER"), // add to cart, check stock
		action.ClickAt(725, 26), action.ClickAt(681, 262), // cart, checkout
		action.ClickAt(269, 210), action.TypeText("Jane Doe"), action.ClickAt(269, 268), action.TypeText("jane@example.com"),
		action.ClickAt(269, 326), action.TypeText("5 Fjord Street"), action.ClickAt(148, 392), action.TypeText("Varnholm"),
		action.ClickAt(390, 392), action.TypeText("10115"), action.ClickAt(20, 120), action.ScrollBy(400),
		action.ClickAt(269, 185), action.ClickAt(269, 263), // shipping: express
		action.ClickAt(269, 305), action.TypeText("4242 4242 4242 4242"), action.ClickAt(148, 371), action.TypeText("12/30"),
		action.ClickAt(390, 371), action.TypeText("123"), action.ClickAt(84, 490), action.FinishWith(""),
	},
	"boot-and-jacket": {
		action.ClickAt(389, 26), action.TypeText("jacket"), action.PressKey("ESCAPE"),
		action.ScrollBy(600), action.ClickAt(107, 328), // Summit GTX
		action.ClickAt(586, 364), action.ClickAt(396, 465), action.PressKey("TAB"), action.PressKey("ENTER"), // size 44, add, stock
		action.ClickAt(156, 67), action.ClickAt(293, 296), // Jackets, Stormshell
		action.ClickAt(454, 364), action.ClickAt(396, 465), action.PressKey("TAB"), action.PressKey("ENTER"), // size M, add, stock
		action.ClickAt(725, 26), action.FinishWith(""), // the cart
	},
}

// formsEpisode signs in (with a password, which the capture redacts) and
// books a workshop on the forms site: both of its endpoints.
var formsEpisode = []action.Action{
	action.ClickAt(398, 210), action.TypeText("robin.vale@example.com"), action.ClickAt(398, 267), action.TypeText("practice-pass"),
	action.PressKey("ENTER"),                                                                                 // signed in, on the account overview
	action.ClickAt(85, 301), action.ClickAt(360, 212), action.ClickAt(218, 516), action.TypeText("12122026"), // Book, bread, a Saturday
	action.ClickAt(381, 515), action.PressKey("CTRL+A"), action.TypeText("3"), action.ClickAt(20, 120), action.ScrollBy(400), action.ClickAt(715, 525),
	action.ClickAt(376, 230), action.TypeText("Alex Kim"), action.ClickAt(376, 287), action.TypeText("alex.kim@example.com"), action.ClickAt(730, 451),
	action.ClickAt(216, 489), action.ClickAt(675, 531), action.FinishWith(""), // terms, Book
}

var paramRE = regexp.MustCompile(`\{[^}/]+\}`)

// TestCatalogueOfPracticeSites records the shop episodes (and the forms
// episode) through the engine (headless Chromium, network capture on) into
// a real store, extracts each site's endpoint catalogue from the HAR logs
// and compares it with apiEndpoints, the sites' ground truth: precision and
// recall must both be 100 %. Parameter names are the catalogue's choice, so
// templates are compared with every {name} as {}.
func TestCatalogueOfPracticeSites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("no Chromium at /usr/bin/chromium: install it with `make deps`")
	}
	srv, err := practice.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	st, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.MaxSteps = 50
	set.HAR = true
	eng, err := browser.New(browser.Options{Settings: set, HostRules: srv.HostRules()})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(st, eng, dataset.RecorderOptions{Annotator: "script", Goal: "Use the shop's API"})
	defer rec.Close()
	ctx := context.Background()
	// record runs one episode and returns its HAR and where it ended.
	record := func(name, start string, acts []action.Action) ([]byte, string) {
		t.Helper()
		if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: start}); err != nil {
			t.Fatal(err)
		}
		var obs action.Observation
		for i, a := range acts {
			if obs, err = rec.Step(ctx, a); err != nil {
				t.Fatalf("%s, step %d (%s): %v", name, i+1, a, err)
			}
		}
		log, err := st.EpisodeHAR(ctx, rec.EpisodeID())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := har.Write(&b, log); err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), obs.URL
	}
	var logs [][]byte
	for _, name := range []string{"checkout", "boot-and-jacket"} {
		log, end := record(name, "http://shop.waymark.test/", shopEpisodes[name])
		if name == "checkout" && !strings.HasSuffix(end, "/order/TH-482917") {
			t.Errorf("checkout ended at %s, not on the order page: the clicks missed", end)
		}
		logs = append(logs, log)
	}
	cat := precisionRecall(t, "shop.waymark.test", logs)

	formsLog, end := record("forms", "http://forms.waymark.test/signin", formsEpisode)
	if !strings.HasSuffix(end, "/book/confirmed?ref=BK-5038") {
		t.Errorf("the forms episode ended at %s, not on the booking's confirmation: the clicks missed", end)
	}
	if bytes.Contains(formsLog, []byte("practice-pass")) || !bytes.Contains(formsLog, []byte(`\"password\":\"[redacted]\"`)) {
		t.Error("the sign-in's password is not redacted in the capture")
	}
	precisionRecall(t, "forms.waymark.test", [][]byte{formsLog})

	// What the catalogue learnt of each shop endpoint matches the shop.
	byKey := map[string]*endpoints.Endpoint{}
	for _, ep := range cat.Endpoints {
		byKey[ep.Method+" "+paramRE.ReplaceAllString(ep.Path, "{}")] = ep
	}
	params := func(ps []*endpoints.Param) (names []string) {
		for _, p := range ps {
			names = append(names, p.Name)
		}
		return names
	}
	statuses := func(ep *endpoints.Endpoint) (s []int) {
		for _, r := range ep.Responses {
			s = append(s, r.Status)
		}
		return s
	}
	if ep := byKey["GET /api/products"]; ep == nil || !slices.Contains(params(ep.Query), "q") || !slices.Contains(params(ep.Query), "limit") {
		t.Errorf("GET /api/products: query %v, want q and limit", ep)
	}
	if ep := byKey["GET /api/stock/{}"]; ep == nil || !slices.Contains(params(ep.Query), "size") || ep.Calls < 3 {
		t.Errorf("GET /api/stock/{sku}: %+v, want the size query from 3 calls", ep)
	}
	if ep := byKey["POST /api/orders"]; ep == nil || ep.RequestBody == nil || ep.RequestBody.MediaType != "application/json" || !slices.Equal(statuses(ep), []int{201}) {
		t.Errorf("POST /api/orders: %+v, want a JSON body and 201", ep)
	}
	if ep := byKey["GET /api/products/{}"]; ep == nil || ep.Calls < 3 || !slices.Equal(statuses(ep), []int{200}) {
		t.Errorf("GET /api/products/{id}: %+v, want 3 calls answered 200", ep)
	}
}

// precisionRecall extracts the catalogue of host's API from logs, logs its
// precision and recall against apiEndpoints[host] and fails unless both are
// 100 %.
func precisionRecall(t *testing.T, host string, logs [][]byte) *endpoints.Catalogue {
	t.Helper()
	cat, err := endpoints.FromHAR(logs, endpoints.Options{Base: "http://" + host})
	if err != nil {
		t.Fatal(err)
	}
	truth := apiEndpoints[host]
	var found []string
	for _, ep := range cat.Endpoints {
		found = append(found, ep.Method+" "+paramRE.ReplaceAllString(ep.Path, "{}"))
	}
	hit := 0
	for _, tr := range truth {
		if slices.Contains(found, paramRE.ReplaceAllString(tr, "{}")) {
			hit++
		} else {
			t.Errorf("missed: %s", tr)
		}
	}
	for _, f := range found {
		if !slices.ContainsFunc(truth, func(tr string) bool { return paramRE.ReplaceAllString(tr, "{}") == f }) {
			t.Errorf("not an endpoint of %s: %s", host, f)
		}
	}
	precision, recall := 0.0, float64(hit)/float64(len(truth))
	if len(found) > 0 {
		precision = float64(hit) / float64(len(found))
	}
	t.Logf("%s catalogue: precision %.0f %% (%d of %d found), recall %.0f %% (%d of %d endpoints), from %d calls in %d logs:\n%s", host,
		100*precision, hit, len(found), 100*recall, hit, len(truth), cat.Calls, cat.Logs, cat.Summary())
	if precision != 1 || recall != 1 {
		t.Errorf("%s: precision %.2f, recall %.2f; want 1 and 1", host, precision, recall)
	}
	return cat
}
