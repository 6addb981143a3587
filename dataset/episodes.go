package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/mattn/go-sqlite3"

	"waymark/engine"
	"waymark/engine/action"
)

// ErrEpisodeExists is returned by CreateEpisode for an id already stored.
var ErrEpisodeExists = errors.New("an episode with this id already exists")

// CreateEpisode stores a new episode in status "recording", owned by this
// process. ID (a UUID when empty), ActionSet ("default" when empty) and
// StartedAt (now when zero) are filled in the returned copy. A branch
// (ParentEpisodeID set) must name a stored episode and one of its stored
// steps as BranchStep; a missing parent is refused (wrapping ErrNotFound).
func (s *Store) CreateEpisode(ctx context.Context, e Episode) (Episode, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	defer tx.Rollback()
	if err := s.insertEpisode(ctx, tx, &e); err != nil {
		return Episode{}, err
	}
	if err := tx.Commit(); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	return e, nil
}

func (s *Store) insertEpisode(ctx context.Context, tx *sql.Tx, e *Episode) error {
	if e.ID == "" {
		e.ID = uuid.NewString()
	}
	if e.ActionSet == "" {
		e.ActionSet = action.SetDefault
	}
	if e.EngineJSON == "" {
		e.EngineJSON = "{}"
	}
	if strings.TrimSpace(e.Annotator) == "" {
		return errors.New("the episode has no annotator: set your name in the settings (or agent:NAME for an agent)")
	}
	if e.StartedAt.IsZero() {
		e.StartedAt = time.Now()
	}
	e.StartedAt = ParseTime(FormatTime(e.StartedAt))
	e.Status = StatusRecording
	e.Owner = s.owner
	var goal, cat string
	err := tx.QueryRowContext(ctx, `SELECT goal, category FROM tasks WHERE id=?`, e.TaskID).Scan(&goal, &cat)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("task %q: %w; choose a task from the list or import one", e.TaskID, ErrNotFound)
	}
	if err != nil {
		return s.explainWriteError(err)
	}
	e.Goal, e.Category = goal, cat
	parent, branch, err := checkBranch(ctx, tx, e)
	if err != nil {
		return err
	}
	origin, err := checkIntent(e)
	if err != nil {
		return err
	}
	e.NumEdits, e.NumRemoved, e.Resumed, e.NumInterventions = 0, 0, false, 0
	_, err = tx.ExecContext(ctx, `INSERT INTO episodes (id, task_id, annotator, action_set, engine_json, status, owner, started_at, parent_episode_id, branch_step,
		intent_origin, exploration_id, span_from, span_to)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, e.ID, e.TaskID, e.Annotator, string(e.ActionSet), e.EngineJSON, e.Status, e.Owner, FormatTime(e.StartedAt), parent, branch,
		e.Intent, origin[0], origin[1], origin[2])
	if isUniqueViolation(err) || isPrimaryKeyViolation(err) {
		return fmt.Errorf("%w: %s", ErrEpisodeExists, e.ID)
	}
	return s.explainWriteError(err)
}

// checkIntent fills an episode's intent (planned when unset) and returns
// the hindsight origin to store (exploration, span from, span to; NULL
// for other episodes).
func checkIntent(e *Episode) ([3]any, error) {
	if e.Intent == "" {
		e.Intent = IntentPlanned
	}
	switch e.Intent {
	case IntentPlanned, IntentExploration:
		if e.ExplorationID != "" {
			return [3]any{}, fmt.Errorf("a %s episode names no exploration: only a task cut from one does", e.Intent)
		}
		return [3]any{}, nil
	case IntentHindsight:
		if e.ExplorationID == "" || e.SpanFrom < 1 || e.SpanTo < e.SpanFrom {
			return [3]any{}, fmt.Errorf("a task cut from an exploration names the exploration and its span (first step 1 or later, last at or after it); got %q, %d–%d", e.ExplorationID, e.SpanFrom, e.SpanTo)
		}
		return [3]any{e.ExplorationID, e.SpanFrom, e.SpanTo}, nil
	}
	return [3]any{}, fmt.Errorf("the episode's intent %q is none of planned, exploration, hindsight", e.Intent)
}

// checkBranch checks a branch's parent and step; it returns the values to
// store (NULL for an episode that is no branch).
func checkBranch(ctx context.Context, tx *sql.Tx, e *Episode) (parent, branch any, err error) {
	if e.ParentEpisodeID == "" {
		if e.BranchStep != nil {
			return nil, nil, errors.New("the episode has a branch step but no parent episode: name the episode it continues from")
		}
		return nil, nil, nil
	}
	if e.BranchStep == nil {
		return nil, nil, fmt.Errorf("the branch of episode %s has no branch step: say which of its steps it continues from", e.ParentEpisodeID)
	}
	k := *e.BranchStep
	if k < 0 {
		return nil, nil, fmt.Errorf("the branch step %d is negative: continue from step 0 or later of episode %s", k, e.ParentEpisodeID)
	}
	var maxIdx sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT (SELECT MAX(idx) FROM steps WHERE episode_id = p.id) FROM episodes p WHERE p.id=?`, e.ParentEpisodeID).Scan(&maxIdx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("cannot branch from episode %s: %w (it may have been recorded in another database); choose an episode from the Review list", e.ParentEpisodeID, ErrNotFound)
	}
	if err != nil {
		return nil, nil, err
	}
	if !maxIdx.Valid {
		return nil, nil, fmt.Errorf("cannot branch from episode %s: it has no stored steps; choose an episode that has", e.ParentEpisodeID)
	}
	if int64(k) > maxIdx.Int64 {
		return nil, nil, fmt.Errorf("cannot branch from step %d of episode %s: it has no such step (its last is %d); choose one of its steps", k, e.ParentEpisodeID, maxIdx.Int64)
	}
	b := *e.BranchStep
	e.BranchStep = &b
	return e.ParentEpisodeID, k, nil
}

// episodeColumns are the columns scanEpisode reads, from episodes e, tasks
// t and the audit log summary x (see editsJoin). Steps are removed only by
// edits, so only an episode with edits counts its removed steps: the
// stored action steps less num_steps (which counts the kept ones), read
// from the steps' index alone.
var episodeColumns = `e.id, e.task_id, e.annotator, e.action_set, e.engine_json, e.status, e.end_reason, e.final_answer,
	e.final_url, e.auto_reward, e.num_steps, e.started_at, e.ended_at, e.owner, t.goal, t.category,
	COALESCE(e.parent_episode_id, ''), e.branch_step, COALESCE(x.n, 0),
	CASE WHEN x.n > 0 THEN MAX(0, (SELECT COUNT(*) FROM steps s WHERE s.episode_id = e.id AND s.idx > 0) - e.num_steps) ELSE 0 END,
	COALESCE(x.resumed, 0), ` + interventionsSQL + `,
	e.intent_origin, COALESCE(e.exploration_id, ''), COALESCE(e.span_from, 0), COALESCE(e.span_to, 0), e.actual_task`

// editsJoin joins each episode's audit log summary as x: n step edits
// (undo, remove, restore, trim) and whether it was resumed. One pass over
// the (small) log is cheaper for a list than a lookup per episode.
const editsJoin = ` LEFT JOIN (SELECT episode_id, SUM(kind NOT IN ('resume', 'redact', 'span')) AS n, MAX(kind = 'resume') AS resumed
	FROM episode_edits GROUP BY episode_id) x ON x.episode_id = e.id`

// scanEpisode reads episodeColumns, then extra columns into extra.
func scanEpisode(sc interface{ Scan(...any) error }, extra ...any) (Episode, error) {
	var e Episode
	var set, started string
	var ended sql.NullString
	var reward sql.NullFloat64
	var branch sql.NullInt64
	dest := append([]any{&e.ID, &e.TaskID, &e.Annotator, &set, &e.EngineJSON, &e.Status, &e.EndReason, &e.FinalAnswer,
		&e.FinalURL, &reward, &e.NumSteps, &started, &ended, &e.Owner, &e.Goal, &e.Category,
		&e.ParentEpisodeID, &branch, &e.NumEdits, &e.NumRemoved, &e.Resumed, &e.NumInterventions,
		&e.Intent, &e.ExplorationID, &e.SpanFrom, &e.SpanTo, &e.ActualTask}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return Episode{}, err
	}
	if branch.Valid {
		k := int(branch.Int64)
		e.BranchStep = &k
	}
	e.ActionSet = action.Set(set)
	e.StartedAt = ParseTime(started)
	if ended.Valid {
		t := ParseTime(ended.String)
		e.EndedAt = &t
	}
	if reward.Valid {
		r := reward.Float64
		e.AutoReward = &r
	}
	return e, nil
}

// GetEpisode reads one episode with its task's goal and category.
func (s *Store) GetEpisode(ctx context.Context, id string) (Episode, error) {
	e, err := scanEpisode(s.db.QueryRowContext(ctx, `SELECT `+episodeColumns+` FROM episodes e JOIN tasks t ON t.id = e.task_id
		LEFT JOIN (SELECT episode_id, SUM(kind NOT IN ('resume', 'redact', 'span')) AS n, MAX(kind = 'resume') AS resumed
			FROM episode_edits WHERE episode_id = ? GROUP BY episode_id) x ON x.episode_id = e.id
		WHERE e.id=?`, id, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Episode{}, fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return e, err
}

// EpisodeFilter selects episodes; zero fields select everything.
type EpisodeFilter struct {
	Status    Status
	Category  string
	Annotator string
	TaskID    string
	// ParentID selects the branches of that episode.
	ParentID string
	// ExplorationID selects the tasks cut from that exploration; Intent
	// the episodes of one intent (IntentPlanned, …).
	ExplorationID, Intent string
	// From and To bound started_at: From ≤ started < To.
	From, To time.Time
	// Agents: "" all annotators, "people" only people, "agents" only
	// annotators named agent:….
	Agents string
	// OldestFirst sorts by start time ascending; the default is newest first.
	OldestFirst   bool
	Limit, Offset int
}

func (f EpisodeFilter) where() (string, []any) {
	var conds []string
	var args []any
	add := func(c string, a ...any) { conds = append(conds, c); args = append(args, a...) }
	if f.Status != "" {
		add("e.status = ?", f.Status)
	}
	if f.Category != "" {
		add("t.category = ?", f.Category)
	}
	if f.Annotator != "" {
		add("e.annotator = ?", f.Annotator)
	}
	if f.TaskID != "" {
		add("e.task_id = ?", f.TaskID)
	}
	if f.ParentID != "" {
		add("e.parent_episode_id = ?", f.ParentID)
	}
	if f.ExplorationID != "" {
		add("e.exploration_id = ?", f.ExplorationID)
	}
	if f.Intent != "" {
		add("e.intent_origin = ?", f.Intent)
	}
	if !f.From.IsZero() {
		add("e.started_at >= ?", FormatTime(f.From))
	}
	if !f.To.IsZero() {
		add("e.started_at < ?", FormatTime(f.To))
	}
	switch f.Agents {
	case "people":
		add("e.annotator NOT LIKE 'agent:%'")
	case "agents":
		add("e.annotator LIKE 'agent:%'")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// ListEpisodes lists the episodes f selects, newest first unless
// f.OldestFirst, with their task's goal and category.
func (s *Store) ListEpisodes(ctx context.Context, f EpisodeFilter) ([]Episode, error) {
	where, args := f.where()
	order := " ORDER BY e.started_at DESC, e.id DESC"
	if f.OldestFirst {
		order = " ORDER BY e.started_at ASC, e.id ASC"
	}
	q := `SELECT ` + episodeColumns + ` FROM episodes e JOIN tasks t ON t.id = e.task_id` + editsJoin + where + order
	q, args = limitOffset(q, args, f.Limit, f.Offset)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Episode
	for rows.Next() {
		e, err := scanEpisode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// EpisodeCounts counts the episodes a filter selects.
type EpisodeCounts struct {
	Total      int
	ByCategory map[string]int
	ByStatus   map[Status]int
	// ByCategoryStatus[category][status]
	ByCategoryStatus map[string]map[Status]int
}

// CountEpisodes counts the episodes f selects (Limit, Offset and order
// ignored) per category and status.
func (s *Store) CountEpisodes(ctx context.Context, f EpisodeFilter) (EpisodeCounts, error) {
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT t.category, e.status, COUNT(*) FROM episodes e JOIN tasks t ON t.id = e.task_id`+where+
		` GROUP BY 1, 2`, args...)
	if err != nil {
		return EpisodeCounts{}, err
	}
	defer rows.Close()
	c := EpisodeCounts{ByCategory: map[string]int{}, ByStatus: map[Status]int{}, ByCategoryStatus: map[string]map[Status]int{}}
	for rows.Next() {
		var cat string
		var st Status
		var n int
		if err := rows.Scan(&cat, &st, &n); err != nil {
			return EpisodeCounts{}, err
		}
		c.Total += n
		c.ByCategory[cat] += n
		c.ByStatus[st] += n
		if c.ByCategoryStatus[cat] == nil {
			c.ByCategoryStatus[cat] = map[Status]int{}
		}
		c.ByCategoryStatus[cat][st] += n
	}
	return c, rows.Err()
}

// episodeEnd is how an episode ends.
type episodeEnd struct {
	status           Status
	reason           action.EndReason
	answer, finalURL string
	reward           *float64
	at               time.Time // zero: now
}

// EpisodeEnd is how FinishEpisode ends an episode.
type EpisodeEnd struct {
	// Answer is the final answer and FinalURL the last page ("" keeps what
	// is stored).
	Answer, FinalURL string
	// Reward is the automatic check's result (nil keeps what is stored).
	Reward *float64
	// At is when it ended (zero: now).
	At time.Time
}

// FinishEpisode ends a recording episode as finished by its action (end
// reason "finished"), for programs that store an episode step by step with
// AppendStep; the Recorder ends its episodes itself. An episode that is not
// recording is left alone and gives an error (wrapping ErrNotFound when it
// does not exist).
func (s *Store) FinishEpisode(ctx context.Context, id string, e EpisodeEnd) error {
	end := endOf(engine.Observation{Done: true, Answer: e.Answer, URL: e.FinalURL, Reward: e.Reward})
	end.at = e.At
	res, err := s.endEpisodeResult(ctx, s.db, id, end)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		ep, err := s.GetEpisode(ctx, id)
		if err != nil {
			return err
		}
		return fmt.Errorf("episode %s is %s, not recording: it cannot be finished", id, ep.Status)
	}
	return nil
}

func (s *Store) endEpisode(ctx context.Context, ex execer, id string, end episodeEnd) error {
	_, err := s.endEpisodeResult(ctx, ex, id, end)
	return err
}

type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

// endEpisodeResult ends a recording episode (an ended one is left alone:
// the result counts no row).
func (s *Store) endEpisodeResult(ctx context.Context, ex execer, id string, end episodeEnd) (sql.Result, error) {
	var reward any
	if end.reward != nil {
		reward = *end.reward
	}
	at := now()
	if !end.at.IsZero() {
		at = FormatTime(end.at)
	}
	return ex.ExecContext(ctx, `UPDATE episodes SET status=?, end_reason=?, final_answer=CASE WHEN ?='' THEN final_answer ELSE ? END,
		final_url=CASE WHEN ?='' THEN final_url ELSE ? END, auto_reward=COALESCE(?, auto_reward), ended_at=? WHERE id=? AND status='recording'`,
		end.status, end.reason, end.answer, end.answer, end.finalURL, end.finalURL, reward, at, id)
}

// DiscardEpisode marks an episode discarded (its steps are kept, so it can
// be looked at or restored with RestoreEpisode).
func (s *Store) DiscardEpisode(ctx context.Context, id string) error {
	return s.setStatus(ctx, id, StatusDiscarded, action.EndDiscarded)
}

// SetEpisodeAnnotator renames who recorded an episode (e.g. an agent that
// names itself in a step's metadata after the episode began); the steps
// the old annotator took get the new one as their actor, those of others
// (a person who took over) keep theirs.
func (s *Store) SetEpisodeAnnotator(ctx context.Context, id, annotator string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE steps SET actor=? WHERE episode_id=? AND actor=(SELECT `+actorSQL("annotator")+` FROM episodes WHERE id=?)`,
		ActorOf(annotator), id, id); err != nil {
		return s.explainWriteError(err)
	}
	res, err := tx.ExecContext(ctx, `UPDATE episodes SET annotator=? WHERE id=?`, annotator, id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return s.explainWriteError(tx.Commit())
}

// SetEpisodeAnswer keeps the final answer of an episode whose finish could
// not be performed (it then ends as interrupted, its answer kept).
func (s *Store) SetEpisodeAnswer(ctx context.Context, id, answer string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET final_answer=? WHERE id=?`, answer, id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return nil
}

// InterruptEpisode marks a recording episode interrupted (its program
// stopped recording before the episode ended).
func (s *Store) InterruptEpisode(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET status='interrupted', end_reason=CASE WHEN end_reason='' THEN 'interrupted' ELSE end_reason END,
		ended_at=COALESCE(ended_at, ?) WHERE id=? AND status='recording'`, now(), id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.GetEpisode(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) setStatus(ctx context.Context, id string, status Status, reason action.EndReason) error {
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET status=?, end_reason=?, ended_at=COALESCE(ended_at, ?) WHERE id=?`, status, reason, now(), id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return nil
}

func isPrimaryKeyViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey
}
