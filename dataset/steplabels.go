package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Per-step correctness: a reviewer marks each action step correct, wrong or
// unnecessary. The marks are part of the review (Review.StepLabels), stored
// in step_labels beside the review row, so they are saved, replaced, kept
// in the history and merged with it. The export takes each step's settled
// label (SettledStepLabels); agreement between reviewers is measured per
// step (StepAgreement) as it is per episode.

// Step labels a reviewer may give an action step.
const (
	StepCorrect     = "correct"
	StepWrong       = "wrong"
	StepUnnecessary = "unnecessary"
)

// StepLabelNames lists the step labels in their canonical order.
var StepLabelNames = []string{StepCorrect, StepWrong, StepUnnecessary}

func validateStepLabels(labels map[int]string) error {
	for k, l := range labels {
		if k < 1 {
			return fmt.Errorf("step label on step %d: only action steps (1 and later) can be labelled", k)
		}
		if !slices.Contains(StepLabelNames, l) {
			return fmt.Errorf("unknown step label %q on step %d: use %s", l, k, strings.Join(StepLabelNames, ", "))
		}
	}
	return nil
}

// insertStepLabels stores a new review row's step labels.
func insertStepLabels(ctx context.Context, tx *sql.Tx, reviewID string, labels map[int]string) error {
	steps := make([]int, 0, len(labels))
	for k := range labels {
		steps = append(steps, k)
	}
	sort.Ints(steps)
	for _, k := range steps {
		if _, err := tx.ExecContext(ctx, `INSERT INTO step_labels (review_id, step_idx, label) VALUES (?,?,?)`, reviewID, k, labels[k]); err != nil {
			return fmt.Errorf("save step labels: %w", err)
		}
	}
	return nil
}

// attachStepLabels fills the StepLabels of reviews read from the store
// (an empty map for a review that labelled no step).
func (s *Store) attachStepLabels(ctx context.Context, recs []ReviewRecord) error {
	for i := range recs {
		recs[i].StepLabels = map[int]string{}
		rows, err := s.db.QueryContext(ctx, `SELECT step_idx, label FROM step_labels WHERE review_id=?`, recs[i].ID)
		if err != nil {
			return fmt.Errorf("read step labels: %w", err)
		}
		for rows.Next() {
			var k int
			var l string
			if err := rows.Scan(&k, &l); err != nil {
				rows.Close()
				return err
			}
			recs[i].StepLabels[k] = l
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// SettledStepLabels returns the label each step of an episode has in the
// export, by recorded step index: the current settling label's mark when it
// marked the step, else the mark every current review that marked it
// agrees on. Steps nobody marked, and steps whose marks disagree without a
// settling mark, are not in the map.
func (s *Store) SettledStepLabels(ctx context.Context, episodeID string) (map[int]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT step_idx, label FROM step_label_outcomes WHERE episode_id=? AND label IS NOT NULL`, episodeID)
	if err != nil {
		return nil, fmt.Errorf("read the step labels of episode %s: %w", episodeID, err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var k int
		var l string
		if err := rows.Scan(&k, &l); err != nil {
			return nil, err
		}
		out[k] = l
	}
	return out, rows.Err()
}

// StepAgreement is the reviewers' agreement on step labels, computed as
// Agreement is for outcomes with each step an item: only current,
// non-settling reviews of reviewable episodes count, and a pair of
// reviewers is compared on the steps both of them labelled. Its Episodes
// field counts those steps (steps with two labels or more).
func (s *Store) StepAgreement(ctx context.Context) (Agreement, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT r.episode_id, l.step_idx, r.reviewer, l.label
		FROM current_reviews r JOIN step_labels l ON l.review_id = r.id
		JOIN episodes e ON e.id = r.episode_id
		WHERE r.settles = 0 AND e.status IN `+reviewableStatuses+`
		ORDER BY r.episode_id, l.step_idx, r.reviewer`)
	if err != nil {
		return Agreement{}, fmt.Errorf("step agreement: %w", err)
	}
	defer rows.Close()
	var items []map[string]string
	lastEp, lastStep := "", -1
	for rows.Next() {
		var ep, rev, label string
		var k int
		if err := rows.Scan(&ep, &k, &rev, &label); err != nil {
			return Agreement{}, err
		}
		if ep != lastEp || k != lastStep {
			items = append(items, map[string]string{})
			lastEp, lastStep = ep, k
		}
		items[len(items)-1][rev] = label
	}
	if err := rows.Err(); err != nil {
		return Agreement{}, err
	}
	return ComputeAgreement(items), nil
}
