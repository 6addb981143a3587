package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// A page may navigate at any moment, also while the engine takes its
// observation. Chromium answers a screenshot asked for in the middle of a
// navigation with "Not attached to an active page" until the new document
// is in (a new site's process, or a same-site document swap), and it never
// answers one still in flight when the new document commits. Either ended
// the episode as a renderer timeout (seen as TestGoClientWholeEpisode's
// ENTER on a search form failing on a loaded machine). The observation's
// reads must go on to the new document instead.
func TestObservationReadsAcrossNavigation(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<title>%s</title><body style="background:#cde"><h1>%s</h1></body>`, r.URL.Path, r.URL.Path)
	}))
	defer ts.Close()
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, ts.URL+"/start")
	e.mu.Lock()
	tb := e.ep.tab
	e.mu.Unlock()
	for round := range 6 {
		target := fmt.Sprintf("%s/r%d", ts.URL, round)
		kind := "same-site"
		if round%2 == 1 {
			target, kind = strings.Replace(target, "127.0.0.1", "localhost", 1), "cross-site"
		}
		tb.mu.Lock()
		docs := tb.documents
		tb.mu.Unlock()
		ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf(`setTimeout(() => location.href = %q, 5), 0`, target)))
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		// Read, again and again, until the new document is in and was read.
		give := time.Now().Add(30 * time.Second)
		for shots := 1; ; shots++ {
			if time.Now().After(give) {
				t.Fatalf("round %d: the %s navigation to %s did not come in 30 s", round, kind, target)
			}
			png, err := tb.screenshot(context.Background(), 5*time.Second)
			if err != nil {
				t.Fatalf("round %d (%s navigation), screenshot %d: %v", round, kind, shots, err)
			}
			pngSize(t, png)
			in, err := tb.info(context.Background(), 5*time.Second, "", false)
			if err != nil {
				t.Fatalf("round %d (%s navigation), page info %d: %v", round, kind, shots, err)
			}
			tb.mu.Lock()
			committed := tb.documents > docs
			tb.mu.Unlock()
			if committed && in.url == target {
				break
			}
		}
	}
}
