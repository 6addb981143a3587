package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Saving, settling and reading reviews; the review queue (what a reviewer
// sees, in which state) is in reviewqueue.go.

// Reviewable episodes: only episodes that ended ("finished" by the engine or
// "interrupted" by a program that stopped mid-recording) can be reviewed. An
// episode still recording may grow, and a discarded one was thrown away by
// its annotator, so neither appears in the queue nor accepts a review.
const reviewableStatuses = `('finished','interrupted')`

// Step flags a reviewer may put on any step.
const (
	FlagMistake     = "mistake"
	FlagUnnecessary = "unnecessary"
)

// StepFlagNames lists the allowed step flags.
var StepFlagNames = []string{FlagMistake, FlagUnnecessary}

// Errors of the review API; the messages say what to do.
var (
	ErrNoReviewer      = errors.New("no reviewer name: set your name in Settings before labelling")
	ErrNotReviewable   = errors.New("this episode cannot be reviewed: only finished or interrupted episodes can (it is still recording, was discarded, or does not exist)")
	ErrNotInConflict   = errors.New("this episode is not in conflict: save an ordinary review instead of a settling label")
	ErrBadOutcome      = errors.New("unknown outcome: choose success, failure, not executable or invalid task")
	ErrNeedFailureType = errors.New("a failure needs a failure type: choose one from the list")
	ErrNeedFailureStep = errors.New("a failure needs the first failing step")
)

// SaveReview stores a reviewer's review of an episode and returns it with
// its ID and time. If the reviewer already has a review of this episode, the
// new one replaces it: a new row is inserted and the old row's superseded_by
// points to it, so the history is kept (see ReviewHistory). r.Settles is
// ignored: use Settle for a settling label. For outcomes other than failure
// the failure step and type are cleared. Safe for concurrent use.
func (s *Store) SaveReview(ctx context.Context, r Review) (Review, error) {
	r.Settles = false
	return s.insertReview(ctx, r)
}

// Settle records a settling label for an episode in conflict (its current
// reviews disagree on the outcome, or on a step's label) or re-settles an
// already settled one. The
// settling label becomes the episode's outcome in the episode_outcomes view
// and in the export. It replaces any earlier settling label of the episode
// (whoever wrote it), keeping the history. The reviewers' own reviews are
// left alone, so agreement figures still measure them.
func (s *Store) Settle(ctx context.Context, r Review) (Review, error) {
	r.Settles = true
	return s.insertReview(ctx, r)
}

func validateReview(r *Review) error {
	r.Reviewer = strings.TrimSpace(r.Reviewer)
	if r.Reviewer == "" {
		return ErrNoReviewer
	}
	if !slices.Contains(Outcomes, r.Outcome) {
		return fmt.Errorf("%w (got %q)", ErrBadOutcome, r.Outcome)
	}
	if r.Outcome == OutcomeFailure {
		if r.FailureType == "" {
			return ErrNeedFailureType
		}
		if !slices.Contains(FailureTypes, r.FailureType) {
			return fmt.Errorf("unknown failure type %q: choose one of %s", r.FailureType, strings.Join(FailureTypes, ", "))
		}
		if r.FailureStep == nil {
			return ErrNeedFailureStep
		}
		if *r.FailureStep < 0 {
			return fmt.Errorf("failing step %d is not a step of the episode", *r.FailureStep)
		}
	} else {
		r.FailureStep = nil
		r.FailureType = ""
	}
	r.Reason = strings.TrimSpace(r.Reason)
	if err := validateStepLabels(r.StepLabels); err != nil {
		return err
	}
	if err := validateJudgeLabels(r); err != nil {
		return err
	}
	for k, fl := range r.StepFlags {
		if k < 0 {
			return fmt.Errorf("step flag on step %d: not a step of the episode", k)
		}
		for _, f := range fl {
			if !slices.Contains(StepFlagNames, f) {
				return fmt.Errorf("unknown step flag %q on step %d: use %s", f, k, strings.Join(StepFlagNames, " or "))
			}
		}
	}
	return nil
}

func encodeFlags(m map[int][]string) string {
	out := map[string][]string{}
	for k, fl := range m {
		if len(fl) == 0 {
			continue
		}
		c := slices.Clone(fl)
		slices.Sort(c)
		out[strconv.Itoa(k)] = slices.Compact(c)
	}
	b, _ := json.Marshal(out) // map keys are sorted by encoding/json
	return string(b)
}

func decodeFlags(s string) map[int][]string {
	raw := map[string][]string{}
	_ = json.Unmarshal([]byte(s), &raw)
	out := map[int][]string{}
	for k, v := range raw {
		if i, err := strconv.Atoi(k); err == nil && len(v) > 0 {
			out[i] = v
		}
	}
	return out
}

func (s *Store) insertReview(ctx context.Context, r Review) (Review, error) {
	if err := validateReview(&r); err != nil {
		return Review{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	defer tx.Rollback()
	var status Status
	var numSteps int
	err = tx.QueryRowContext(ctx, `SELECT status, (SELECT COALESCE(MAX(idx),0) FROM steps WHERE episode_id=episodes.id) FROM episodes WHERE id=?`, r.EpisodeID).Scan(&status, &numSteps)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && status != StatusFinished && status != StatusInterrupted) {
		return Review{}, ErrNotReviewable
	}
	if err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	if r.FailureStep != nil && *r.FailureStep > numSteps {
		return Review{}, fmt.Errorf("failing step %d is past the episode's last step (%d)", *r.FailureStep, numSteps)
	}
	for k := range r.StepLabels {
		if k > numSteps {
			return Review{}, fmt.Errorf("step label on step %d: past the episode's last step (%d)", k, numSteps)
		}
	}
	for _, k := range r.KeySteps {
		if k > numSteps {
			return Review{}, fmt.Errorf("key screenshot on step %d: past the episode's last step (%d)", k, numSteps)
		}
	}
	if r.GuidelinesID, err = guidelinesInForce(ctx, tx, ""); err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	// The rows this one replaces.
	var old []string
	var q string
	var args []any
	if r.Settles {
		var d int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(DISTINCT outcome) FROM current_reviews WHERE episode_id=? AND settles=0`, r.EpisodeID).Scan(&d); err != nil {
			return Review{}, fmt.Errorf("save settling label: %w", err)
		}
		var settled int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM current_reviews WHERE episode_id=? AND settles=1`, r.EpisodeID).Scan(&settled); err != nil {
			return Review{}, fmt.Errorf("save settling label: %w", err)
		}
		var stepConflicts int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM step_label_outcomes WHERE episode_id=? AND conflict`, r.EpisodeID).Scan(&stepConflicts); err != nil {
			return Review{}, fmt.Errorf("save settling label: %w", err)
		}
		if d < 2 && settled == 0 && stepConflicts == 0 {
			return Review{}, ErrNotInConflict
		}
		q, args = `SELECT id FROM current_reviews WHERE episode_id=? AND settles=1`, []any{r.EpisodeID}
	} else {
		q, args = `SELECT id FROM current_reviews WHERE episode_id=? AND settles=0 AND reviewer=?`, []any{r.EpisodeID, r.Reviewer}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return Review{}, err
		}
		old = append(old, id)
	}
	rows.Close()
	// Times must strictly increase within an episode: the views pick the
	// newest row by created_at, and two saves can land in one millisecond.
	t := time.Now().UTC().Truncate(time.Millisecond)
	var last sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT MAX(created_at) FROM reviews WHERE episode_id=?`, r.EpisodeID).Scan(&last); err != nil {
		return Review{}, err
	}
	if last.Valid {
		if lt := ParseTime(last.String); !t.After(lt) {
			t = lt.Add(time.Millisecond)
		}
	}
	r.ID = uuid.NewString()
	r.CreatedAt = t
	var fs any
	if r.FailureStep != nil {
		fs = *r.FailureStep
	}
	var opt any
	if r.Optimality > 0 {
		opt = r.Optimality
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO reviews(id, episode_id, reviewer, outcome, failure_step, failure_type, reason, step_flags_json, settles, created_at,
		side_effect, looping, optimality, key_steps_json, guidelines_id)
		VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, r.ID, r.EpisodeID, r.Reviewer, r.Outcome, fs, r.FailureType, r.Reason, encodeFlags(r.StepFlags), r.Settles, FormatTime(t),
		r.SideEffect, r.Looping, opt, encodeSteps(r.KeySteps), r.GuidelinesID); err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	if err := insertStepLabels(ctx, tx, r.ID, r.StepLabels); err != nil {
		return Review{}, err
	}
	for _, id := range old {
		if _, err := tx.ExecContext(ctx, `UPDATE reviews SET superseded_by=? WHERE id=?`, r.ID, id); err != nil {
			return Review{}, fmt.Errorf("save review: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Review{}, fmt.Errorf("save review (nothing was saved; try again): %w", err)
	}
	r.StepFlags = decodeFlags(encodeFlags(r.StepFlags))
	labels := map[int]string{}
	for k, l := range r.StepLabels {
		labels[k] = l
	}
	r.StepLabels = labels
	return r, nil
}

const reviewCols = `id, episode_id, reviewer, outcome, failure_step, failure_type, reason, step_flags_json, settles, created_at, COALESCE(superseded_by,''),
	side_effect, looping, COALESCE(optimality, 0), key_steps_json, guidelines_id`

// ReviewRecord is a stored review with its place in the history.
type ReviewRecord struct {
	Review
	// SupersededBy is the ID of the review that replaced this one ("" when
	// it is current).
	SupersededBy string
}

func scanReviews(rows *sql.Rows) ([]ReviewRecord, error) {
	defer rows.Close()
	var out []ReviewRecord
	for rows.Next() {
		r, err := scanReview(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// scanReview reads reviewCols.
func scanReview(sc interface{ Scan(...any) error }) (ReviewRecord, error) {
	var r ReviewRecord
	var fs sql.NullInt64
	var flags, created, keys string
	if err := sc.Scan(&r.ID, &r.EpisodeID, &r.Reviewer, &r.Outcome, &fs, &r.FailureType, &r.Reason, &flags, &r.Settles, &created, &r.SupersededBy,
		&r.SideEffect, &r.Looping, &r.Optimality, &keys, &r.GuidelinesID); err != nil {
		return ReviewRecord{}, err
	}
	r.KeySteps = decodeSteps(keys)
	if fs.Valid {
		v := int(fs.Int64)
		r.FailureStep = &v
	}
	r.StepFlags = decodeFlags(flags)
	r.CreatedAt = ParseTime(created)
	return r, nil
}

// ReviewHistory returns every review a reviewer wrote for an episode,
// newest first: the first is current, the others are the versions it
// replaced. Settling labels are included (Settles is true).
func (s *Store) ReviewHistory(ctx context.Context, episodeID, reviewer string) ([]ReviewRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+reviewCols+` FROM reviews WHERE episode_id=? AND reviewer=? ORDER BY created_at DESC`, episodeID, reviewer)
	if err != nil {
		return nil, err
	}
	recs, err := scanReviews(rows)
	if err != nil {
		return nil, err
	}
	return recs, s.attachStepLabels(ctx, recs)
}

// CurrentReviews returns the reviews in force for an episode, oldest first:
// one per reviewer, plus the current settling label if any (Settles true).
func (s *Store) CurrentReviews(ctx context.Context, episodeID string) ([]Review, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+reviewCols+` FROM current_reviews WHERE episode_id=? ORDER BY created_at`, episodeID)
	if err != nil {
		return nil, err
	}
	recs, err := scanReviews(rows)
	if err == nil {
		err = s.attachStepLabels(ctx, recs)
	}
	out := make([]Review, len(recs))
	for i, r := range recs {
		out[i] = r.Review
	}
	return out, err
}

// MyReview returns the reviewer's current (non-settling) review of an
// episode, or nil.
func (s *Store) MyReview(ctx context.Context, episodeID, reviewer string) (*Review, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+reviewCols+` FROM current_reviews WHERE episode_id=? AND reviewer=? AND settles=0`, episodeID, reviewer)
	if err != nil {
		return nil, err
	}
	recs, err := scanReviews(rows)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	if err := s.attachStepLabels(ctx, recs[:1]); err != nil {
		return nil, err
	}
	return &recs[0].Review, nil
}
