package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser/browsertest"
	"waymark/engine/chromium"
)

// groupRenderers lists the renderer processes in the process group pgid
// (a farm Chromium browsertest starts leads its own), each as its pid,
// marked "ui" when it renders Chromium's own UI (--top-chrome-webui).
func groupRenderers(pgid int) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		if _, err := strconv.Atoi(en.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + en.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[2] != strconv.Itoa(pgid) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + en.Name() + "/cmdline")
		c := string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
		if !strings.Contains(c, "--type=renderer") {
			continue
		}
		if strings.Contains(c, "--top-chrome-webui") {
			out = append(out, en.Name()+" ui")
		} else {
			out = append(out, en.Name())
		}
	}
	return out
}

// renderersAtMost waits until the farm runs at most want renderer
// processes (a closed page's renderer can linger a moment), at most
// 10 s (more on a busy machine), and returns them.
func renderersAtMost(pgid, want int) []string {
	var got []string
	for deadline := time.Now().Add(chromium.Patient(10 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		got = groupRenderers(pgid)
		if len(got) <= want || time.Now().After(deadline) {
			return got
		}
	}
}

// A session through the remote_cdp provider costs a farm's Chromium that
// runs with Chromium's own features (a farm that knows nothing of
// Waymark) two renderer processes: its episode's page, and Chromium's own
// UI (the omnibox popups it preloads into every window, and an episode's
// page needs a window to draw frames). Chromium's spare renderer is one
// per browser, for the context used last, so it moves from session to
// session instead of adding one each. The engine kept a tab of its own in
// the session's browser context, to learn that the provider disposed of
// it: a window more, with its own page and UI renderers, 4 a session
// (#52 item 13).
func TestARemoteSessionCostsTheFarmItsEpisodesPage(t *testing.T) {
	site := newSite(t)
	path, err := chromium.Find("")
	if err != nil {
		t.Skipf("no Chromium to serve as a remote endpoint: %v", err)
	}
	farm := browsertest.StartRemote(t, browsertest.RemoteOptions{Path: path, NoSandbox: chromium.NeedsNoSandbox(), Defaults: true})
	p := newProvider(t, fmt.Sprintf(`{"remote_cdp":{"endpoints":[%q]}}`, farm.HTTP))
	episode := func(e *Engine, what string) {
		t.Helper()
		obs := reset(t, e, site.URL+"/page2")
		if obs.Title != "page 2" || obs.Error != "" || len(obs.Screenshot) == 0 {
			t.Fatalf("%s: reset: title %q error %q, %d bytes of screenshot", what, obs.Title, obs.Error, len(obs.Screenshot))
		}
		obs = step(t, e, action.ClickAt(20, 20))
		if obs.Error != "" || len(obs.Screenshot) == 0 {
			t.Fatalf("%s: a click: error %q, %d bytes of screenshot", what, obs.Error, len(obs.Screenshot))
		}
	}
	// The farm's own window and the first session: what a second adds
	// is what a session costs.
	h1 := acquire(t, p)
	e1 := remoteEngine(t, h1)
	episode(e1, "session 1")
	one := groupRenderers(farm.PID())
	h2 := acquire(t, p)
	e2 := remoteEngine(t, h2)
	for i := range 2 {
		episode(e2, fmt.Sprintf("session 2, episode %d", i+1))
		got := renderersAtMost(farm.PID(), len(one)+2)
		if len(got) > len(one)+2 {
			t.Errorf("session 2, episode %d: the session costs the farm %d renderer processes (%v with it, %v without), want 2: its page and its window's UI",
				i+1, len(got)-len(one), got, one)
		}
	}
	// What the session's renderers render.
	e2.mu.Lock()
	tctx := e2.ep.tab.ctx
	e2.mu.Unlock()
	ctx, cancel := context.WithTimeout(tctx, 10*time.Second)
	defer cancel()
	infos, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{}}})
	if err != nil {
		t.Fatal(err)
	}
	bc := chromedp.FromContext(tctx).BrowserContextID
	var own []string
	for _, ti := range infos.TargetInfos {
		if ti.BrowserContextID == bc || string(ti.BrowserContextID) == h2.Metadata[engine.MetaBrowserContextID] {
			own = append(own, string(ti.Type)+" "+ti.URL)
		}
	}
	t.Logf("session 2's targets: %s", strings.Join(own, ", "))
	// A session ends with nothing left on the farm.
	e2.Close()
	if err := p.Release(context.Background(), h2); err != nil {
		t.Fatal(err)
	}
	if got := renderersAtMost(farm.PID(), len(one)); len(got) > len(one) {
		t.Errorf("after session 2 ended: %v, want what the farm ran before it: %v", got, one)
	}
}
