package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
)

// The reads of programs that walk a whole store (the export) are streams:
// range-over-func iterators that run one query and yield its rows one by
// one, so a caller holds one row (one screenshot) at a time. The query's
// rows are released when the loop ends, however it ends: a break, a
// returned error, or the context's cancellation, which ends the loop with
// ctx.Err(). Until then the stream holds one of the store's connections
// and a read snapshot: the loop body may use the store, but a stream left
// running for long keeps the write-ahead log from being checkpointed.

// stream yields the rows of q read by scan.
func stream[T any](ctx context.Context, db *sql.DB, scan func(*sql.Rows) (T, error), q string, args ...any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if err := ctx.Err(); err != nil {
			yield(zero, err)
			return
		}
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				err = cerr
			}
			yield(zero, err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			v, err := scan(rows)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(v, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				err = cerr
			}
			yield(zero, err)
		}
	}
}

// LabeledEpisode is an ended episode as the export sees it: with its task's
// start URL, its outcome (the episode_outcomes view: the settling label,
// else the outcome every current review agrees on), the review that gave it
// (its reason and step flags) and the number of action steps stored.
type LabeledEpisode struct {
	Episode
	StartURL string
	// Outcome is "" when the episode was never reviewed or its reviews
	// disagree and no settling label exists.
	Outcome Outcome
	// NumReviews counts the current non-settling reviews.
	NumReviews int
	// FailureStep and FailureType are the outcome's, for a failure.
	FailureStep *int
	FailureType string
	// Reason and StepFlags come from the review that gives the outcome: the
	// newest settling label, else the newest of the agreeing reviews (the
	// one the episode_outcomes view takes its failure fields and reason
	// from). StepFlags is nil when there is no outcome, and empty when that
	// review flagged no step.
	Reason    string
	StepFlags map[int][]string
	// Conflict: the current reviews disagree on the outcome (settled or not).
	Conflict bool
	// StepRows counts the stored steps with index ≥ 1, removed ones
	// included (NumSteps counts the kept ones).
	StepRows int
	// ReferenceTime (RFC 3339 with its offset, "" when unset), Timezone
	// and Locale are the task's clock and locale.
	ReferenceTime, Timezone, Locale string
}

// LabelFilter chooses episodes for LabeledEpisodes: finished ones, and
// interrupted ones that have an outcome (a reviewer labelled them). Empty
// lists do not filter.
type LabelFilter struct {
	Categories []string
	Annotators []string
	// Outcomes keeps episodes whose outcome is one of these; empty keeps
	// every episode with an outcome.
	Outcomes []Outcome
	// IncludeUnreviewed adds the finished episodes without an outcome
	// (never reviewed, or reviews that disagree); interrupted episodes
	// without an outcome are never chosen.
	IncludeUnreviewed bool
}

func inList[S ~string](col string, vals []S, args *[]any) string {
	ph := make([]string, len(vals))
	for i, v := range vals {
		ph[i] = "?"
		*args = append(*args, v)
	}
	return col + " IN (" + strings.Join(ph, ",") + ")"
}

// LabeledEpisodes streams the episodes f chooses, by id.
func (s *Store) LabeledEpisodes(ctx context.Context, f LabelFilter) iter.Seq2[LabeledEpisode, error] {
	var where []string
	var args []any
	where = append(where, "(e.status = 'finished' OR (e.status = 'interrupted' AND o.outcome IS NOT NULL))")
	if len(f.Categories) > 0 {
		where = append(where, inList("t.category", f.Categories, &args))
	}
	if len(f.Annotators) > 0 {
		where = append(where, inList("e.annotator", f.Annotators, &args))
	}
	outcome := "o.outcome IS NOT NULL"
	if len(f.Outcomes) > 0 {
		outcome = inList("o.outcome", f.Outcomes, &args)
	}
	if f.IncludeUnreviewed {
		outcome = "(" + outcome + " OR o.outcome IS NULL)"
	}
	where = append(where, outcome)
	q := `SELECT ` + episodeColumns + `, t.start_url,
		COALESCE(o.outcome, ''), COALESCE(o.num_reviews, 0), o.failure_step, COALESCE(o.failure_type, ''), COALESCE(o.conflict, 0),
		(SELECT COUNT(*) FROM steps s WHERE s.episode_id = e.id AND s.idx > 0),
		COALESCE(o.reason, ''), t.reference_time, t.timezone, t.locale,
		CASE WHEN o.outcome IS NOT NULL THEN (SELECT c.step_flags_json FROM current_reviews c
			WHERE c.episode_id = e.id AND c.settles = o.settled ORDER BY c.created_at DESC LIMIT 1) END
		FROM episodes e JOIN tasks t ON t.id = e.task_id` + editsJoin + `
		LEFT JOIN episode_outcomes o ON o.episode_id = e.id
		WHERE ` + strings.Join(where, " AND ") + ` ORDER BY e.id`
	return stream(ctx, s.db, func(rows *sql.Rows) (LabeledEpisode, error) {
		var l LabeledEpisode
		var fs sql.NullInt64
		var flags sql.NullString
		ep, err := scanEpisode(rows, &l.StartURL, &l.Outcome, &l.NumReviews, &fs, &l.FailureType, &l.Conflict, &l.StepRows, &l.Reason, &l.ReferenceTime, &l.Timezone, &l.Locale, &flags)
		if err != nil {
			return LabeledEpisode{}, err
		}
		l.Episode = ep
		l.ReferenceTime = refTimeValue(parseRefTimeColumn(l.ReferenceTime))
		if l.Outcome != "" {
			l.StepFlags = decodeFlags(flags.String)
		}
		if fs.Valid {
			v := int(fs.Int64)
			l.FailureStep = &v
		}
		return l, nil
	}, q, args...)
}

// EpisodeSteps streams all of an episode's steps in order, removed ones
// included (Removed set; see EditedSteps for the edited episode), each with
// its screenshot (nil when none was stored).
func (s *Store) EpisodeSteps(ctx context.Context, episodeID string) iter.Seq2[Step, error] {
	return stream(ctx, s.db, func(rows *sql.Rows) (Step, error) {
		var shot []byte
		st, err := scanStep(rows, episodeID, &shot)
		st.Screenshot = shot
		return st, err
	}, `SELECT `+stepColumns+`, screenshot FROM steps WHERE episode_id=? ORDER BY idx`, episodeID)
}

// AllCurrentReviews streams every review in force (settling labels
// included, Settles true), ordered by episode, then reviewer, then id.
func (s *Store) AllCurrentReviews(ctx context.Context) iter.Seq2[Review, error] {
	return stream(ctx, s.db, func(rows *sql.Rows) (Review, error) {
		r, err := scanReview(rows)
		return r.Review, err
	}, `SELECT `+reviewCols+` FROM current_reviews ORDER BY episode_id, reviewer, id`)
}

// OutcomeCounts counts the store's ended episodes by whether the export can
// give them an outcome.
type OutcomeCounts struct {
	Finished int
	// WithOutcome are finished episodes with an outcome; Conflicts are
	// finished episodes whose reviews disagree, unsettled.
	WithOutcome, Conflicts int
	// Interrupted counts the interrupted episodes; InterruptedWithOutcome
	// those of them with an outcome, the only ones the export takes.
	Interrupted, InterruptedWithOutcome int
}

// CountOutcomes counts the episodes by status and outcome.
func (s *Store) CountOutcomes(ctx context.Context) (OutcomeCounts, error) {
	var c OutcomeCounts
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM episodes WHERE status='finished'),
		(SELECT COUNT(*) FROM episodes e JOIN episode_outcomes o ON o.episode_id=e.id WHERE e.status='finished' AND o.outcome IS NOT NULL),
		(SELECT COUNT(*) FROM episodes e JOIN episode_outcomes o ON o.episode_id=e.id WHERE e.status='finished' AND o.outcome IS NULL),
		(SELECT COUNT(*) FROM episodes WHERE status='interrupted'),
		(SELECT COUNT(*) FROM episodes e JOIN episode_outcomes o ON o.episode_id=e.id WHERE e.status='interrupted' AND o.outcome IS NOT NULL)`).Scan(
		&c.Finished, &c.WithOutcome, &c.Conflicts, &c.Interrupted, &c.InterruptedWithOutcome)
	return c, err
}

// NoneLabeled says why LabeledEpisodes chose no episode with f: what the
// store has, the filters nothing matches, and what to do (record, review,
// include the unreviewed with --include-unreviewed, loosen the filters).
func (s *Store) NoneLabeled(ctx context.Context, f LabelFilter) string {
	c, _ := s.CountOutcomes(ctx)
	var b strings.Builder
	fmt.Fprintf(&b, "the store has %s, %d with an outcome", pluralWord(c.Finished, "finished episode"), c.WithOutcome)
	if c.Conflicts > 0 {
		fmt.Fprintf(&b, " and %d whose reviews disagree", c.Conflicts)
	}
	if c.Interrupted > 0 {
		fmt.Fprintf(&b, ", and %s, %d with an outcome (interrupted episodes without one are never exported)",
			pluralWord(c.Interrupted, "interrupted episode"), c.InterruptedWithOutcome)
	}
	var filters []string
	if len(f.Categories) > 0 {
		filters = append(filters, "category "+strings.Join(f.Categories, "/"))
	}
	if len(f.Outcomes) > 0 {
		filters = append(filters, "outcome "+strings.Join(outcomeNames(f.Outcomes), "/"))
	}
	if len(f.Annotators) > 0 {
		filters = append(filters, "annotator "+strings.Join(f.Annotators, "/"))
	}
	if len(filters) > 0 {
		fmt.Fprintf(&b, "; none of them matches %s", strings.Join(filters, ", "))
	}
	switch {
	case c.Finished == 0 && c.InterruptedWithOutcome == 0:
		b.WriteString("; record and finish some episodes first")
		if c.Interrupted > 0 {
			b.WriteString(", or review the interrupted ones")
		}
	case !f.IncludeUnreviewed && c.WithOutcome < c.Finished:
		b.WriteString("; review episodes first, or include unreviewed ones (--include-unreviewed)")
	case len(filters) > 0:
		b.WriteString("; loosen the filters")
	}
	return b.String()
}

func outcomeNames(outs []Outcome) []string {
	out := make([]string, len(outs))
	for i, o := range outs {
		out[i] = string(o)
	}
	return out
}
