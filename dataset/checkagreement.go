package dataset

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// How well the automatic checks agree with people.
//
// An episode counts when its task's check gave it a result (its automatic
// reward) and people gave it an outcome: the settling label where reviewers
// disagreed, else the outcome the current reviews agree on; an unsettled
// conflict has no outcome and does not count. The check passed when the
// reward is 1 (as the Review player shows it); people said yes when the
// outcome is success, no for failure and not executable. An episode labelled
// invalid task is left out: its task, not the attempt, was wrong, so there is
// nothing for the check to agree with.
//
// Taking people's "success" as the truth, precision is the share of passed
// checks that people call a success, recall the share of successes the check
// passed. Cohen's kappa corrects the raw agreement for chance from the two
// raters' own rates; when nearly every episode is a success the chance
// agreement is near 1 and kappa collapses towards 0 (or is undefined) even
// when check and people almost always agree. Gwet's AC1, whose chance
// agreement is 2π(1−π) for the mean yes-rate π, stays near the raw agreement
// there, so both are given.

// CheckItem is one episode as the agreement sees it.
type CheckItem struct {
	TaskID, Goal, Category string
	// Passed is the check's verdict, Success the people's.
	Passed, Success bool
}

// CheckFigures are the agreement figures of a set of episodes. The
// proportions are NaN where undefined (no episode, a denominator of 0, or
// chance agreement of 1).
type CheckFigures struct {
	// N episodes: TP checks passed and people said success, FP passed but
	// not success, FN failed but success, TN failed and not success.
	N, TP, FP, FN, TN int
	// Agreement is (TP+TN)/N.
	Agreement, Precision, Recall, Kappa, AC1 float64
}

// Disagree is the number of episodes where check and people differ.
func (f CheckFigures) Disagree() int { return f.FP + f.FN }

// TaskCheckFigures are one task's figures.
type TaskCheckFigures struct {
	TaskID, Goal, Category string
	CheckFigures
}

// CheckAgreement is the automatic checks' agreement with people, overall,
// per category (dataset.Categories order; categories without episodes are
// left out) and per task (the tasks whose check disagrees most first).
type CheckAgreement struct {
	Overall    CheckFigures
	ByCategory map[string]CheckFigures
	ByTask     []TaskCheckFigures
	// Skipped counts the episodes with a check result and an outcome left
	// out because the outcome is invalid_task.
	Skipped int
}

// Disagreeing returns up to n tasks whose check disagreed with people at
// least once, the highest share of disagreement first (then the most
// episodes): candidates for a broken check.
func (c CheckAgreement) Disagreeing(n int) []TaskCheckFigures {
	var out []TaskCheckFigures
	for _, t := range c.ByTask {
		if t.Disagree() > 0 && len(out) < n {
			out = append(out, t)
		}
	}
	return out
}

// ComputeCheckFigures computes the figures of items.
func ComputeCheckFigures(items []CheckItem) CheckFigures {
	var f CheckFigures
	for _, it := range items {
		switch {
		case it.Passed && it.Success:
			f.TP++
		case it.Passed:
			f.FP++
		case it.Success:
			f.FN++
		default:
			f.TN++
		}
	}
	f.N = len(items)
	ratio := func(a, b int) float64 {
		if b == 0 {
			return math.NaN()
		}
		return float64(a) / float64(b)
	}
	f.Agreement = ratio(f.TP+f.TN, f.N)
	f.Precision = ratio(f.TP, f.TP+f.FP)
	f.Recall = ratio(f.TP, f.TP+f.FN)
	f.Kappa, f.AC1 = math.NaN(), math.NaN()
	if f.N == 0 {
		return f
	}
	n := float64(f.N)
	check := float64(f.TP+f.FP) / n  // the check's yes-rate
	people := float64(f.TP+f.FN) / n // the people's yes-rate
	if pe := check*people + (1-check)*(1-people); pe < 1-1e-12 {
		f.Kappa = (f.Agreement - pe) / (1 - pe)
	}
	pi := (check + people) / 2
	if pe := 2 * pi * (1 - pi); pe < 1-1e-12 {
		f.AC1 = (f.Agreement - pe) / (1 - pe)
	}
	return f
}

// ComputeCheckAgreement computes the figures overall, per category and per
// task.
func ComputeCheckAgreement(items []CheckItem) CheckAgreement {
	c := CheckAgreement{Overall: ComputeCheckFigures(items), ByCategory: map[string]CheckFigures{}}
	byCat := map[string][]CheckItem{}
	byTask := map[string][]CheckItem{}
	for _, it := range items {
		byCat[it.Category] = append(byCat[it.Category], it)
		byTask[it.TaskID] = append(byTask[it.TaskID], it)
	}
	for cat, list := range byCat {
		c.ByCategory[cat] = ComputeCheckFigures(list)
	}
	for id, list := range byTask {
		c.ByTask = append(c.ByTask, TaskCheckFigures{TaskID: id, Goal: list[0].Goal, Category: list[0].Category, CheckFigures: ComputeCheckFigures(list)})
	}
	sort.Slice(c.ByTask, func(i, j int) bool {
		a, b := c.ByTask[i], c.ByTask[j]
		ra, rb := float64(a.Disagree())/float64(a.N), float64(b.Disagree())/float64(b.N)
		if ra != rb {
			return ra > rb
		}
		if a.N != b.N {
			return a.N > b.N
		}
		return a.TaskID < b.TaskID
	})
	return c
}

// CheckAgreement computes the automatic checks' agreement with people over
// the reviewable episodes (see above).
func (s *Store) CheckAgreement(ctx context.Context) (CheckAgreement, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.goal, t.category, e.auto_reward, o.outcome
		FROM episodes e JOIN tasks t ON t.id = e.task_id JOIN episode_outcomes o ON o.episode_id = e.id
		WHERE e.status IN `+reviewableStatuses+` AND e.auto_reward IS NOT NULL AND o.outcome IS NOT NULL
		ORDER BY e.started_at, e.id`)
	if err != nil {
		return CheckAgreement{}, fmt.Errorf("check agreement: %w", err)
	}
	defer rows.Close()
	var items []CheckItem
	skipped := 0
	for rows.Next() {
		var it CheckItem
		var reward float64
		var outcome Outcome
		if err := rows.Scan(&it.TaskID, &it.Goal, &it.Category, &reward, &outcome); err != nil {
			return CheckAgreement{}, err
		}
		if outcome == OutcomeInvalidTask {
			skipped++
			continue
		}
		it.Passed, it.Success = reward >= 1, outcome == OutcomeSuccess
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return CheckAgreement{}, err
	}
	c := ComputeCheckAgreement(items)
	c.Skipped = skipped
	return c, nil
}
