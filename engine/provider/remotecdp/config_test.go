package remotecdp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"waymark/engine"
)

// TestProviderConfig reads remote_cdp configurations (no browser runs);
// the registry also holds local_process (engine/chromium, which this
// package imports).
func TestProviderConfig(t *testing.T) {
	if got := fmt.Sprint(engine.Providers.Names()); got != "[local_process remote_cdp]" {
		t.Fatalf("providers %s", got)
	}
	for config, want := range map[string]string{
		`{"remote_cdp":{}}`:                                                 "browser provider remote_cdp: no endpoints",
		`{"remote_cdp":null}`:                                               "browser provider remote_cdp: no endpoints",
		`{"remote_cdp":{"endpoints":["ftp://h:1"]}}`:                        `endpoint "ftp://h:1" is not a ws://, wss://, http:// or https:// URL`,
		`{"remote_cdp":{"endpoint":"http://h:1"}}`:                          `bad options: json: unknown field "endpoint"`,
		`{"remote_cdp":{"endpoints":["http://h:1"],"max_per_endpoint":-1}}`: "max_per_endpoint is -1",
		`{"remote_cdp":{"endpoints":["http://h:1"],"lease_ttl":"soon"}}`:    `a duration is a number of seconds or a string like "90s"`,
		`{"browserless":{}}`:                                                `unknown browser provider "browserless"; use one of: local_process, remote_cdp`,
	} {
		if _, err := engine.Providers.New([]byte(config)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", config, err, want)
		}
	}
	p, err := engine.Providers.New([]byte(`{"remote_cdp":{"endpoints":["ws://127.0.0.1:1/devtools/browser/x?a=1"],
		"connect_timeout":2.5,"lease_ttl":"1m","down_for":"45s","query":{"token":"s3cret","timeout":60000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r := p.(*Provider)
	if r.connectTimeout() != 2500*time.Millisecond || time.Duration(r.opts.LeaseTTL) != time.Minute || r.downFor() != 45*time.Second {
		t.Errorf("durations %v %v %v", r.connectTimeout(), r.opts.LeaseTTL, r.downFor())
	}
	if got, _ := r.resolve(context.Background(), r.eps[0].addr); got != "ws://127.0.0.1:1/devtools/browser/x?a=1&timeout=60000&token=s3cret" {
		t.Errorf("websocket URL %s", got)
	}
	if got := engine.RedactURL("ws://h:1/devtools/browser/x?token=s3cret"); got != "ws://h:1/devtools/browser/x" {
		t.Errorf("redacted %s", got)
	}
	q, err := engine.Providers.New([]byte(`{"remote_cdp":{"endpoints":["ws://h:1/devtools/browser/x"],"query":"?token=a%20b"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := q.(*Provider).resolve(context.Background(), "ws://h:1/devtools/browser/x"); got != "ws://h:1/devtools/browser/x?token=a+b" {
		t.Errorf("websocket URL from a query string %s", got)
	}
	// Nothing listens on port 1: the acquire fails with the endpoint named
	// and its query (a token) left out.
	_, err = p.Acquire(context.Background(), engine.Spec{})
	if err == nil || !strings.Contains(err.Error(), "ws://127.0.0.1:1/devtools/browser/x:") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("acquire on a closed port: %v", err)
	}
	// The endpoint is down now: the next acquire does not dial it again.
	_, err = p.Acquire(context.Background(), engine.Spec{})
	if err == nil || !strings.Contains(err.Error(), "down until") {
		t.Errorf("acquire on a down endpoint: %v", err)
	}
}
