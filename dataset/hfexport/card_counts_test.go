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

// The card's contents tables and review paragraph, pinned for the standard
// store (figures counted by hand from the fixture): categories are
// Categories[i%3] of task i, an "a" episode of task i has 3+i%4 steps, a "b"
// episode 2; six exported episodes have two or more reviews (the five "b"
// and ep-04-c, whose conflict was settled), seven with ep-03-c when
// unreviewed episodes are included.
func TestCardContentsAndReviewParagraph(t *testing.T) {
	for _, c := range []struct {
		unreviewed bool
		want       []string
	}{
		{false, []string{
			"| category | episodes | steps |\n|---|---|---|\n| information | 6 | 22 |\n| navigation | 6 | 20 |\n| interaction | 5 | 16 |\n\n",
			"| invalid_task | 2 |\n\n| split |",
			"| split | tasks | episodes | steps |\n|---|---|---|---|\n| train | 9 | 16 | 54 |\n| test | 1 | 1 | 4 |\n\n",
			" 1 episode in this export was interrupted.",
			"3 annotators recorded the episodes (2 people, 1 agent); 3 reviewers labelled them. 17 of 17 episodes have at least one review. " +
				"6 episodes were reviewed by two or more people; their reviews agreed on the outcome for 5 of them (83.3%). " +
				"Fleiss' kappa over those reviews is -0.09. 1 disagreement was settled by a final label. Annotator names",
		}},
		{true, []string{
			"| category | episodes | steps |\n|---|---|---|\n| information | 7 | 24 |\n| navigation | 6 | 20 |\n| interaction | 6 | 18 |\n\n",
			"| invalid_task | 2 |\n| (none: null) | 2 |\n\n| split |",
			"| split | tasks | episodes | steps |\n|---|---|---|---|\n| train | 9 | 18 | 58 |\n| test | 1 | 1 | 4 |\n\n",
			" 1 episode in this export was interrupted.",
			"3 annotators recorded the episodes (2 people, 1 agent); 3 reviewers labelled them. 18 of 19 episodes have at least one review. " +
				"7 episodes were reviewed by two or more people; their reviews agreed on the outcome for 5 of them (71.4%). " +
				"Fleiss' kappa over those reviews is -0.17. 1 disagreement was settled by a final label. " +
				"1 episode whose reviewers disagree has a null outcome. Annotator names",
		}},
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
