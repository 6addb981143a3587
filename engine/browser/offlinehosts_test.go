package browser

import (
	"context"
	"testing"

	"waymark/engine"
	"waymark/engine/har"
)

// A site reached through host rules (the practice pack's, say) replays
// offline episode after episode on the same Chromium. Each new browser
// context first fetches the host-mapping proxy's own test address to get
// its credentials; on an offline Chromium every request of a context with
// no archive yet was refused, that one included, so every reset after the
// Chromium's first failed ("its test request got status 0").
func TestOfflineResetsOfAMappedHost(t *testing.T) {
	site := newSite(t)
	rules := "MAP shop.waymark.test 127.0.0.1:" + hostPort(t, site.URL)
	start := "http://shop.waymark.test/host"
	rec := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.HostRules, o.Settings.HAR = rules, true })
	if obs := reset(t, rec, start); obs.Error != "" || obs.Title != "host shop.waymark.test" {
		t.Fatalf("the recording's page: error %q, title %q", obs.Error, obs.Title)
	}
	c := rec.TakeHAR(true)
	arch := &mapArchive{by: map[string]har.Entry{}, bodies: c.Bodies}
	for _, e := range c.Archive {
		if e.Response.Error == "" {
			arch.by[e.Request.Method+" "+e.Request.URL] = e
		}
	}
	if _, ok := arch.by["GET "+start]; !ok {
		t.Fatalf("the archive has no %s (%d records)", start, len(c.Archive))
	}
	site.Close()
	rp := newEngine(t, engine.DisplayHeadless, func(o *Options) { o.HostRules = rules })
	for i := range 3 {
		obs, err := rp.Reset(context.Background(), engine.ResetOptions{StartURL: start, Archive: arch})
		if err != nil {
			t.Fatalf("offline reset %d: %v", i+1, err)
		}
		if obs.Error != "" || obs.Title != "host shop.waymark.test" || obs.OffArchive != 0 {
			t.Fatalf("offline reset %d: error %q, title %q, %d refused (%v)", i+1, obs.Error, obs.Title, obs.OffArchive, arch.refused)
		}
	}
}
