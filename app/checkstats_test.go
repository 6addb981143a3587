package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/dataset/storetest"
)

// review stats reports the automatic checks' agreement with people per
// category and overall, and names the task whose check disagrees.
func TestReviewStatsCheckAgreement(t *testing.T) {
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
	const now = "2026-01-01T00:00:00.000Z"
	exec(`INSERT INTO tasks(id, goal, category, start_url, check_json, created_at, updated_at) VALUES('t1','Find the price','information','http://127.0.0.1/','{"kind":"answer","answer":"4"}',?,?)`, now, now)
	exec(`INSERT INTO tasks(id, goal, category, start_url, check_json, created_at, updated_at) VALUES('t2','Open the cart','navigation','http://127.0.0.1/cart','{"kind":"url","url":"/cart$"}',?,?)`, now, now)
	// t1: the check agrees on 4 episodes; t2: it passes 2 of 3 failures.
	eps := []struct {
		task    string
		reward  float64
		outcome dataset.Outcome
	}{{"t1", 1, "success"}, {"t1", 1, "success"}, {"t1", 0, "failure"}, {"t1", 1, "success"}, {"t2", 1, "failure"}, {"t2", 1, "failure"}, {"t2", 0, "failure"}}
	for i, e := range eps {
		id := fmt.Sprintf("e%d", i)
		exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, auto_reward, started_at) VALUES(?,?,?,?,?,?,?)`, id, e.task, "ann", "default", "finished", e.reward, now)
		r := dataset.Review{EpisodeID: id, Reviewer: "rita", Outcome: e.outcome}
		if e.outcome == dataset.OutcomeFailure {
			r.FailureStep, r.FailureType = new(int), "other"
		}
		if _, err := s.SaveReview(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	code, out, errb := runMain("--db", db, "review", "stats")
	t.Log("\n" + out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	lines := strings.Split(out, "\n")
	row := func(name string) []string {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == 11 && f[0] == name {
				return f
			}
		}
		t.Fatalf("no row %q in\n%s", name, out)
		return nil
	}
	// category, episodes, TP, FP, FN, TN, agreement, precision, recall, kappa, AC1
	if got := strings.Join(row("information"), " "); got != "information 4 3 0 0 1 100% 1.00 1.00 1.00 1.00" {
		t.Errorf("information row %q", got)
	}
	if got := strings.Join(row("navigation"), " "); got != "navigation 3 0 2 0 1 33% 0.00 n/a 0.00 -0.20" {
		t.Errorf("navigation row %q", got)
	}
	if got := strings.Join(row("all"), " "); got != "all 7 3 2 0 2 71% 0.60 1.00 0.46 0.44" {
		t.Errorf("overall row %q", got)
	}
	if !strings.Contains(out, `2 of 3 disagree (passed 2 not successful, failed 0 successful)  t2  "Open the cart" [navigation]`) {
		t.Errorf("the disagreeing task is not named")
	}
	if strings.Contains(out, "  t1  ") {
		t.Errorf("the agreeing task is listed as disagreeing")
	}
}
