package record

import (
	"testing"

	"waymark/ui"
)

// The status bar names the remote browser the next episode runs in, without
// a farm's token.
func TestPlannedEngineNamesTheRemoteBrowser(t *testing.T) {
	s := ui.DefaultSettings()
	s.RemoteBrowser = "ws://10.0.0.7:3000/devtools/browser/3f2c?token=secret"
	if got := plannedEngine(s); got != "Next episode: remote browser ws://10.0.0.7:3000/devtools/browser/3f2c · default actions" {
		t.Fatalf("%q", got)
	}
}
