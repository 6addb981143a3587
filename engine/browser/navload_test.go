package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"waymark/engine"
)

// A navigation waits for the load event of its own document. The page
// before it can fire its load while the new one is on its way (its last
// image arrives), and that event, taken for the new page's, ended the
// wait before the new page was there: as soon as the new page's answer
// came, before it was even shown. A busy machine does this with a new
// tab's first, empty document, whose load comes after the reset's
// navigation began. Here page a's image is held until page b was asked
// for, and page b's own image until the test has seen the navigation
// still waiting for it.
func TestNavigationWaitsForItsOwnDocumentsLoad(t *testing.T) {
	aImgAsked, releaseAImg := gate(), gate()
	bAsked, releaseB := gate(), gate()
	bImgAsked, releaseBImg := gate(), gate()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a.svg", "/b.svg":
			if r.URL.Path == "/a.svg" {
				aImgAsked.open()
				<-releaseAImg.ch
			} else {
				bImgAsked.open()
				<-releaseBImg.ch
			}
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
			return
		case "/b":
			bAsked.open()
			<-releaseB.ch
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		name := r.URL.Path[1:]
		fmt.Fprintf(w, `<!doctype html><title>%s</title><p>%s<img src="/%s.svg">`, name, name, name)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { releaseAImg.open(); releaseB.open(); releaseBImg.open() }) // before the server closes
	wait := func(g *gateCh, what string) {
		t.Helper()
		select {
		case <-g.ch:
		case <-time.After(20 * time.Second):
			t.Fatal(what)
		}
	}
	e := newEngine(t, engine.DisplayHeadless, nil)
	reset(t, e, ts.URL+"/start")

	// Page a is there, its image on its way: its load event is yet to come.
	eval[string](t, e, `location.href = "/a"; ""`)
	wait(aImgAsked, "page a did not ask for its image")
	done := make(chan error, 1)
	go func() {
		_, err := e.navigate(context.Background(), e.ep.tab, ts.URL+"/b")
		done <- err
	}()
	wait(bAsked, "page b was not asked for")
	aLoaded := gate()
	if err := chromedp.Listen(e.ep.tab.ctx, func(ev any) {
		if _, ok := ev.(*page.EventLoadEventFired); ok {
			aLoaded.open()
		}
	}); err != nil {
		t.Fatal(err)
	}
	releaseAImg.open() // page a loads while page b is on its way
	wait(aLoaded, "page a did not fire its load event")
	releaseB.open()
	wait(bImgAsked, "page b did not ask for its image")
	select {
	case err := <-done:
		t.Fatalf("the navigation to b ended (err %v) while b's image was still on its way: it took page a's load for b's", err)
	case <-time.After(300 * time.Millisecond):
	}
	releaseBImg.open()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the navigation to b did not end after its page loaded")
	}
	if got := eval[string](t, e, `document.title + " " + document.readyState`); got != "b complete" {
		t.Fatalf("after the navigation the page is %q, want \"b complete\"", got)
	}
}

// gateCh is a channel closed once, however many times it is opened.
type gateCh struct {
	ch   chan struct{}
	once sync.Once
}

func gate() *gateCh { return &gateCh{ch: make(chan struct{})} }

func (g *gateCh) open() { g.once.Do(func() { close(g.ch) }) }
