package dataset

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

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
func (s *Store) SaveReview(r Review) (Review, error) {
	r.Settles = false
	return s.insertReview(r)
}

// Settle records a settling label for an episode in conflict (its current
// reviews disagree on the outcome) or re-settles an already settled one. The
// settling label becomes the episode's outcome in the episode_outcomes view
// and in the export. It replaces any earlier settling label of the episode
// (whoever wrote it), keeping the history. The reviewers' own reviews are
// left alone, so agreement figures still measure them.
func (s *Store) Settle(r Review) (Review, error) {
	r.Settles = true
	return s.insertReview(r)
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

func (s *Store) insertReview(r Review) (Review, error) {
	if err := validateReview(&r); err != nil {
		return Review{}, err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	defer tx.Rollback()
	var status string
	var numSteps int
	err = tx.QueryRow(`SELECT status, (SELECT COALESCE(MAX(idx),0) FROM steps WHERE episode_id=episodes.id) FROM episodes WHERE id=?`, r.EpisodeID).Scan(&status, &numSteps)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && status != StatusFinished && status != StatusInterrupted) {
		return Review{}, ErrNotReviewable
	}
	if err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	if r.FailureStep != nil && *r.FailureStep > numSteps {
		return Review{}, fmt.Errorf("failing step %d is past the episode's last step (%d)", *r.FailureStep, numSteps)
	}
	// The rows this one replaces.
	var old []string
	var q string
	var args []any
	if r.Settles {
		var d int
		if err := tx.QueryRow(`SELECT COUNT(DISTINCT outcome) FROM current_reviews WHERE episode_id=? AND settles=0`, r.EpisodeID).Scan(&d); err != nil {
			return Review{}, fmt.Errorf("save settling label: %w", err)
		}
		var settled int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM current_reviews WHERE episode_id=? AND settles=1`, r.EpisodeID).Scan(&settled); err != nil {
			return Review{}, fmt.Errorf("save settling label: %w", err)
		}
		if d < 2 && settled == 0 {
			return Review{}, ErrNotInConflict
		}
		q, args = `SELECT id FROM current_reviews WHERE episode_id=? AND settles=1`, []any{r.EpisodeID}
	} else {
		q, args = `SELECT id FROM current_reviews WHERE episode_id=? AND settles=0 AND reviewer=?`, []any{r.EpisodeID, r.Reviewer}
	}
	rows, err := tx.Query(q, args...)
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
	if err := tx.QueryRow(`SELECT MAX(created_at) FROM reviews WHERE episode_id=?`, r.EpisodeID).Scan(&last); err != nil {
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
	if _, err := tx.Exec(`INSERT INTO reviews(id, episode_id, reviewer, outcome, failure_step, failure_type, reason, step_flags_json, settles, created_at)
		VALUES(?,?,?,?,?,?,?,?,?,?)`, r.ID, r.EpisodeID, r.Reviewer, r.Outcome, fs, r.FailureType, r.Reason, encodeFlags(r.StepFlags), r.Settles, FormatTime(t)); err != nil {
		return Review{}, fmt.Errorf("save review: %w", err)
	}
	for _, id := range old {
		if _, err := tx.Exec(`UPDATE reviews SET superseded_by=? WHERE id=?`, r.ID, id); err != nil {
			return Review{}, fmt.Errorf("save review: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Review{}, fmt.Errorf("save review (nothing was saved; try again): %w", err)
	}
	r.StepFlags = decodeFlags(encodeFlags(r.StepFlags))
	return r, nil
}

const reviewCols = `id, episode_id, reviewer, outcome, failure_step, failure_type, reason, step_flags_json, settles, created_at, COALESCE(superseded_by,'')`

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
	var flags, created string
	if err := sc.Scan(&r.ID, &r.EpisodeID, &r.Reviewer, &r.Outcome, &fs, &r.FailureType, &r.Reason, &flags, &r.Settles, &created, &r.SupersededBy); err != nil {
		return ReviewRecord{}, err
	}
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
func (s *Store) ReviewHistory(episodeID, reviewer string) ([]ReviewRecord, error) {
	rows, err := s.db.Query(`SELECT `+reviewCols+` FROM reviews WHERE episode_id=? AND reviewer=? ORDER BY created_at DESC`, episodeID, reviewer)
	if err != nil {
		return nil, err
	}
	return scanReviews(rows)
}

// CurrentReviews returns the reviews in force for an episode, oldest first:
// one per reviewer, plus the current settling label if any (Settles true).
func (s *Store) CurrentReviews(episodeID string) ([]Review, error) {
	rows, err := s.db.Query(`SELECT `+reviewCols+` FROM current_reviews WHERE episode_id=? ORDER BY created_at`, episodeID)
	if err != nil {
		return nil, err
	}
	recs, err := scanReviews(rows)
	out := make([]Review, len(recs))
	for i, r := range recs {
		out[i] = r.Review
	}
	return out, err
}

// MyReview returns the reviewer's current (non-settling) review of an
// episode, or nil.
func (s *Store) MyReview(episodeID, reviewer string) (*Review, error) {
	rows, err := s.db.Query(`SELECT `+reviewCols+` FROM current_reviews WHERE episode_id=? AND reviewer=? AND settles=0`, episodeID, reviewer)
	if err != nil {
		return nil, err
	}
	recs, err := scanReviews(rows)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return &recs[0].Review, nil
}

// Queue states. An episode can be in several (e.g. unreviewed by me and in
// conflict between two others).
const (
	// QueueUnreviewed: I have no current review and it is not settled.
	QueueUnreviewed = "unreviewed"
	// QueueMine: I have a current review.
	QueueMine = "mine"
	// QueueConflict: its current reviews disagree on the outcome (more than
	// one distinct outcome) and no settling label exists.
	QueueConflict = "conflict"
	// QueueSettled: a settling label exists.
	QueueSettled = "settled"
)

// QueueStates lists the states in display order.
var QueueStates = []string{QueueUnreviewed, QueueMine, QueueConflict, QueueSettled}

// Queue sort orders.
const (
	SortNewest    = "newest"
	SortOldest    = "oldest"
	SortTask      = "task"
	SortAnnotator = "annotator"
)

// Annotator filter values besides an exact name.
const (
	AnnotatorPeople = "@people" // every annotator not named "agent:…"
	AnnotatorAgents = "@agents" // every "agent:…"
)

// QueueFilter selects episodes for review. Zero fields do not filter.
type QueueFilter struct {
	Reviewer  string // "me": who is asking (for unreviewed / mine)
	State     string // one of QueueStates, or "" for all
	Category  string
	Annotator string // exact name, AnnotatorPeople or AnnotatorAgents
	TaskID    string
	Search    string // substring of the goal (case-insensitive)
	From, To  time.Time
	Sort      string // SortNewest (default), SortOldest, SortTask, SortAnnotator
	Limit     int    // 0: no limit
	Offset    int
}

// QueueItem is one episode in the review queue.
type QueueItem struct {
	EpisodeID   string
	TaskID      string
	Goal        string
	Category    string
	Annotator   string
	Status      string
	EndReason   string
	FinalAnswer string
	NumSteps    int
	AutoReward  *float64
	StartedAt   time.Time
	// NumReviews counts current non-settling reviews; Outcomes are their
	// distinct outcomes.
	NumReviews int
	Outcomes   []string
	MyOutcome  string // "" when I have not reviewed it
	Settled    bool
	// Outcome is the episode's outcome as the export sees it: the settling
	// label, else the one all reviews agree on, else "".
	Outcome string
}

// In reports whether the item is in a queue state.
func (it QueueItem) In(state string) bool {
	switch state {
	case "":
		return true
	case QueueUnreviewed:
		return it.MyOutcome == "" && !it.Settled
	case QueueMine:
		return it.MyOutcome != ""
	case QueueConflict:
		return len(it.Outcomes) > 1 && !it.Settled
	case QueueSettled:
		return it.Settled
	}
	return false
}

// Queue is the answer of ReviewQueue.
type Queue struct {
	Items []QueueItem
	// Total is the number of items in the chosen state before Limit/Offset.
	Total int
	// Counts gives, per state, how many episodes match the other filters.
	Counts map[string]int
}

// ReviewQueue lists reviewable episodes matching the filter, with counts per
// state. Only finished or interrupted episodes are listed.
func (s *Store) ReviewQueue(f QueueFilter) (Queue, error) {
	all, err := s.queueAll(f)
	if err != nil {
		return Queue{}, err
	}
	q := Queue{Counts: map[string]int{}}
	for _, it := range all {
		for _, st := range QueueStates {
			if it.In(st) {
				q.Counts[st]++
			}
		}
		if it.In(f.State) {
			q.Items = append(q.Items, it)
		}
	}
	q.Total = len(q.Items)
	if f.Offset > 0 {
		q.Items = q.Items[min(f.Offset, len(q.Items)):]
	}
	if f.Limit > 0 && len(q.Items) > f.Limit {
		q.Items = q.Items[:f.Limit]
	}
	return q, nil
}

// NextUnreviewed returns the first episode after afterEpisodeID, in the
// filter's sort order and within its filters (State is ignored), that the
// reviewer has not reviewed and that is not settled, wrapping around to the
// start. afterEpisodeID may be "" (start at the top). ok is false when none is
// left.
func (s *Store) NextUnreviewed(f QueueFilter, afterEpisodeID string) (item QueueItem, ok bool, err error) {
	f.State = ""
	all, err := s.queueAll(f)
	if err != nil {
		return QueueItem{}, false, err
	}
	start := 0
	for i, it := range all {
		if it.EpisodeID == afterEpisodeID {
			start = i + 1
			break
		}
	}
	for k := range all {
		it := all[(start+k)%len(all)]
		if it.EpisodeID != afterEpisodeID && it.In(QueueUnreviewed) {
			return it, true, nil
		}
	}
	return QueueItem{}, false, nil
}

func (s *Store) queueAll(f QueueFilter) ([]QueueItem, error) {
	where := []string{`e.status IN ` + reviewableStatuses}
	args := []any{f.Reviewer}
	if f.Category != "" {
		where = append(where, `t.category = ?`)
		args = append(args, f.Category)
	}
	switch f.Annotator {
	case "":
	case AnnotatorAgents:
		where = append(where, `e.annotator LIKE 'agent:%'`)
	case AnnotatorPeople:
		where = append(where, `e.annotator NOT LIKE 'agent:%'`)
	default:
		where = append(where, `e.annotator = ?`)
		args = append(args, f.Annotator)
	}
	if f.TaskID != "" {
		where = append(where, `e.task_id = ?`)
		args = append(args, f.TaskID)
	}
	if f.Search != "" {
		where = append(where, `t.goal LIKE ? ESCAPE '\'`)
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(f.Search)
		args = append(args, "%"+esc+"%")
	}
	if !f.From.IsZero() {
		where = append(where, `e.started_at >= ?`)
		args = append(args, FormatTime(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, `e.started_at < ?`)
		args = append(args, FormatTime(f.To))
	}
	order := `e.started_at DESC, e.id`
	switch f.Sort {
	case SortOldest:
		order = `e.started_at, e.id`
	case SortTask:
		order = `t.goal, e.started_at, e.id`
	case SortAnnotator:
		order = `e.annotator, e.started_at, e.id`
	}
	q := `WITH r AS (
		SELECT episode_id, COUNT(*) AS n, GROUP_CONCAT(DISTINCT outcome) AS outs,
		       MAX(CASE WHEN reviewer = ?1 THEN outcome END) AS mine
		FROM current_reviews WHERE settles = 0 GROUP BY episode_id
	), st AS (
		SELECT episode_id, outcome FROM current_reviews c WHERE settles = 1
		AND created_at = (SELECT MAX(created_at) FROM current_reviews c2 WHERE c2.settles = 1 AND c2.episode_id = c.episode_id)
	)
	SELECT e.id, e.task_id, t.goal, t.category, e.annotator, e.status, e.end_reason, e.final_answer, e.num_steps, e.auto_reward, e.started_at,
	       COALESCE(r.n, 0), COALESCE(r.outs, ''), COALESCE(r.mine, ''), st.outcome
	FROM episodes e JOIN tasks t ON t.id = e.task_id
	LEFT JOIN r ON r.episode_id = e.id LEFT JOIN st ON st.episode_id = e.id
	WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	defer rows.Close()
	var out []QueueItem
	for rows.Next() {
		var it QueueItem
		var started, outs string
		var reward sql.NullFloat64
		var settled sql.NullString
		if err := rows.Scan(&it.EpisodeID, &it.TaskID, &it.Goal, &it.Category, &it.Annotator, &it.Status, &it.EndReason, &it.FinalAnswer,
			&it.NumSteps, &reward, &started, &it.NumReviews, &outs, &it.MyOutcome, &settled); err != nil {
			return nil, err
		}
		if reward.Valid {
			v := reward.Float64
			it.AutoReward = &v
		}
		it.StartedAt = ParseTime(started)
		if outs != "" {
			it.Outcomes = strings.Split(outs, ",")
			sort.Slice(it.Outcomes, func(i, j int) bool {
				return slices.Index(Outcomes, it.Outcomes[i]) < slices.Index(Outcomes, it.Outcomes[j])
			})
		}
		switch {
		case settled.Valid:
			it.Settled = true
			it.Outcome = settled.String
		case len(it.Outcomes) == 1:
			it.Outcome = it.Outcomes[0]
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// Annotators lists the distinct annotators of reviewable episodes, sorted.
func (s *Store) Annotators() ([]string, error) {
	rows, err := s.db.Query(`SELECT DISTINCT annotator FROM episodes WHERE status IN ` + reviewableStatuses + ` ORDER BY annotator`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// guidelinesKey is the meta key holding the review guidelines.
const guidelinesKey = "review_guidelines"

// DefaultGuidelines is the guidelines text until someone edits it.
const DefaultGuidelines = `# Review guidelines

Judge the **episode**, not the annotator: did the actions reach the task's goal on the site as it was?

## Outcome (keys 1–4)
1. **Success**: the goal is fully reached. For information tasks the final answer is correct and complete.
2. **Failure**: the goal was not reached, or the answer is wrong. Give the **first failing step** (the first action that made success impossible or went wrong) and a **failure type**.
3. **Not executable**: the task cannot be done on the site as it is (feature missing, page broken, blocked by a login or bot check).
4. **Invalid task**: the task is badly written, ambiguous or outdated.

## Failure types
- *wrong element*: clicked or typed into the wrong thing.
- *wrong text*: typed the wrong text.
- *missed step*: skipped something the goal needs.
- *wrong answer*: the final answer is wrong or incomplete.
- *gave up*: stopped without reaching the goal.
- *site error*: the site failed during the episode.
- *other*: explain in the reason.

## Step flags (optional)
Mark a step as a **mistake** (wrong but recovered from) or **unnecessary** (harmless detour).

## Reason
One sentence that a second reviewer could check. Required in practice for failures.

## Keys
←/→ step · Home/End first/last · Space before/after · B side by side · 1–4 outcome · T failure type · M/U flag step · Ctrl+S save · N save and next · Q queue
`

// Guidelines returns the review guidelines (markdown), or DefaultGuidelines
// when none were saved.
func (s *Store) Guidelines() (string, error) {
	v, err := s.Meta(guidelinesKey)
	if err != nil {
		return "", fmt.Errorf("read review guidelines: %w", err)
	}
	if strings.TrimSpace(v) == "" {
		return DefaultGuidelines, nil
	}
	return v, nil
}

// SetGuidelines saves the review guidelines with the dataset. An empty text
// restores the default.
func (s *Store) SetGuidelines(markdown string) error {
	if err := s.SetMeta(guidelinesKey, markdown); err != nil {
		return fmt.Errorf("save review guidelines (they were not saved): %w", err)
	}
	return nil
}
