package chromium

import (
	"os"
	"path/filepath"
	"testing"
)

// A browser that does not answer --version (a machine too busy, say) is
// asked again the next time: the failure is not kept as its version.
func TestChromiumVersionIsNotCachedWhenItFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\nif [ -e " + dir + "/answered-once ]; then echo 'Chromium 1.2.3 built on Debian'; exit 0; fi\n" +
		"touch " + dir + "/answered-once\nexit 1\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if v := Version(path); v != "" {
		t.Fatalf("first, failing call: %q", v)
	}
	if v := Version(path); v != "Chromium 1.2.3" {
		t.Errorf("after a failure the version read %q, want Chromium 1.2.3", v)
	}
}
