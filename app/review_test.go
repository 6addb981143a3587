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

func TestReviewStatsCommand(t *testing.T) {
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
	labels := [][2]dataset.Outcome{{"success", "success"}, {"success", "failure"}, {"failure", "failure"}, {"success", ""}}
	for i, l := range labels {
		ep := fmt.Sprintf("e%d", i)
		exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, started_at) VALUES(?,?,?,?,?,?)`, ep, "t1", "ann", "default", "finished", "2026-01-01T00:00:00.000Z")
		for j, who := range []string{"alice", "bob"} {
			if l[j] == "" {
				continue
			}
			r := dataset.Review{EpisodeID: ep, Reviewer: who, Outcome: l[j]}
			if l[j] == dataset.OutcomeFailure {
				r.FailureStep, r.FailureType = new(int), "gave_up"
			}
			if _, err := s.SaveReview(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, started_at) VALUES('e9','t1','ann','default','finished','2026-01-01T00:00:00.000Z')`)
	s.Close()

	var out, errb bytes.Buffer
	if code := Main([]string{"--db", db, "review", "stats"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	t.Log("\n" + got)
	for _, want := range []string{
		"Reviewable episodes: 5",
		"67% agreement over 3 pairwise comparisons",
		"Cohen's kappa 0.40",
		"alice",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// navigation row: success 2 (one agreed, one single), failure 1, conflict 1, unreviewed 1.
	var nav string
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "navigation") {
			nav = strings.Join(strings.Fields(line), " ")
		}
	}
	if nav != "navigation 2 1 0 0 1 1 5" {
		t.Errorf("navigation row = %q", nav)
	}

	if code := Main([]string{"--db", db, "review"}, nil, &out, &errb); code != 2 {
		t.Errorf("'review' without stats: exit %d, want 2", code)
	}
}
