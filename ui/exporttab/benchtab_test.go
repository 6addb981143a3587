package exporttab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"waymark/dataset/benchexport"
)

// Choosing a benchmark in the Format field disables the Hugging Face
// fields and says what the layout writes; Export writes it (no licence
// needed), with the filters, and the status and notification say what was
// written.
func TestExportTabBenchmarkFormat(t *testing.T) {
	s := store(t, 6, 2)
	tab, n, _ := newTab(t, s)
	type end struct {
		res benchexport.Result
		err error
	}
	ch := make(chan end, 1)
	tab.bench.finished = func(r benchexport.Result, err error) { ch <- end{r, err} }
	if got := strings.Join(tab.format.Options, " | "); got != "Hugging Face dataset | AgentRewardBench (judge calibration) | Online-Mind2Web (judge calibration) | WebArena-Verified (judge calibration)" {
		t.Errorf("formats offered: %s", got)
	}
	tab.format.SetSelected("Online-Mind2Web (judge calibration)")
	if !tab.licence.Disabled() || !tab.name.Disabled() || !tab.testFraction.Disabled() || !strings.Contains(tab.status.Text, "human_label.json (0 failure, 1 success, 2 not executable)") {
		t.Errorf("licence disabled %v, status %q", tab.licence.Disabled(), tab.status.Text)
	}
	dir := filepath.Join(t.TempDir(), "om2w")
	test.Type(tab.out, dir)
	tab.annotators.SetSelected([]string{"bob"})
	test.Tap(tab.exportBtn)
	var e end
	select {
	case e = <-ch:
	case <-time.After(60 * time.Second):
		t.Fatal("export did not finish")
	}
	if e.err != nil {
		t.Fatal(e.err)
	}
	// bob has e001, e003, e005; e005 is unreviewed.
	if e.res.Episodes != 2 || e.res.Format != benchexport.OnlineMind2Web {
		t.Errorf("result %+v", e.res)
	}
	if _, err := os.Stat(filepath.Join(dir, "bob", "e001", "result.json")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(tab.status.Text, "Exported 2 episodes in Online-Mind2Web's layout") || tab.bar.Value != 1 || !strings.Contains(tab.counts.Text, "2 / 2 episodes") {
		t.Errorf("status %q, bar %v, counts %q", tab.status.Text, tab.bar.Value, tab.counts.Text)
	}
	if got := n.all(); len(got) != 1 || !strings.HasPrefix(got[0], "Export finished: 2 episodes (Online-Mind2Web)") {
		t.Errorf("notifications %v", got)
	}
	// Again without Replace: refused, in the screen's words.
	test.Tap(tab.exportBtn)
	e = <-ch
	if e.err == nil || !strings.Contains(tab.status.Text, "by ticking “Replace a previous Waymark export in this folder”") {
		t.Errorf("second export: %v, status %q", e.err, tab.status.Text)
	}
	tab.format.SetSelected("Hugging Face dataset")
	if tab.licence.Disabled() {
		t.Error("the licence stays disabled for the Hugging Face dataset")
	}
}
