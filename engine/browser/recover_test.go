package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
)

// recoverSite: /start links to /stream, a page whose body arrives 2.5 s
// after its head (past the 1.5 s settle cap), and /blank has no content.
func recoverSite(t *testing.T, hits *atomic.Int64) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>start</title></head><body style="margin:0"><a href="/stream" style="display:block;width:800px;height:600px">slow page</a></body></html>`)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>slow</title></head><body>`+strings.Repeat(" ", 2048))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(2500 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, `<h1>arrived</h1></body></html>`)
	})
	mux.HandleFunc("/blank", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>blank</title></head><body></body></html>`)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts
}

func TestRecoverObservation(t *testing.T) {
	var hits atomic.Int64
	ts := recoverSite(t, &hits)
	ctx := context.Background()
	body := `document.body ? document.body.innerText.trim() : ''`

	t.Run("off: the observation of an unpainted page is blank", func(t *testing.T) {
		e := newEngine(t, engine.DisplayHeadless, nil)
		e.stateExpr = body
		reset(t, e, ts.URL+"/start")
		obs := step(t, e, action.ClickAt(400, 300))
		if obs.Error != "" || obs.Done || e.lastState != "" || obs.Timings.SettledBy != action.SettledCap {
			t.Fatalf("without recovery: error %q done %v text %q settled by %q", obs.Error, obs.Done, e.lastState, obs.Timings.SettledBy)
		}
	})

	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Settings.RecoverObservation = true })
	e.stateExpr = body
	t.Run("on: a fresh read after DOMContentLoaded, the action not repeated", func(t *testing.T) {
		obs := reset(t, e, ts.URL+"/start")
		if obs.Error != "" || obs.Title != "start" {
			t.Fatalf("healthy reset: %q %q", obs.Error, obs.Title)
		}
		before := hits.Load()
		obs = step(t, e, action.ClickAt(400, 300))
		if obs.Error != "" || obs.Done || e.lastState != "arrived" || obs.Title != "slow" || len(obs.Screenshot) == 0 {
			t.Fatalf("with recovery: error %q done %v text %q title %q", obs.Error, obs.Done, e.lastState, obs.Title)
		}
		if n := hits.Load() - before; n != 1 {
			t.Fatalf("the page was loaded %d times for one click", n)
		}
		if obs := step(t, e, action.ScrollBy(10)); obs.Error != "" || obs.Done {
			t.Fatalf("the next step: %q done %v", obs.Error, obs.Done)
		}
	})
	t.Run("on: a genuinely blank page is rejected until reset", func(t *testing.T) {
		start := time.Now()
		obs := reset(t, e, ts.URL+"/blank")
		if obs.Error != action.ErrBlankObservation || !obs.Done || obs.EndReason != action.EndBlankObservation {
			t.Fatalf("blank page: error %q done %v end %q", obs.Error, obs.Done, obs.EndReason)
		}
		if d := time.Since(start); d > e.set.OpTimeout+e.set.ActionWait+5*time.Second {
			t.Errorf("recovery took %v, beyond the operation timeout", d)
		}
		_, err := e.Step(ctx, action.ScrollBy(10))
		if !errors.Is(err, engine.ErrResetBeforeStepping) || !strings.Contains(err.Error(), "no visible content") {
			t.Fatalf("step after a failed recovery: %v", err)
		}
		if obs := reset(t, e, ts.URL+"/start"); obs.Error != "" || obs.Done {
			t.Fatalf("reset after a failed recovery: %q", obs.Error)
		}
		if obs := step(t, e, action.ScrollBy(10)); obs.Error != "" {
			t.Fatalf("step after the reset: %q", obs.Error)
		}
	})
}
