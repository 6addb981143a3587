package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine/browser"
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
		if _, ok := p.(*browser.RemoteCDP); !ok {
			t.Fatalf("%s: got %T, want *browser.RemoteCDP", v, p)
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
		if _, ok := p.(*browser.LocalProcess); !ok {
			t.Fatalf("%s: got %T, want *browser.LocalProcess", v, p)
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
