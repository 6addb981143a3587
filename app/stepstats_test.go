package app

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/storetest"
)

// review stats reports the reviewers' agreement on step labels beside the
// outcome's: rita and sam labelled six steps alike but one, with labels
// 3 correct, 2 wrong, 1 unnecessary against 2, 3, 1, so Cohen's kappa is
// (5/6 − 13/36)/(1 − 13/36) = 17/23 ≈ 0.74.
func TestReviewStatsStepAgreement(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	s, err := dataset.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	raw := storetest.DB(t, s)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO tasks(id, goal, category, start_url, created_at, updated_at) VALUES('t1','Go to contact','navigation','http://127.0.0.1/','2026-01-01T00:00:00.000Z','2026-01-01T00:00:00.000Z')`)
	for ep, n := range map[string]int{"e1": 4, "e2": 3} {
		exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, started_at) VALUES(?,?,?,?,?,?)`, ep, "t1", "ann", "default", "finished", "2026-01-01T00:00:00.000Z")
		for i := 0; i <= n; i++ {
			exec(`INSERT INTO steps(episode_id, idx, action_json, op, created_at) VALUES(?,?,?,?,?)`, ep, i, fmt.Sprintf(`{"op":"click","x":%d,"y":1}`, i), "click", "2026-01-01T00:00:00.000Z")
		}
	}
	c, w, u := dataset.StepCorrect, dataset.StepWrong, dataset.StepUnnecessary
	for _, r := range []dataset.Review{
		{EpisodeID: "e1", Reviewer: "rita", Outcome: "success", StepLabels: map[int]string{1: c, 2: c, 3: c, 4: w}},
		{EpisodeID: "e1", Reviewer: "sam", Outcome: "success", StepLabels: map[int]string{1: c, 2: c, 3: w, 4: w}},
		{EpisodeID: "e2", Reviewer: "rita", Outcome: "success", StepLabels: map[int]string{1: w, 2: u, 3: c}},
		{EpisodeID: "e2", Reviewer: "sam", Outcome: "success", StepLabels: map[int]string{1: w, 2: u}},
	} {
		if _, err := s.SaveReview(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	var out, errb bytes.Buffer
	if code := Main([]string{"--db", db, "review", "stats"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	t.Log("\n" + got)
	i := strings.Index(got, "Agreement on step labels")
	if i < 0 {
		t.Fatal("no step agreement in the output")
	}
	part := got[i:]
	for _, want := range []string{
		"steps labelled by 2 or more reviewers: 6",
		"83% agreement over 6 pairwise comparisons; Cohen's kappa 0.74",
	} {
		if !strings.Contains(part, want) {
			t.Errorf("step agreement lacks %q", want)
		}
	}
	var pair string
	for _, line := range strings.Split(part, "\n") {
		if strings.Contains(line, "rita") {
			pair = strings.Join(strings.Fields(line), " ")
			break
		}
	}
	if pair != "rita sam 6 5 83% 0.74" {
		t.Errorf("pair row %q", pair)
	}
}
