package dataset

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Agreement between reviewers on the outcome of episodes.
//
// Only current, non-settling reviews count (a settling label is a decision,
// not an independent judgement), and only episodes with two or more of them.
//
//   - Per pair of reviewers: the episodes both reviewed; percent agreement
//     p_o and Cohen's kappa κ = (p_o − p_e)/(1 − p_e), where p_e is the
//     chance agreement from each reviewer's own outcome frequencies.
//   - Overall: percent agreement over all pairwise comparisons, and the
//     average of the pairs' kappas weighted by the episodes they share
//     (pairs whose kappa is undefined are left out of that average). Fleiss'
//     kappa over all episodes (with the usual extension to a varying number of
//     reviewers per episode) is given as well.
//
// Kappa is undefined (NaN) when chance agreement is 1, i.e. both reviewers
// used one and the same outcome for every shared episode.
type Agreement struct {
	// Episodes is the number of episodes with ≥ 2 current reviews.
	Episodes int
	// Reviewers lists the reviewers of those episodes.
	Reviewers []string
	Pairs     []PairAgreement
	// Comparisons is the number of pairwise comparisons (sum of Pairs' N).
	Comparisons int
	// PercentAgreement is in [0,1] (NaN when there is nothing to compare).
	PercentAgreement float64
	// Kappa is the shared-item-weighted mean of the pairs' Cohen's kappas.
	Kappa float64
	// FleissKappa is Fleiss' kappa over the episodes.
	FleissKappa float64
}

// PairAgreement is the agreement of two reviewers (A < B).
type PairAgreement struct {
	A, B string
	// N is the number of episodes both reviewed; Agree of them got the same
	// outcome.
	N, Agree int
	// PercentAgreement is Agree/N; Kappa is Cohen's kappa (NaN if undefined).
	PercentAgreement float64
	Kappa            float64
}

// CohenKappa returns the observed agreement p_o and Cohen's kappa of two
// raters' labels of the same items (a[i] and b[i] label item i). Kappa is NaN
// when the expected agreement is 1; both are NaN for no items.
func CohenKappa(a, b []string) (po, kappa float64) {
	n := min(len(a), len(b))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	ca, cb := map[string]int{}, map[string]int{}
	agree := 0
	for i := range n {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po = float64(agree) / float64(n)
	pe := 0.0
	for k, v := range ca {
		pe += float64(v) / float64(n) * float64(cb[k]) / float64(n)
	}
	if pe >= 1-1e-12 {
		return po, math.NaN()
	}
	return po, (po - pe) / (1 - pe)
}

// FleissKappa returns Fleiss' kappa for items rated by a varying number (≥ 2)
// of raters: items[i] holds the labels item i got. Items with fewer than two
// labels are skipped. NaN when undefined (no items, or every label the same).
func FleissKappa(items [][]string) float64 {
	var sumP, total float64
	counts := map[string]float64{}
	n := 0
	for _, labels := range items {
		m := len(labels)
		if m < 2 {
			continue
		}
		c := map[string]int{}
		for _, l := range labels {
			c[l]++
			counts[l]++
		}
		total += float64(m)
		s := 0
		for _, v := range c {
			s += v * (v - 1)
		}
		sumP += float64(s) / float64(m*(m-1))
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	pbar := sumP / float64(n)
	pe := 0.0
	for _, v := range counts {
		p := v / total
		pe += p * p
	}
	if pe >= 1-1e-12 {
		return math.NaN()
	}
	return (pbar - pe) / (1 - pe)
}

// Agreement computes the reviewers' agreement on outcomes over all
// reviewable episodes (see the Agreement type for the method).
func (s *Store) Agreement(ctx context.Context) (Agreement, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.episode_id, r.reviewer, r.outcome FROM current_reviews r
		JOIN episodes e ON e.id = r.episode_id
		WHERE r.settles = 0 AND e.status IN `+reviewableStatuses+`
		ORDER BY r.episode_id, r.reviewer`)
	if err != nil {
		return Agreement{}, fmt.Errorf("agreement: %w", err)
	}
	defer rows.Close()
	byEp := map[string]map[string]string{}
	var order []string
	for rows.Next() {
		var ep, rev, out string
		if err := rows.Scan(&ep, &rev, &out); err != nil {
			return Agreement{}, err
		}
		if byEp[ep] == nil {
			byEp[ep] = map[string]string{}
			order = append(order, ep)
		}
		byEp[ep][rev] = out
	}
	if err := rows.Err(); err != nil {
		return Agreement{}, err
	}
	eps := make([]map[string]string, 0, len(order))
	for _, ep := range order {
		eps = append(eps, byEp[ep])
	}
	return ComputeAgreement(eps), nil
}

// ComputeAgreement computes agreement from labels: each element maps a
// reviewer to the outcome they gave one episode. Episodes with fewer than
// two labels are skipped.
func ComputeAgreement(episodes []map[string]string) Agreement {
	type pairData struct{ a, b []string }
	pairs := map[[2]string]*pairData{}
	revs := map[string]bool{}
	var items [][]string
	ag := Agreement{}
	for _, labels := range episodes {
		if len(labels) < 2 {
			continue
		}
		ag.Episodes++
		names := make([]string, 0, len(labels))
		for r := range labels {
			names = append(names, r)
			revs[r] = true
		}
		sort.Strings(names)
		var item []string
		for i, a := range names {
			item = append(item, labels[a])
			for _, b := range names[i+1:] {
				k := [2]string{a, b}
				p := pairs[k]
				if p == nil {
					p = &pairData{}
					pairs[k] = p
				}
				p.a = append(p.a, labels[a])
				p.b = append(p.b, labels[b])
			}
		}
		items = append(items, item)
	}
	for r := range revs {
		ag.Reviewers = append(ag.Reviewers, r)
	}
	sort.Strings(ag.Reviewers)
	agreeAll := 0
	var kSum, kW float64
	for k, p := range pairs {
		pa := PairAgreement{A: k[0], B: k[1], N: len(p.a)}
		for i := range p.a {
			if p.a[i] == p.b[i] {
				pa.Agree++
			}
		}
		pa.PercentAgreement, pa.Kappa = CohenKappa(p.a, p.b)
		ag.Pairs = append(ag.Pairs, pa)
		ag.Comparisons += pa.N
		agreeAll += pa.Agree
		if !math.IsNaN(pa.Kappa) {
			kSum += pa.Kappa * float64(pa.N)
			kW += float64(pa.N)
		}
	}
	slices.SortFunc(ag.Pairs, func(x, y PairAgreement) int {
		if x.A != y.A {
			if x.A < y.A {
				return -1
			}
			return 1
		}
		if x.B < y.B {
			return -1
		} else if x.B > y.B {
			return 1
		}
		return 0
	})
	ag.PercentAgreement, ag.Kappa = math.NaN(), math.NaN()
	if ag.Comparisons > 0 {
		ag.PercentAgreement = float64(agreeAll) / float64(ag.Comparisons)
	}
	if kW > 0 {
		ag.Kappa = kSum / kW
	}
	ag.FleissKappa = FleissKappa(items)
	return ag
}

// FormatFigure prints an agreement figure with two decimals, or "n/a" when
// it is undefined.
func FormatFigure(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	if math.Abs(v) < 0.005 {
		v = 0 // not "-0.00"
	}
	return fmt.Sprintf("%.2f", v)
}

// FormatPercent prints a proportion as a percentage, or "n/a".
func FormatPercent(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", v*100)
}

// ReviewStats counts reviewable episodes by outcome and category.
type ReviewStats struct {
	// Episodes is the number of reviewable (finished or interrupted) episodes.
	Episodes int
	// ByOutcome counts episodes per outcome (as the export sees it) plus
	// "conflict" (reviews disagree, not settled) and "unreviewed".
	ByOutcome map[string]int
	// ByCategory[category][outcome] is the same, split by task category.
	ByCategory map[string]map[string]int
	// Reviews is the number of current non-settling reviews; Settled the
	// number of settled episodes.
	Reviews, Settled int
}

// Stat keys besides the outcomes.
const (
	StatConflict   = "conflict"
	StatUnreviewed = "unreviewed"
)

// ReviewStats counts outcomes of reviewable episodes per category.
func (s *Store) ReviewStats(ctx context.Context) (ReviewStats, error) {
	items, err := s.queueAll(ctx, QueueFilter{})
	if err != nil {
		return ReviewStats{}, err
	}
	st := ReviewStats{ByOutcome: map[string]int{}, ByCategory: map[string]map[string]int{}}
	for _, it := range items {
		st.Episodes++
		st.Reviews += it.NumReviews
		if it.Settled {
			st.Settled++
		}
		key := string(it.Outcome)
		switch {
		case key != "":
		case it.NumReviews == 0:
			key = StatUnreviewed
		default:
			key = StatConflict
		}
		st.ByOutcome[key]++
		if st.ByCategory[it.Category] == nil {
			st.ByCategory[it.Category] = map[string]int{}
		}
		st.ByCategory[it.Category][key]++
	}
	return st, nil
}
