package hfexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The card's outcome table counts the exported episodes per outcome. The
// standard store exports 17: success 3 "a" + 5 "b" + ep-07-c, failure 3 "a"
// + ep-04-c (settled), not_executable and invalid_task 2 "a" each; none
// without an outcome (unreviewed ones are not included by default).
func TestCardOutcomeCounts(t *testing.T) {
	out, _ := exportStandard(t)
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "| outcome | episodes |\n|---|---|\n| success | 9 |\n| failure | 4 |\n| not_executable | 2 |\n| invalid_task | 2 |\n\n"
	if !strings.Contains(string(b), want) {
		i := strings.Index(string(b), "| outcome |")
		t.Errorf("outcome table:\n%s\nwant:\n%s", string(b)[max(i, 0):min(max(i, 0)+200, len(b))], want)
	}
}

// The card counts episodes per action set and the episodes with a review.
// With unreviewed ones included the standard store exports 19 episodes
// (the 17 above, ep-03-c in conflict and ep-05-c never reviewed): 18 have a
// review. All were recorded with the default action set.
func TestCardReviewedAndActionSetCounts(t *testing.T) {
	for _, c := range []struct {
		unreviewed bool
		want       []string
	}{
		{false, []string{"Action sets used: default (17 episodes).", "; 3 reviewers labelled them. 17 of 17 episodes have at least one review."}},
		{true, []string{"Action sets used: default (19 episodes).", "; 3 reviewers labelled them. 18 of 19 episodes have at least one review."}},
	} {
		f := standard(t)
		out := filepath.Join(t.TempDir(), "ds")
		o := opts(out)
		o.IncludeUnreviewed = c.unreviewed
		mustExport(t, f, o)
		b, err := os.ReadFile(filepath.Join(out, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("unreviewed %v: card lacks %q", c.unreviewed, w)
			}
		}
	}
}
