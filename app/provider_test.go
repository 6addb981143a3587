package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine"
)

func TestParseBrowserProvider(t *testing.T) {
	if p, err := parseBrowserProvider("  "); p != nil || err != nil {
		t.Fatalf("empty: got %v, %v; want nil, nil", p, err)
	}
	for _, v := range []string{
		"http://127.0.0.1:9222",
		"WS://127.0.0.1:9222/devtools/browser/abc",
		`{"remote_cdp":{"endpoints":["http://127.0.0.1:9222"],"max_per_endpoint":2}}`,
	} {
		p, err := parseBrowserProvider(v)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if n := providerName(p); n != engine.TransportRemoteCDP {
			t.Fatalf("%s: got %s (%T), want %s", v, n, p, engine.TransportRemoteCDP)
		}
	}
	file := filepath.Join(t.TempDir(), "farm.json")
	if err := os.WriteFile(file, []byte(`{"local_process":{"display":"headless"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"@" + file, file} {
		p, err := parseBrowserProvider(v)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if n := providerName(p); n != engine.TransportLocalProcess {
			t.Fatalf("%s: got %s (%T), want %s", v, n, p, engine.TransportLocalProcess)
		}
	}
	for v, want := range map[string]string{
		"farm.example:9222":               "neither a JSON object, a readable file nor a CDP address",
		"@/nonexistent/farm.json":         "cannot read the browser provider file",
		`{"selenium":{}}`:                 `unknown browser provider "selenium"; use one of: local_process, remote_cdp`,
		`{"remote_cdp":{"endpoint":"x"}}`: `unknown field "endpoint"`,
		`{"remote_cdp":{}}`:               "no endpoints",
	} {
		_, err := parseBrowserProvider(v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", v, err, want)
		}
	}
}

// TestNewEngineLocalProvider: an engine spec that names no provider gets
// its browser from local_process, and holds no lease a server would keep
// or report (the process is its lease). The engine starts no Chromium
// before its first Reset.
func TestNewEngineLocalProvider(t *testing.T) {
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	eng, err := newEngine(context.Background(), engineSpec{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	if info := eng.Info(); info.Kind != "local" {
		t.Errorf("Info().Kind = %q, want local", info.Kind)
	}
	if _, ok := engine.As[engine.Lease](eng); ok {
		t.Errorf("the local engine (%T) is an engine.Lease", eng)
	}
	if _, ok := engine.As[engine.LiveFrames](eng); !ok {
		t.Errorf("the local engine (%T) gives no live frames", eng)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := localProvider()
	if err != nil {
		t.Fatal(err)
	}
	if n := providerName(p); n != engine.TransportLocalProcess {
		t.Errorf("the default provider is %s (%T), want %s", n, p, engine.TransportLocalProcess)
	}
}
