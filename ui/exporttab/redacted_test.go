package exporttab

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// "Only redacted episodes" refuses a store whose episodes were recorded
// without a redaction policy, naming them; unchecked, the same store
// exports.
func TestExportOnlyRedactedEpisodes(t *testing.T) {
	s := store(t, 1, 1)
	tab, _, ch := newTab(t, s)
	tab.out.SetText(filepath.Join(t.TempDir(), "ds"))
	tab.licence.SetText("cc-by-4.0")
	tab.testFraction.SetText("0")
	tab.redactedOnly.SetChecked(true)
	test.Tap(tab.exportBtn)
	r := wait(t, ch)
	if r.err == nil || !strings.Contains(tab.status.Text, "recorded without a redaction policy") {
		t.Fatalf("with Only redacted episodes: %v, status %q", r.err, tab.status.Text)
	}
	tab.redactedOnly.SetChecked(false)
	test.Tap(tab.exportBtn)
	if r := wait(t, ch); r.err != nil {
		t.Fatalf("without it: %v", r.err)
	}
}
