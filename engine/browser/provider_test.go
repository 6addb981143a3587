package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"waymark/engine"
)

// TestProviderConfig reads provider configurations (no browser runs).
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
		`{"local_process":{"display":"xvfb","extra":1}}`:                    `bad options: json: unknown field "extra"`,
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
	r := p.(*RemoteCDP)
	if r.connectTimeout() != 2500*time.Millisecond || time.Duration(r.opts.LeaseTTL) != time.Minute || r.downFor() != 45*time.Second {
		t.Errorf("durations %v %v %v", r.connectTimeout(), r.opts.LeaseTTL, r.downFor())
	}
	if got, _ := r.resolve(context.Background(), r.eps[0].addr); got != "ws://127.0.0.1:1/devtools/browser/x?a=1&timeout=60000&token=s3cret" {
		t.Errorf("websocket URL %s", got)
	}
	if got := redactURL("ws://h:1/devtools/browser/x?token=s3cret"); got != "ws://h:1/devtools/browser/x" {
		t.Errorf("redacted %s", got)
	}
	q, err := engine.Providers.New([]byte(`{"remote_cdp":{"endpoints":["ws://h:1/devtools/browser/x"],"query":"?token=a%20b"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := q.(*RemoteCDP).resolve(context.Background(), "ws://h:1/devtools/browser/x"); got != "ws://h:1/devtools/browser/x?token=a+b" {
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

// TestLocalProcessProvider: local_process hands out handles for today's
// local engine (no browser starts here: Chromium starts at the first Reset).
func TestLocalProcessProvider(t *testing.T) {
	p, err := engine.Providers.New([]byte(`{"local_process":{"display":"headless"}}`))
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Acquire(context.Background(), engine.Spec{Metadata: map[string]string{"task": "t9"}})
	if err != nil {
		t.Fatal(err)
	}
	if h.Transport != "local_process" || h.Provider != "local_process" || h.OwnerPID != os.Getpid() ||
		h.Endpoint != "" || h.Metadata["task"] != "t9" || h.SessionID == "" {
		t.Fatalf("handle %+v", h)
	}
	e, err := NewForHandle(h, Options{Settings: engine.DefaultSettings()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if info := e.Info(); info.Kind != "local" || info.Display != "headless" || info.Server != "" {
		t.Errorf("info %+v", info)
	}
	hb := p.(engine.Heartbeater)
	if err := hb.Heartbeat(context.Background(), h); err != nil {
		t.Errorf("heartbeat: %v", err)
	}
	other := h
	other.OwnerPID++
	if err := p.Release(context.Background(), other); !errors.Is(err, engine.ErrNotOwner) {
		t.Errorf("release from another process: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := p.Release(context.Background(), h); err != nil {
			t.Fatalf("release %d: %v", i+1, err)
		}
	}
	if err := hb.Heartbeat(context.Background(), h); err == nil || !strings.Contains(err.Error(), "was released") {
		t.Errorf("heartbeat after release: %v", err)
	}
	bad := h
	bad.Transport = "carrier_pigeon"
	if _, err := NewForHandle(bad, Options{Settings: engine.DefaultSettings()}); err == nil ||
		!strings.Contains(err.Error(), `unknown browser transport "carrier_pigeon"`) {
		t.Errorf("unknown transport: %v", err)
	}
}
