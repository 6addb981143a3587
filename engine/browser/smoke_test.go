package browser

import (
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// TestHostRulesMapWithPort: a MAP rule with a port sends a stable host name
// to the practice server's random 127.0.0.1 port.
func TestHostRulesMapWithPort(t *testing.T) {
	ts := newSite(t)
	port := hostPort(t, ts.URL)
	e := newEngine(t, engine.DisplayHeadless, func(o *Options) {
		o.HostRules = "MAP shop.waymark.test 127.0.0.1:" + port + ", MAP wiki.waymark.test 127.0.0.1:" + port
	})
	obs := reset(t, e, "http://shop.waymark.test/host")
	if obs.Error != "" || !strings.Contains(obs.Title, "host shop.waymark.test") {
		t.Fatalf("mapped host: error %q title %q url %q", obs.Error, obs.Title, obs.URL)
	}
	if obs.URL != "http://shop.waymark.test/host" {
		t.Errorf("url %q", obs.URL)
	}
	// The mapping holds for the next step too: same page, same host.
	obs = step(t, e, action.Action{Op: action.Wait})
	if obs.Error != "" || obs.Done || obs.Step != 1 || obs.URL != "http://shop.waymark.test/host" || !strings.Contains(obs.Title, "host shop.waymark.test") {
		t.Errorf("after wait: step %d error %q done %v title %q url %q", obs.Step, obs.Error, obs.Done, obs.Title, obs.URL)
	}
}
