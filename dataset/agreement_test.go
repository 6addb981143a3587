package dataset

import (
	"math"
	"testing"
	"time"
)

func rvNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// rvCohenTable expands a 2×2 contingency table into two label lists.
func rvCohenTable(yy, yn, ny, nn int) (a, b []string) {
	add := func(n int, x, y string) {
		for range n {
			a = append(a, x)
			b = append(b, y)
		}
	}
	add(yy, "yes", "yes")
	add(yn, "yes", "no")
	add(ny, "no", "yes")
	add(nn, "no", "no")
	return
}

func TestCohenKappaTextbook(t *testing.T) {
	cases := []struct {
		name           string
		yy, yn, ny, nn int
		po, kappa      float64
	}{
		// Wikipedia, "Cohen's kappa", simple example: p_o = 0.7, p_e = 0.5.
		{"wikipedia", 20, 5, 10, 15, 0.7, 0.4},
		// Wikipedia's "same agreement, different kappa" tables.
		{"wikipedia balanced", 45, 15, 25, 15, 0.6, 0.13043478260869565},
		{"wikipedia unbalanced", 25, 35, 5, 35, 0.6, 0.25925925925925924},
		{"perfect", 30, 0, 0, 20, 1, 1},
		// Independent raters: agreement equals chance, kappa 0.
		{"chance", 25, 25, 25, 25, 0.5, 0},
		// Total disagreement on a balanced table: kappa −1.
		{"opposite", 0, 10, 10, 0, 0, -1},
	}
	for _, c := range cases {
		a, b := rvCohenTable(c.yy, c.yn, c.ny, c.nn)
		po, k := CohenKappa(a, b)
		if !rvNear(po, c.po) || !rvNear(k, c.kappa) {
			t.Errorf("%s: p_o %.6f kappa %.6f, want %.6f %.6f", c.name, po, k, c.po, c.kappa)
		}
	}
	if _, k := CohenKappa([]string{"a", "a"}, []string{"a", "a"}); !math.IsNaN(k) {
		t.Errorf("kappa with one category everywhere = %v, want NaN (undefined)", k)
	}
}

func TestFleissKappaTextbook(t *testing.T) {
	// Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters,
	// 5 categories; κ = 0.210.
	table := [][5]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	var items [][]string
	for _, row := range table {
		var labels []string
		for j, n := range row {
			for range n {
				labels = append(labels, string(rune('1'+j)))
			}
		}
		items = append(items, labels)
	}
	if k := FleissKappa(items); math.Abs(k-0.20993) > 1e-4 {
		t.Errorf("Fleiss kappa = %.5f, want 0.20993", k)
	}
}

// TestAgreementFromStore stores the Wikipedia example as 50 episodes labelled
// by two reviewers, plus a third reviewer who agrees perfectly with the first
// on 10 of them, and checks the figures the store computes.
func TestAgreementFromStore(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Is the shop open on Sunday?", Information)
	a, b := rvCohenTable(20, 5, 10, 15)
	out := map[string]Outcome{"yes": OutcomeSuccess, "no": OutcomeFailure}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var eps []string
	for i := range a {
		ep := rvEpisode(t, s, task, "ann", StatusFinished, 1, start.Add(time.Duration(i)*time.Minute))
		eps = append(eps, ep)
		for _, rv := range []struct{ who, lab string }{{"alice", a[i]}, {"bob", b[i]}} {
			r := Review{EpisodeID: ep, Reviewer: rv.who, Outcome: out[rv.lab]}
			if r.Outcome == OutcomeFailure {
				r.FailureStep, r.FailureType = rvIP(1), "other"
			}
			rvSave(t, s, r)
		}
	}
	// carol agrees with alice on the first 10 (all "yes").
	for _, ep := range eps[:10] {
		rvSave(t, s, Review{EpisodeID: ep, Reviewer: "carol", Outcome: OutcomeSuccess})
	}
	// A settling label must not count as a judgement.
	if _, err := s.Settle(t.Context(), Review{EpisodeID: eps[20], Reviewer: "dave", Outcome: OutcomeSuccess}); err != nil {
		t.Fatal(err)
	}
	// An episode with a single review is not compared.
	lone := rvEpisode(t, s, task, "ann", StatusFinished, 1, start)
	rvSave(t, s, Review{EpisodeID: lone, Reviewer: "alice", Outcome: OutcomeSuccess})

	ag, err := s.Agreement(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if ag.Episodes != 50 || len(ag.Pairs) != 3 {
		t.Fatalf("episodes %d pairs %d, want 50 and 3: %+v", ag.Episodes, len(ag.Pairs), ag)
	}
	ab := ag.Pairs[0]
	if ab.A != "alice" || ab.B != "bob" || ab.N != 50 || ab.Agree != 35 || !rvNear(ab.PercentAgreement, 0.7) || !rvNear(ab.Kappa, 0.4) {
		t.Errorf("alice–bob = %+v, want n 50, p_o 0.7, kappa 0.4", ab)
	}
	ac := ag.Pairs[1]
	if ac.A != "alice" || ac.B != "carol" || ac.N != 10 || !rvNear(ac.PercentAgreement, 1) || !math.IsNaN(ac.Kappa) {
		t.Errorf("alice–carol = %+v, want n 10, p_o 1, kappa undefined (one outcome only)", ac)
	}
	bc := ag.Pairs[2]
	if bc.B != "carol" || bc.N != 10 || bc.Agree != 10 {
		t.Errorf("bob–carol = %+v", bc)
	}
	if ag.Comparisons != 70 || !rvNear(ag.PercentAgreement, 55.0/70) {
		t.Errorf("overall: %d comparisons, p_o %.4f; want 70 and %.4f", ag.Comparisons, ag.PercentAgreement, 55.0/70)
	}
	// Only alice–bob has a defined kappa; bob–carol all "yes" for both also
	// undefined, so the weighted mean is alice–bob's.
	if !rvNear(ag.Kappa, 0.4) {
		t.Errorf("overall kappa = %v, want 0.4", ag.Kappa)
	}
	// Fleiss by hand: 50 items; 35 unanimous (10 with carol's third "yes"),
	// 15 split, so P̄ = 35/50. Labels: success 10·3 + 10·2 + 5 + 10 = 65,
	// failure 5 + 10 + 15·2 = 45 of 110, so P_e = (65² + 45²)/110² =
	// 6250/12100 and κ = (8470 − 6250)/(12100 − 6250) = 74/195.
	if !rvNear(ag.FleissKappa, 74.0/195) {
		t.Errorf("Fleiss kappa = %v, want 74/195 = %.6f", ag.FleissKappa, 74.0/195)
	}

	st, err := s.ReviewStats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// 35 agreed (20 success, 15 failure), 15 in conflict of which one settled
	// as success; the lone episode is a success.
	if st.Episodes != 51 || st.ByOutcome[string(OutcomeSuccess)] != 22 || st.ByOutcome[string(OutcomeFailure)] != 15 || st.ByOutcome[StatConflict] != 14 || st.Settled != 1 {
		t.Errorf("stats = %+v", st)
	}
	if st.ByCategory[Information][string(OutcomeSuccess)] != 22 {
		t.Errorf("by category = %v", st.ByCategory)
	}
}
