package hfexport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
)

// The card's action table counts each action in the export. Five episodes
// of 50 actions (stepActionOf: action i is chosen by i%6, the 50th is
// finish) hold 9 clicks and 8 each of type, key, scroll, back and wait per
// episode.
func TestCardActionCounts(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("t", dataset.Interaction)
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("e%d", i)
		f.episode(id, "t", "alice", dataset.StatusFinished, 50)
		f.review(id, "rita", dataset.OutcomeSuccess, false)
	}
	o := opts(filepath.Join(t.TempDir(), "ds"))
	mustExport(t, f, o)
	b, err := os.ReadFile(filepath.Join(o.Out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| `") {
			cells := strings.Split(l, " | ")
			got[strings.Trim(cells[0], "| `")] = strings.TrimSuffix(cells[len(cells)-1], " |")
		}
	}
	want := map[string]string{"click": "45", "type": "40", "key": "40", "scroll": "40", "back": "40", "wait": "40", "finish": "5"}
	for op, n := range want {
		if got[op] != n {
			t.Errorf("action table: %s counted %q, want %s", op, got[op], n)
		}
	}
	for _, op := range []string{"goto", "double_click", "move", "drag"} {
		if _, ok := got[op]; ok {
			t.Errorf("action table lists the unused extended action %s", op)
		}
	}
}
