package hfexport

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"waymark/dataset"
)

// episodeInfo is what the exporter knows of an episode before reading its
// steps (no screenshots).
type episodeInfo struct {
	ID, TaskID, Goal, Category, StartURL string
	Annotator, ActionSet                 string
	EndReason, FinalAnswer, FinalURL     string
	AutoReward                           sql.NullFloat64
	NumSteps                             int64
	StartedAt                            string
	EndedAt                              sql.NullString
	Outcome                              sql.NullString
	NumReviews                           int64
	FailureStep                          sql.NullInt64
	FailureType                          string
	Conflict                             bool
	StepRows                             int64 // steps with idx ≥ 1 actually stored
	split                                string
}

// splitOf assigns a task to train or test by a hash of its id, so a task's
// episodes never straddle the splits and a task keeps its split as the store
// grows.
func splitOf(taskID string, testFraction float64) string {
	sum := sha256.Sum256([]byte("waymark-split\x00" + taskID))
	u := binary.BigEndian.Uint64(sum[:8]) >> 11 // 53 bits
	if float64(u)/float64(uint64(1)<<53) < testFraction {
		return "test"
	}
	return "train"
}

func inList(col string, vals []string, args *[]any) string {
	ph := make([]string, len(vals))
	for i, v := range vals {
		ph[i] = "?"
		*args = append(*args, v)
	}
	return col + " IN (" + strings.Join(ph, ",") + ")"
}

// selectEpisodes returns the episodes the options choose, ordered by split
// (train first) then episode id.
func selectEpisodes(ctx context.Context, db *sql.DB, o *Options) ([]*episodeInfo, error) {
	var where []string
	var args []any
	where = append(where, "e.status = 'finished'")
	if len(o.Categories) > 0 {
		where = append(where, inList("t.category", o.Categories, &args))
	}
	if len(o.Annotators) > 0 {
		where = append(where, inList("e.annotator", o.Annotators, &args))
	}
	outcome := "o.outcome IS NOT NULL"
	if len(o.Outcomes) > 0 {
		outcome = inList("o.outcome", o.Outcomes, &args)
	}
	if o.IncludeUnreviewed {
		outcome = "(" + outcome + " OR o.outcome IS NULL)"
	}
	where = append(where, outcome)
	q := `SELECT e.id, e.task_id, t.goal, t.category, t.start_url, e.annotator, e.action_set,
		e.end_reason, e.final_answer, e.final_url, e.auto_reward, e.num_steps, e.started_at, e.ended_at,
		o.outcome, COALESCE(o.num_reviews, 0), o.failure_step, COALESCE(o.failure_type, ''), COALESCE(o.conflict, 0),
		(SELECT COUNT(*) FROM steps s WHERE s.episode_id = e.id AND s.idx > 0)
		FROM episodes e JOIN tasks t ON t.id = e.task_id
		LEFT JOIN episode_outcomes o ON o.episode_id = e.id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY e.id`
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the episodes to export: %w", err)
	}
	defer rows.Close()
	var out []*episodeInfo
	for rows.Next() {
		e := &episodeInfo{}
		if err := rows.Scan(&e.ID, &e.TaskID, &e.Goal, &e.Category, &e.StartURL, &e.Annotator, &e.ActionSet,
			&e.EndReason, &e.FinalAnswer, &e.FinalURL, &e.AutoReward, &e.NumSteps, &e.StartedAt, &e.EndedAt,
			&e.Outcome, &e.NumReviews, &e.FailureStep, &e.FailureType, &e.Conflict, &e.StepRows); err != nil {
			return nil, fmt.Errorf("reading the episodes to export: %w", err)
		}
		e.split = splitOf(e.TaskID, o.TestFraction)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the episodes to export: %w", err)
	}
	slices.SortStableFunc(out, func(a, b *episodeInfo) int {
		if a.split != b.split {
			return strings.Compare(b.split, a.split) // "train" before "test"
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// explainNothing says why no episode matched, with counts that point at the
// filter to loosen.
func explainNothing(ctx context.Context, db *sql.DB, o *Options) string {
	var finished, reviewed, conflicts int
	_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE status='finished'`).Scan(&finished)
	_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes e JOIN episode_outcomes o ON o.episode_id=e.id
		WHERE e.status='finished' AND o.outcome IS NOT NULL`).Scan(&reviewed)
	_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes e JOIN episode_outcomes o ON o.episode_id=e.id
		WHERE e.status='finished' AND o.outcome IS NULL`).Scan(&conflicts)
	var b strings.Builder
	fmt.Fprintf(&b, "the store has %d finished episodes, %d with an outcome", finished, reviewed)
	if conflicts > 0 {
		fmt.Fprintf(&b, " and %d whose reviews disagree", conflicts)
	}
	var filters []string
	if len(o.Categories) > 0 {
		filters = append(filters, "category "+strings.Join(o.Categories, "/"))
	}
	if len(o.Outcomes) > 0 {
		filters = append(filters, "outcome "+strings.Join(o.Outcomes, "/"))
	}
	if len(o.Annotators) > 0 {
		filters = append(filters, "annotator "+strings.Join(o.Annotators, "/"))
	}
	if len(filters) > 0 {
		fmt.Fprintf(&b, "; none of them matches %s", strings.Join(filters, ", "))
	}
	var interrupted int
	_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE status='interrupted'`).Scan(&interrupted)
	if interrupted > 0 {
		fmt.Fprintf(&b, " (%d interrupted episodes are never exported)", interrupted)
	}
	switch {
	case finished == 0:
		b.WriteString("; record and finish some episodes first")
	case !o.IncludeUnreviewed && reviewed < finished:
		b.WriteString("; review episodes first, or include unreviewed ones (--include-unreviewed)")
	case len(filters) > 0:
		b.WriteString("; loosen the filters")
	}
	return b.String()
}

// validate checks the options' names against the store's vocabularies.
func (o *Options) validate() error {
	for _, c := range o.Categories {
		if !slices.Contains(dataset.Categories, c) {
			return fmt.Errorf("%w: unknown category %q (choose from %s)", ErrBadOptions, c, strings.Join(dataset.Categories, ", "))
		}
	}
	for _, c := range o.Outcomes {
		if !slices.Contains(dataset.Outcomes, c) {
			return fmt.Errorf("%w: unknown outcome %q (choose from %s)", ErrBadOptions, c, strings.Join(dataset.Outcomes, ", "))
		}
	}
	if o.TestFraction < 0 || o.TestFraction > 1 || o.TestFraction != o.TestFraction {
		return fmt.Errorf("%w: test fraction %v is not between 0 and 1 (0.1 puts about a tenth of the tasks in the test split)", ErrBadOptions, o.TestFraction)
	}
	if err := CheckLicense(o.License); err != nil {
		return err
	}
	if o.License != strings.ToLower(strings.TrimSpace(o.License)) { // Export normalises it first
		return fmt.Errorf("%w: %q is not a Hugging Face licence id (lower-case, like cc-by-4.0, mit, apache-2.0, or \"other\")", ErrBadOptions, o.License)
	}
	if strings.TrimSpace(o.Out) == "" {
		return fmt.Errorf("%w: choose an output folder", ErrBadOptions)
	}
	return nil
}
