package dataset

import (
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
// StartedAt (now when zero) are filled in the returned copy.
func (s *Store) CreateEpisode(e Episode) (Episode, error) {
	tx, err := s.db.Begin()
	if err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	defer tx.Rollback()
	if err := s.insertEpisode(tx, &e); err != nil {
		return Episode{}, err
	}
	if err := tx.Commit(); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	return e, nil
}

func (s *Store) insertEpisode(tx *sql.Tx, e *Episode) error {
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
	err := tx.QueryRow(`SELECT goal, category FROM tasks WHERE id=?`, e.TaskID).Scan(&goal, &cat)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("task %q: %w; choose a task from the list or import one", e.TaskID, ErrNotFound)
	}
	if err != nil {
		return s.explainWriteError(err)
	}
	e.Goal, e.Category = goal, cat
	_, err = tx.Exec(`INSERT INTO episodes (id, task_id, annotator, action_set, engine_json, status, owner, started_at)
		VALUES (?,?,?,?,?,?,?,?)`, e.ID, e.TaskID, e.Annotator, string(e.ActionSet), e.EngineJSON, e.Status, e.Owner, FormatTime(e.StartedAt))
	if isUniqueViolation(err) || isPrimaryKeyViolation(err) {
		return fmt.Errorf("%w: %s", ErrEpisodeExists, e.ID)
	}
	return s.explainWriteError(err)
}

const episodeColumns = `e.id, e.task_id, e.annotator, e.action_set, e.engine_json, e.status, e.end_reason, e.final_answer,
	e.final_url, e.auto_reward, e.num_steps, e.started_at, e.ended_at, e.owner, t.goal, t.category`

// scanEpisode reads episodeColumns, then extra columns into extra.
func scanEpisode(sc interface{ Scan(...any) error }, extra ...any) (Episode, error) {
	var e Episode
	var set, started string
	var ended sql.NullString
	var reward sql.NullFloat64
	dest := append([]any{&e.ID, &e.TaskID, &e.Annotator, &set, &e.EngineJSON, &e.Status, &e.EndReason, &e.FinalAnswer,
		&e.FinalURL, &reward, &e.NumSteps, &started, &ended, &e.Owner, &e.Goal, &e.Category}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return Episode{}, err
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
func (s *Store) GetEpisode(id string) (Episode, error) {
	e, err := scanEpisode(s.db.QueryRow(`SELECT `+episodeColumns+` FROM episodes e JOIN tasks t ON t.id = e.task_id WHERE e.id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Episode{}, fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return e, err
}

// EpisodeFilter selects episodes; zero fields select everything.
type EpisodeFilter struct {
	Status    string
	Category  string
	Annotator string
	TaskID    string
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
func (s *Store) ListEpisodes(f EpisodeFilter) ([]Episode, error) {
	where, args := f.where()
	order := " ORDER BY e.started_at DESC, e.id DESC"
	if f.OldestFirst {
		order = " ORDER BY e.started_at ASC, e.id ASC"
	}
	q := `SELECT ` + episodeColumns + ` FROM episodes e JOIN tasks t ON t.id = e.task_id` + where + order
	q, args = limitOffset(q, args, f.Limit, f.Offset)
	rows, err := s.db.Query(q, args...)
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
	ByStatus   map[string]int
	// ByCategoryStatus[category][status]
	ByCategoryStatus map[string]map[string]int
}

// CountEpisodes counts the episodes f selects (Limit, Offset and order
// ignored) per category and status.
func (s *Store) CountEpisodes(f EpisodeFilter) (EpisodeCounts, error) {
	where, args := f.where()
	rows, err := s.db.Query(`SELECT t.category, e.status, COUNT(*) FROM episodes e JOIN tasks t ON t.id = e.task_id`+where+
		` GROUP BY 1, 2`, args...)
	if err != nil {
		return EpisodeCounts{}, err
	}
	defer rows.Close()
	c := EpisodeCounts{ByCategory: map[string]int{}, ByStatus: map[string]int{}, ByCategoryStatus: map[string]map[string]int{}}
	for rows.Next() {
		var cat, st string
		var n int
		if err := rows.Scan(&cat, &st, &n); err != nil {
			return EpisodeCounts{}, err
		}
		c.Total += n
		c.ByCategory[cat] += n
		c.ByStatus[st] += n
		if c.ByCategoryStatus[cat] == nil {
			c.ByCategoryStatus[cat] = map[string]int{}
		}
		c.ByCategoryStatus[cat][st] += n
	}
	return c, rows.Err()
}

// episodeEnd is how an episode ends.
type episodeEnd struct {
	status, reason, answer, finalURL string
	reward                           *float64
	at                               time.Time // zero: now
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
func (s *Store) FinishEpisode(id string, e EpisodeEnd) error {
	end := endOf(engine.Observation{Done: true, Answer: e.Answer, URL: e.FinalURL, Reward: e.Reward})
	end.at = e.At
	res, err := s.endEpisodeResult(s.db, id, end)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		ep, err := s.GetEpisode(id)
		if err != nil {
			return err
		}
		return fmt.Errorf("episode %s is %s, not recording: it cannot be finished", id, ep.Status)
	}
	return nil
}

func (s *Store) endEpisode(ex execer, id string, end episodeEnd) error {
	_, err := s.endEpisodeResult(ex, id, end)
	return err
}

type execer interface {
	Exec(string, ...any) (sql.Result, error)
}

// endEpisodeResult ends a recording episode (an ended one is left alone:
// the result counts no row).
func (s *Store) endEpisodeResult(ex execer, id string, end episodeEnd) (sql.Result, error) {
	var reward any
	if end.reward != nil {
		reward = *end.reward
	}
	at := now()
	if !end.at.IsZero() {
		at = FormatTime(end.at)
	}
	return ex.Exec(`UPDATE episodes SET status=?, end_reason=?, final_answer=CASE WHEN ?='' THEN final_answer ELSE ? END,
		final_url=CASE WHEN ?='' THEN final_url ELSE ? END, auto_reward=COALESCE(?, auto_reward), ended_at=? WHERE id=? AND status='recording'`,
		end.status, end.reason, end.answer, end.answer, end.finalURL, end.finalURL, reward, at, id)
}

// DiscardEpisode marks an episode discarded (its steps are kept, so it can
// be looked at or restored with RestoreEpisode).
func (s *Store) DiscardEpisode(id string) error {
	return s.setStatus(id, StatusDiscarded, string(action.EndDiscarded))
}

// SetEpisodeAnnotator renames who recorded an episode (e.g. an agent that
// names itself in a step's metadata after the episode began).
func (s *Store) SetEpisodeAnnotator(id, annotator string) error {
	res, err := s.db.Exec(`UPDATE episodes SET annotator=? WHERE id=?`, annotator, id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("episode %s: %w", id, ErrNotFound)
	}
	return nil
}

// SetEpisodeAnswer keeps the final answer of an episode whose finish could
// not be performed (it then ends as interrupted, its answer kept).
func (s *Store) SetEpisodeAnswer(id, answer string) error {
	res, err := s.db.Exec(`UPDATE episodes SET final_answer=? WHERE id=?`, answer, id)
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
func (s *Store) InterruptEpisode(id string) error {
	res, err := s.db.Exec(`UPDATE episodes SET status='interrupted', end_reason=CASE WHEN end_reason='' THEN 'interrupted' ELSE end_reason END,
		ended_at=COALESCE(ended_at, ?) WHERE id=? AND status='recording'`, now(), id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.GetEpisode(id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) setStatus(id, status, reason string) error {
	res, err := s.db.Exec(`UPDATE episodes SET status=?, end_reason=?, ended_at=COALESCE(ended_at, ?) WHERE id=?`, status, reason, now(), id)
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
