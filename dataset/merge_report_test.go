package dataset

import (
	"fmt"
	"strings"
	"testing"
)

// The report for people, literally: every table in the merge's order in
// both lines (a table with nothing says 0), then the rows that could not
// be reconciled, grouped by kind in their order within a kind.
func TestMergeReportSummary(t *testing.T) {
	r := MergeReport{Source: "/data/bob.db",
		Added:     map[string]int{"tasks": 1, "episodes": 2, "steps": 7, "har_chunks": 1, "episode_edits": 1, "reviews": 2, "replay_runs": 1},
		Identical: map[string]int{"tasks": 3},
	}
	want := "merged /data/bob.db\n" +
		"  added: 1 tasks, 2 episodes, 7 steps, 1 network chunks, 1 edits, 2 reviews, 1 replay runs, 0 step labels, 0 archive chunks, 0 archive bodies\n" +
		"  already here (identical): 3 tasks, 0 episodes, 0 steps, 0 network chunks, 0 edits, 0 reviews, 0 replay runs, 0 step labels, 0 archive chunks, 0 archive bodies\n" +
		"  could not reconcile: nothing\n"
	if got := r.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	r.Issues = []MergeIssue{
		{Kind: "task", ID: "t2", Detail: "defined differently", Resolution: "this one kept"},
		{Kind: "review", ID: "r1", Detail: "edited on both", Resolution: "newest current"},
		{Kind: "episode", ID: "e1", Detail: "steps 3 differ", Resolution: "this one kept"},
		{Kind: "task", ID: "t1", Detail: "other goal", Resolution: "this one kept"},
	}
	want = strings.TrimSuffix(want, "  could not reconcile: nothing\n") +
		"  could not reconcile (4):\n" +
		"    - episode e1: steps 3 differ; this one kept\n" +
		"    - review r1: edited on both; newest current\n" +
		"    - task t2: defined differently; this one kept\n" +
		"    - task t1: other goal; this one kept\n"
	if got := r.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if r.Issues[0].ID != "t2" {
		t.Error("Summary reordered the report's own issues")
	}
	// Many issues of two kinds, interleaved: each kind keeps its order.
	r.Issues = nil
	var tasks, reviews []string
	for i := range 20 {
		kind, id := "task", fmt.Sprintf("t%02d", 20-i)
		if i%3 == 0 {
			kind, id = "review", fmt.Sprintf("r%02d", 20-i)
			reviews = append(reviews, "    - review "+id+": d; r")
		} else {
			tasks = append(tasks, "    - task "+id+": d; r")
		}
		r.Issues = append(r.Issues, MergeIssue{Kind: kind, ID: id, Detail: "d", Resolution: "r"})
	}
	got := r.Summary()
	list := got[strings.Index(got, "(20):\n")+6:]
	if want := strings.Join(append(reviews, tasks...), "\n") + "\n"; list != want {
		t.Errorf("20 issues listed as:\n%s\nwant:\n%s", list, want)
	}
}

// A differing episode's steps are listed up to eight, then counted; a
// differing value is quoted, cut at 60 characters (57 and an ellipsis),
// NULL said as empty, bytes as text.
func TestMergeReportDetailForms(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8}, "1, 2, 3, 4, 5, 6, 7, 8"},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9}, "1, 2, 3, 4, 5, 6, 7, 8, … (9 in all)"},
	} {
		if got := intList(c.in); got != c.want {
			t.Errorf("intList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	s60 := strings.Repeat("é", 60)
	s61 := strings.Repeat("é", 61)
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, "empty"},
		{int64(3), `"3"`},
		{[]byte("done"), `"done"`},
		{s60, `"` + s60 + `"`},
		{s61, `"` + strings.Repeat("é", 57) + `…"`},
	} {
		if got := short(c.in); got != c.want {
			t.Errorf("short(%v) = %s, want %s", c.in, got, c.want)
		}
	}
	cols := []string{"id", "status", "thumb", "note"}
	here := []any{"e1", []byte("finished"), []byte{1}, nil}
	there := []any{"e1", "interrupted", []byte{2}, "x"}
	got := diffFields(cols, here, there, []string{"thumb"})
	want := []string{`status is "finished" here and "interrupted" there`, `note is empty here and "x" there`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diffFields = %q, want %q", got, want)
	}
	if got := diffFields(cols, []any{"e1", []byte("a"), nil, nil}, []any{"e1", "a", nil, nil}, nil); len(got) != 0 {
		t.Errorf("bytes and the same text differ: %q", got)
	}
}
