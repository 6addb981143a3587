package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/chromium"
)

// The state page writes every kind of state a site can leave in a browser;
// the check page reads it back. Loopback is a secure context, so the
// service worker registers.
const statePage = `<!doctype html><title>writing</title><body><script>
(async () => {
  document.cookie = 'c=1; max-age=3600';
  localStorage.setItem('l', '1');
  sessionStorage.setItem('s', '1');
  await new Promise((ok, no) => {
    const r = indexedDB.open('db', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('o');
    r.onsuccess = () => { const tx = r.result.transaction('o', 'readwrite'); tx.objectStore('o').put(1, 'k'); tx.oncomplete = ok; tx.onerror = no; };
    r.onerror = no;
  });
  await (await caches.open('cs')).put('/x', new Response('x'));
  await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  await fetch('/cached');
  document.title = 'written';
})().catch(e => document.title = 'error ' + e);
</script></body>`

const checkPage = `<!doctype html><title>reading</title><body><script>
(async () => {
  const dbs = (await indexedDB.databases()).map(d => d.name);
  const regs = await navigator.serviceWorker.getRegistrations();
  const cacheNames = await caches.keys();
  await fetch('/cached');
  document.title = JSON.stringify({cookie: document.cookie, local: localStorage.length, session: sessionStorage.length,
    idb: dbs.length, sw: regs.length, caches: cacheNames.length, history: history.length});
})().catch(e => document.title = 'error ' + e);
</script></body>`

func stateSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var cachedHits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/write", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, statePage) })
	mux.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, checkPage) })
	mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "self.addEventListener('fetch', () => {});")
	})
	mux.HandleFunc("/cached", func(w http.ResponseWriter, r *http.Request) {
		cachedHits.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "cached")
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts, &cachedHits
}

// waitTitle steps `wait` until the page's title leaves the given one.
func waitTitle(t *testing.T, e *Engine, obs action.Observation, pending string) action.Observation {
	t.Helper()
	for i := 0; obs.Title == pending && i < 50; i++ {
		obs = step(t, e, action.Action{Op: action.Wait})
	}
	return obs
}

// Episodes on one warm Chromium share nothing: no cookie, storage,
// IndexedDB, service worker, Cache Storage, HTTP cache entry or history of
// one episode is visible in the next, in the same engine or in another
// engine on the same browser; whether the next episode's browser context
// was made at its Reset or ahead of it, as a spare.
func TestPooledEpisodesShareNothing(t *testing.T) {
	for _, spare := range []bool{false, true} {
		t.Run(fmt.Sprintf("spare=%v", spare), func(t *testing.T) { testEpisodesShareNothing(t, spare) })
	}
}

func testEpisodesShareNothing(t *testing.T, spare bool) {
	ts, hits := stateSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{NoSpare: !spare})
	t.Cleanup(pool.Close)
	a := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool; o.Settings.ActionSet = action.SetExtended })
	obs := waitTitle(t, a, reset(t, a, ts.URL+"/write"), "writing")
	if obs.Title != "written" {
		t.Fatalf("the state page did not write its state: %q", obs.Title)
	}
	step(t, a, action.Action{Op: action.Wait})
	// In the same episode the state is there (the check can tell).
	obs = step(t, a, action.Action{Op: action.Goto, URL: ts.URL + "/check"})
	obs = waitTitle(t, a, obs, "reading")
	if !strings.Contains(obs.Title, `"cookie":"c=1"`) || !strings.Contains(obs.Title, `"sw":1`) || !strings.Contains(obs.Title, `"caches":1`) {
		t.Fatalf("the check page cannot see the state of its own episode: %s", obs.Title)
	}
	before := hits.Load()
	// A new tab holds about:blank and then the start page: history 2.
	const clean = `{"cookie":"","local":0,"session":0,"idb":0,"sw":0,"caches":0,"history":2}`
	pid := a.BrowserPID()
	for _, who := range []string{"the same engine", "another engine"} {
		e := a
		if who == "another engine" {
			e = newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
		}
		var spareID target.ID
		if spare {
			spareID = waitSpare(t, pool)
		}
		obs = waitTitle(t, e, reset(t, e, ts.URL+"/check"), "reading")
		if spare && e.ep.tab.id != spareID {
			t.Errorf("the episode in %s did not run in the spare browser context", who)
		}
		if obs.Title != clean {
			t.Errorf("a new episode in %s sees the last one's state: %s, want %s", who, obs.Title, clean)
		}
		if e.BrowserPID() != pid {
			t.Errorf("%s runs on Chromium %d, not on the warm one (%d)", who, e.BrowserPID(), pid)
		}
		if n := hits.Load(); n != before+1 {
			t.Errorf("a new episode in %s fetched /cached %d times, want 1 (the last episode's HTTP cache must not answer)", who, n-before)
		}
		before = hits.Load()
	}
	if st := pool.Stats(); st.Starts != 1 {
		t.Errorf("the pool started %d Chromiums for three episodes, want 1", st.Starts)
	}
}

// Host rules are the engine's own on a shared browser: two engines that map
// the same host name to two servers each reach their own, at the same time
// and on one Chromium.
func TestPooledHostRulesPerEngine(t *testing.T) {
	pool := chromium.NewPool(chromium.PoolOptions{})
	t.Cleanup(pool.Close)
	var engines []*Engine
	for i := range 2 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<title>server %d for %s</title>", i, r.Host)
		}))
		t.Cleanup(srv.Close)
		engines = append(engines, newEngine(t, engine.DisplayHeadless, func(o *Options) {
			o.Pool = pool
			o.HostRules = "MAP shop.waymark.test " + strings.TrimPrefix(srv.URL, "http://")
		}))
	}
	for round := range 2 {
		for i, e := range engines {
			obs := reset(t, e, "http://shop.waymark.test/")
			if want := fmt.Sprintf("server %d for shop.waymark.test", i); obs.Title != want || obs.Error != "" {
				t.Fatalf("round %d, engine %d: title %q error %q, want %q", round, i, obs.Title, obs.Error, want)
			}
		}
	}
	if engines[0].BrowserPID() != engines[1].BrowserPID() {
		t.Errorf("the engines run on two Chromiums (%d, %d), want one", engines[0].BrowserPID(), engines[1].BrowserPID())
	}
}

// A Chromium is recycled after RecycleContexts browser contexts: the next
// episode runs on a new one, and the old one is gone with its profile.
func TestPoolRecyclesAfterContexts(t *testing.T) {
	ts := newSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{RecycleContexts: 2})
	t.Cleanup(pool.Close)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	reset(t, e, ts.URL+"/page2")
	first, profile := e.BrowserPID(), e.Profile()
	reset(t, e, ts.URL+"/page2")
	if e.BrowserPID() != first {
		t.Fatalf("the second episode moved to Chromium %d before the limit (was %d)", e.BrowserPID(), first)
	}
	obs := reset(t, e, ts.URL+"/page2")
	if obs.Title != "page 2" || e.BrowserPID() == first {
		t.Fatalf("third episode: title %q on Chromium %d, want a new Chromium (old %d)", obs.Title, e.BrowserPID(), first)
	}
	if alive(first) || len(procsWith(profile)) > 0 {
		t.Errorf("the recycled Chromium %d still runs (alive %v, helpers %v)", first, alive(first), procsWith(profile))
	}
	if st := pool.Stats(); st.Browsers != 1 || st.Starts != 2 {
		t.Errorf("pool after recycling: %+v, want 1 browser, 2 starts", st)
	}
}

// With Browsers 2, two engines at once get a Chromium each, and a crash of
// one Chromium ends only the episode on it.
func TestPoolSpreadsAndIsolatesCrashes(t *testing.T) {
	ts := newSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{Browsers: 2})
	t.Cleanup(pool.Close)
	a := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	b := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	var wg sync.WaitGroup
	for _, e := range []*Engine{a, b} {
		wg.Go(func() { reset(t, e, ts.URL+"/") })
	}
	wg.Wait()
	if a.BrowserPID() == b.BrowserPID() {
		t.Fatalf("both engines run on Chromium %d, want one each", a.BrowserPID())
	}
	syscall.Kill(a.BrowserPID(), syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for alive(a.BrowserPID()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if obs := step(t, a, action.ClickAt(10, 10)); obs.Error != action.ErrRendererCrashed || !obs.Done {
		t.Fatalf("the engine whose Chromium died: %+v", obs)
	}
	if obs := step(t, b, action.ScrollBy(50)); obs.Error != "" || obs.Done {
		t.Fatalf("the other engine's episode was hurt by the crash: error %q done %v", obs.Error, obs.Done)
	}
	obs, err := a.Reset(context.Background(), engine.ResetOptions{StartURL: ts.URL + "/page2"})
	if err != nil || obs.Title != "page 2" {
		t.Fatalf("reset after the crash: %q %v", obs.Title, err)
	}
}

// waitSpare waits for the pool's one Chromium to have a spare and returns
// its tab's id.
func waitSpare(t testing.TB, pool *chromium.Pool) target.ID {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ids := pool.SpareTabs(); len(ids) == 1 && pool.Stats().Browsers == 1 {
			return ids[0]
		}
	}
	t.Fatal("no spare browser context was made within 15 s of a Reset")
	return ""
}

// After a Reset the pool makes the next episode's browser context ahead;
// the next Reset with the same host rules runs in it, one with other host
// rules does not (its proxy maps other servers), and a spare never counts
// as an open page.
func TestPoolPreparesTheNextContext(t *testing.T) {
	ts := newSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{})
	t.Cleanup(pool.Close)
	a := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	reset(t, a, ts.URL+"/page2")
	id := waitSpare(t, pool)
	if n, err := pool.OpenPages(context.Background()); err != nil || n != 1 {
		t.Errorf("open pages with one episode and a spare: %d %v, want 1", n, err)
	}
	b := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	if obs := reset(t, b, ts.URL+"/page2"); obs.Title != "page 2" || b.ep.tab.id != id {
		t.Fatalf("the second engine's episode: title %q in tab %s, want page 2 in the spare %s", obs.Title, b.ep.tab.id, id)
	}
	id = waitSpare(t, pool)
	other := newEngine(t, engine.DisplayHeadless, func(o *Options) {
		o.Pool = pool
		o.HostRules = "MAP shop.waymark.test " + strings.TrimPrefix(ts.URL, "http://")
	})
	if obs := reset(t, other, "http://shop.waymark.test/page2"); obs.Title != "page 2" || other.ep.tab.id == id {
		t.Fatalf("an engine with other host rules: title %q, in the spare %v", obs.Title, other.ep.tab.id == id)
	}
	if st := pool.Stats(); st.Starts != 1 {
		t.Errorf("%d Chromiums started, want 1", st.Starts)
	}
}

// A reset that comes while the spare is still being made waits for it and
// takes it, instead of opening a second browser context beside it (each
// context's renderer costs about a second of CPU on two cores).
func TestResetTakesTheSpareUnderWay(t *testing.T) {
	ts := newSite(t)
	pool := chromium.NewPool(chromium.PoolOptions{})
	t.Cleanup(pool.Close)
	a := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.Pool = pool })
	for i := 0; i < 3; i++ {
		reset(t, a, ts.URL+"/page2")
		gen, making, _ := a.sb.SpareState()
		if !making {
			continue // ready already: nothing to tell on this turn
		}
		if obs := reset(t, a, ts.URL+"/page2"); obs.Title != "page 2" {
			t.Fatalf("title %q", obs.Title)
		}
		if gen2, _, _ := a.sb.SpareState(); gen2 != gen+1 {
			t.Fatalf("spares begun %d → %d: the reset opened its own context beside the spare under way instead of taking it", gen, gen2)
		}
		return
	}
	t.Skip("the spare was ready before every second reset: nothing to tell on this machine")
}
