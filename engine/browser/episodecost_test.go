package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/chromium"
)

// An episode costs one browser context and the renderer of its page, no
// more: Chromium 156 preloaded its omnibox's WebUI popups (two
// chrome://omnibox-popup.top-chrome pages, a renderer process of their own)
// into every window, and a browser context opens a window, so each
// episode paid about a second of CPU for a browser UI nobody sees; and it
// kept a spare renderer process beside each page for the next navigation,
// which a fresh context never used. Together they were 60 % of the CPU the
// replay tests spent, and Reset took 850 ms instead of 500.
func TestAnEpisodeStartsNoBrowserUIOrSpareRenderer(t *testing.T) {
	ts := newSite(t)
	for name, display := range map[string]string{"headless": engine.DisplayHeadless, "auto": engine.DisplayAuto} {
		t.Run(name, func(t *testing.T) {
			pool := chromium.NewPool(chromium.PoolOptions{NoSpare: true})
			t.Cleanup(pool.Close)
			e := newEngine(t, display, func(o *Options) { o.Pool = pool })
			for i := range 2 {
				reset(t, e, ts.URL+"/page2")
				e.mu.Lock()
				tb := e.ep.tab
				e.mu.Unlock()
				ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
				res, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{}}})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				pages := 0
				for _, ti := range res.TargetInfos {
					if ti.Type == "page" {
						pages++
					}
					if ti.Type == "browser_ui" || strings.Contains(ti.URL, ".top-chrome") {
						t.Errorf("episode %d: Chromium loaded a page of its own UI: %s %s", i+1, ti.Type, ti.URL)
					}
				}
				profiles := pool.Profiles()
				if len(profiles) != 1 {
					t.Fatalf("the pool runs %d Chromiums, want 1", len(profiles))
				}
				// One renderer process per page: the episode's and the blank
				// tab of the window Chromium starts with. The last episode's
				// renderer may linger a moment after its context went.
				var got []string
				for deadline := time.Now().Add(chromium.Patient(5 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
					got = renderers(profiles[0])
					if len(got) <= pages || time.Now().After(deadline) {
						break
					}
				}
				if len(got) != pages {
					t.Errorf("episode %d: %d renderer processes for %d pages:\n%s", i+1, len(got), pages, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// renderers lists the renderer processes of the Chromium using profile,
// each as its pid (and --top-chrome-webui for Chromium's own UI pages).
func renderers(profile string) []string {
	var out []string
	for pid, cmd := range chromium.ProcessesUsingDir(profile) {
		if !strings.Contains(cmd, "--type=renderer") {
			continue
		}
		extra := ""
		if strings.Contains(cmd, "--top-chrome-webui") {
			extra = " --top-chrome-webui"
		}
		out = append(out, fmt.Sprintf("pid %d%s", pid, extra))
	}
	return out
}
