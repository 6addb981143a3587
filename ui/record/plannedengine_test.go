package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
	"waymark/ui"
)

// Between episodes the status bar says where the next one runs, and says
// it as soon as the settings change (a server URL saved), not only once an
// episode has run.
func TestPlannedEngineFollowsTheSettings(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "Open the page", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	prefs := fyne.CurrentApp().Preferences()
	f.tab.opts.Settings = func() ui.Settings { return ui.LoadSettings(prefs) }
	s := ui.LoadSettings(prefs)
	s.Annotator = "Tester"
	s.Save(prefs)
	f.loop.until(t, "the local browser", func() bool { return strings.Contains(f.tab.status.engineLbl.Text, "Next episode: local browser") })
	s.Server = "http://127.0.0.1:8000"
	s.Save(prefs)
	f.loop.until(t, "the server in the status bar", func() bool {
		return strings.Contains(f.tab.status.engineLbl.Text, "Next episode: OpenEnv server http://127.0.0.1:8000")
	})
}
