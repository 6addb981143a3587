package openenv

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"waymark/engine"
)

// attackPage is a web page that tries to make the OpenEnv server start a
// browser and load a URL of its choice, the two ways a page can POST
// without a CORS preflight: fetch in no-cors mode with text/plain, and a
// text/plain form posted into a frame. It reports each attempt's end to
// /done on its own site.
const attackPage = `<!doctype html><title>attack</title>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="post" enctype="text/plain" target="sink" action="%[1]s/reset"><input name='{"start_url":"%[2]s?via=form","pad":"' value='"}'></form>
<script>
fetch("%[1]s/reset", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
  body: JSON.stringify({start_url: "%[2]s?via=fetch"})})
  .catch(() => {}).finally(() => fetch("/done?what=fetch"));
document.getElementById("f").submit();
document.getElementById("sink").addEventListener("load", () => fetch("/done?what=form"));
</script>`

// A page loaded in a session's own Chromium cannot drive the server: its
// cross-origin text/plain POSTs to /reset are refused before any engine
// starts, so no second browser runs and the page's URL is never loaded.
// Each check holds on its own: with every origin allowed, the text/plain
// bodies are still refused.
func TestPageCannotDriveTheServer(t *testing.T) {
	t.Run("default", func(t *testing.T) { pageAttack(t, nil) })
	t.Run("any origin allowed", func(t *testing.T) { pageAttack(t, []string{"*"}) })
}

func pageAttack(t *testing.T, allowOrigins []string) {
	var (
		mu      sync.Mutex
		markers []string
		done    = map[string]bool{}
	)
	var serverURL string
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, attackPage, serverURL, "http://"+r.Host+"/marker")
		case "/marker":
			markers = append(markers, r.URL.RawQuery)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<title>marker</title>loaded by the server's browser")
		case "/done":
			done[r.URL.Query().Get("what")] = true
		}
	}))
	defer attacker.Close()

	var es engines
	_, hs := testServer(t, Options{NewEngine: browserFactory(t, &es), AllowOrigins: allowOrigins})
	serverURL = hs.URL
	ctx := context.Background()
	c, err := Dial(ctx, hs.URL, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: attacker.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		both := done["fetch"] && done["form"]
		mu.Unlock()
		if both {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page's POSTs did not finish: %v", done)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(markers) > 0 {
		t.Errorf("the server's browser loaded the page's URL (%s)", strings.Join(markers, ", "))
	}
	if n := len(es.all()); n != 1 {
		t.Errorf("%d browsers started; want 1 (the session's)", n)
	}
}
