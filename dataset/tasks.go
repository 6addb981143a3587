package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/mattn/go-sqlite3"

	"waymark/engine/action"
)

// Task errors.
var (
	ErrInvalidTask     = errors.New("invalid task")
	ErrDuplicateTask   = errors.New("a task with this goal and start URL already exists")
	ErrTaskHasEpisodes = errors.New("the task has recorded episodes")
	ErrInvalidCategory = errors.New("unknown category")
	errEmptyGoal       = errors.New("the goal is empty")
)

const (
	maxGoalLen = 4000
	// maxURLLen bounds a start URL: more than web servers take in a
	// request line (8 KiB is the common limit).
	maxURLLen = 8192
	// demonstratedEpisodes selects a task's finished episodes by people.
	demonstratedEpisodes = `SELECT 1 FROM episodes e WHERE e.task_id = t.id AND e.status = 'finished' AND e.annotator NOT LIKE 'agent:%'`
)

// ValidCategory reports whether c is one of Categories.
func ValidCategory(c string) bool { return slices.Contains(Categories, c) }

// ValidateTask checks a task and tidies it in place (trims the goal and the
// URL). The error wraps ErrInvalidTask and says what to fix.
func ValidateTask(t *Task) error {
	t.Goal = strings.TrimSpace(t.Goal)
	t.StartURL = strings.TrimSpace(t.StartURL)
	t.Category = strings.TrimSpace(t.Category)
	if t.Goal == "" {
		return fmt.Errorf("%w: %v; write what the person should do", ErrInvalidTask, errEmptyGoal)
	}
	if len(t.Goal) > maxGoalLen {
		return fmt.Errorf("%w: the goal is %d characters long, at most %d are allowed", ErrInvalidTask, len(t.Goal), maxGoalLen)
	}
	if !ValidCategory(t.Category) {
		return fmt.Errorf("%w: %w %q; use one of %s", ErrInvalidTask, ErrInvalidCategory, t.Category, strings.Join(Categories, ", "))
	}
	if t.StartURL == "" {
		return fmt.Errorf("%w: the start URL is empty; write the address the task begins on, for example https://example.com/", ErrInvalidTask)
	}
	if n := utf8.RuneCountInString(t.StartURL); n > maxURLLen {
		return fmt.Errorf("%w: the start URL is %d characters long, at most %d are allowed; give a shorter address (%.60s…)", ErrInvalidTask, n, maxURLLen, t.StartURL)
	}
	if err := action.CheckURL(t.StartURL); err != nil {
		return fmt.Errorf("%w: start URL %q: %v (for example https://example.com/)", ErrInvalidTask, t.StartURL, err)
	}
	if err := validateClock(t); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidTask, err)
	}
	if _, _, err := TaskPolicy(*t); err != nil {
		return fmt.Errorf("%w: redact: %v", ErrInvalidTask, err)
	}
	if c := t.Check; c != nil {
		switch c.Kind {
		case action.CheckKindAnswer:
			if strings.TrimSpace(c.Answer) == "" {
				return fmt.Errorf("%w: the answer check has no expected answer", ErrInvalidTask)
			}
		case action.CheckKindURL:
			if strings.TrimSpace(c.URL) == "" {
				return fmt.Errorf("%w: the URL check has no pattern", ErrInvalidTask)
			}
			if _, err := regexp.Compile(c.URL); err != nil {
				return fmt.Errorf("%w: the URL check's pattern %q is not a valid regular expression: %v", ErrInvalidTask, c.URL, err)
			}
		case action.CheckKindJS:
			if strings.TrimSpace(c.JS) == "" {
				return fmt.Errorf("%w: the page check has no JavaScript expression", ErrInvalidTask)
			}
		default:
			return fmt.Errorf("%w: unknown check kind %q; use answer, url or js", ErrInvalidTask, c.Kind)
		}
	}
	return nil
}

func checkJSON(c *action.Check) (any, error) {
	if c == nil {
		return nil, nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// AddTask validates and stores a new task and returns it with its id and
// times. A task with the same goal and start URL is refused with
// ErrDuplicateTask.
func (s *Store) AddTask(ctx context.Context, t Task) (Task, error) {
	if err := ValidateTask(&t); err != nil {
		return Task{}, err
	}
	if t.ID == "" {
		t.ID = uuid.NewString()
	}
	cj, err := checkJSON(t.Check)
	if err != nil {
		return Task{}, err
	}
	ts := now()
	res, err := s.db.ExecContext(ctx, `INSERT INTO tasks (id, goal, category, start_url, source, source_id, check_json, keep_secrets, reference_time, timezone, locale, archived, created_at, updated_at, manifest_json, grader_key, redact)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (goal, start_url, grader_key) DO NOTHING`,
		t.ID, t.Goal, t.Category, t.StartURL, t.Source, t.SourceID, cj, t.KeepSecrets, refTimeValue(t.ReferenceTime), t.Timezone, t.Locale, t.Archived, ts, ts, manifestJSON(t.Manifest), graderKey(t), t.Redact)
	if err != nil {
		return Task{}, s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Task{}, fmt.Errorf("%w: %q at %s", ErrDuplicateTask, t.Goal, t.StartURL)
	}
	t.CreatedAt, t.UpdatedAt = ParseTime(ts), ParseTime(ts)
	return t, nil
}

// UpdateTask changes a task's goal, category, start URL, source, check,
// whether it keeps secrets, and its reference time, time zone and locale.
func (s *Store) UpdateTask(ctx context.Context, t Task) error {
	if err := ValidateTask(&t); err != nil {
		return err
	}
	cj, err := checkJSON(t.Check)
	if err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE tasks SET goal=?, category=?, start_url=?, source=?, source_id=?, check_json=?, keep_secrets=?, reference_time=?, timezone=?, locale=?, redact=?, updated_at=? WHERE id=?`,
		t.Goal, t.Category, t.StartURL, t.Source, t.SourceID, cj, t.KeepSecrets, refTimeValue(t.ReferenceTime), t.Timezone, t.Locale, t.Redact, now(), t.ID)
	if err != nil {
		if isUniqueViolation(err) {
			return fmt.Errorf("%w: %q at %s", ErrDuplicateTask, t.Goal, t.StartURL)
		}
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("task %s: %w", t.ID, ErrNotFound)
	}
	return nil
}

// ArchiveTask hides a task from the lists (archived=true) or brings it back.
// Archiving keeps the task and all its episodes.
func (s *Store) ArchiveTask(ctx context.Context, id string, archived bool) error {
	res, err := s.db.ExecContext(ctx, `UPDATE tasks SET archived=?, updated_at=? WHERE id=?`, archived, now(), id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteTask removes a task that has no episodes. A task with episodes is
// refused with ErrTaskHasEpisodes: archive it instead.
func (s *Store) DeleteTask(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.explainWriteError(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM episodes WHERE task_id=?`, id).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%w (%d); archive it instead, so its episodes keep their task", ErrTaskHasEpisodes, n)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE id=?`, id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	return s.explainWriteError(tx.Commit())
}

const taskColumns = `t.id, t.goal, t.category, t.start_url, t.source, t.source_id, t.check_json, t.keep_secrets, t.reference_time, t.timezone, t.locale, t.archived, t.created_at, t.updated_at, t.manifest_json, t.redact`

func scanTask(sc interface{ Scan(...any) error }, extra ...any) (Task, error) {
	var t Task
	var cj, mj sql.NullString
	var created, updated, ref string
	dest := append([]any{&t.ID, &t.Goal, &t.Category, &t.StartURL, &t.Source, &t.SourceID, &cj, &t.KeepSecrets, &ref, &t.Timezone, &t.Locale, &t.Archived, &created, &updated, &mj, &t.Redact}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return Task{}, err
	}
	if cj.Valid && cj.String != "" {
		var c action.Check
		if err := json.Unmarshal([]byte(cj.String), &c); err == nil {
			t.Check = &c
		}
	}
	t.ReferenceTime = parseRefTimeColumn(ref)
	t.CreatedAt, t.UpdatedAt = ParseTime(created), ParseTime(updated)
	t.Manifest = parseManifestColumn(mj)
	return t, nil
}

// GetTask reads one task; a missing id gives an error wrapping ErrNotFound.
func (s *Store) GetTask(ctx context.Context, id string) (Task, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, fmt.Errorf("task %s: %w", id, ErrNotFound)
	}
	return t, err
}

// FindTask returns the task with this goal and start URL, if any.
func (s *Store) FindTask(ctx context.Context, goal, startURL string) (Task, bool, error) {
	t, err := scanTask(s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.goal=? AND t.start_url=? ORDER BY t.grader_key <> '', t.created_at, t.rowid`,
		strings.TrimSpace(goal), strings.TrimSpace(startURL)))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, false, nil
	}
	return t, err == nil, err
}

// EnsureTask returns the stored task with t's goal and start URL, or adds t
// (see AddTask) when there is none. When another program adds the same task
// between the look-up and the insert, the task it added is returned.
func (s *Store) EnsureTask(ctx context.Context, t Task) (Task, error) {
	if have, ok, err := s.FindTask(ctx, t.Goal, t.StartURL); err != nil || ok {
		return have, err
	}
	added, err := s.AddTask(ctx, t)
	if errors.Is(err, ErrDuplicateTask) { // added meanwhile by another program
		if have, ok, ferr := s.FindTask(ctx, t.Goal, t.StartURL); ferr == nil && ok {
			return have, nil
		}
	}
	return added, err
}

// TaskFilter selects tasks. Zero values select everything not archived.
type TaskFilter struct {
	Category string
	Source   string
	// Archived: false lists active tasks, true lists archived ones.
	Archived bool
	// NotDemonstrated keeps tasks with no finished episode by a person
	// (agent rollouts, annotator "agent:…", do not count).
	NotDemonstrated bool
	// Search matches the goal, the start URL or the source (case-insensitive
	// substring).
	Search string
	// UndoneFirst lists the tasks not yet demonstrated before the others.
	UndoneFirst   bool
	Limit, Offset int
}

func (f TaskFilter) where() (string, []any) {
	conds := []string{"t.archived = ?"}
	args := []any{f.Archived}
	if f.Category != "" {
		conds = append(conds, "t.category = ?")
		args = append(args, f.Category)
	}
	if f.Source != "" {
		conds = append(conds, "t.source = ?")
		args = append(args, f.Source)
	}
	if f.NotDemonstrated {
		conds = append(conds, "NOT EXISTS ("+demonstratedEpisodes+")")
	}
	if q := strings.TrimSpace(f.Search); q != "" {
		like := "%" + escapeLike(strings.ToLower(q)) + "%"
		conds = append(conds, `(lower(t.goal) LIKE ? ESCAPE '\' OR lower(t.start_url) LIKE ? ESCAPE '\' OR lower(t.source) LIKE ? ESCAPE '\')`)
		args = append(args, like, like, like)
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// TaskItem is a task in a list, with how often it was demonstrated.
type TaskItem struct {
	Task
	// Episodes counts all the task's episodes; Demonstrations the finished
	// ones by people.
	Episodes, Demonstrations int
}

// ListTasks lists tasks, sorted by category (canonical order), then source
// and goal; with f.UndoneFirst the tasks not yet demonstrated come first.
func (s *Store) ListTasks(ctx context.Context, f TaskFilter) ([]TaskItem, error) {
	where, args := f.where()
	q := `SELECT ` + taskColumns + `,
		(SELECT COUNT(*) FROM episodes e WHERE e.task_id = t.id),
		(SELECT COUNT(*) FROM episodes e WHERE e.task_id = t.id AND e.status = 'finished' AND e.annotator NOT LIKE 'agent:%')
		FROM tasks t` + where + `
		ORDER BY `
	if f.UndoneFirst {
		q += `EXISTS (` + demonstratedEpisodes + `), `
	}
	q += `CASE t.category WHEN 'information' THEN 0 WHEN 'navigation' THEN 1 ELSE 2 END, t.source, t.goal`
	q, args = limitOffset(q, args, f.Limit, f.Offset)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TaskItem
	for rows.Next() {
		var it TaskItem
		t, err := scanTask(rows, &it.Episodes, &it.Demonstrations)
		if err != nil {
			return nil, err
		}
		it.Task = t
		out = append(out, it)
	}
	return out, rows.Err()
}

func limitOffset(q string, args []any, limit, offset int) (string, []any) {
	if limit > 0 || offset > 0 {
		if limit <= 0 {
			limit = -1
		}
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return q, args
}

// TaskCounts counts the tasks a filter selects (Limit and Offset ignored).
type TaskCounts struct {
	Total           int
	ByCategory      map[string]int
	BySource        map[string]int
	Demonstrated    int
	NotDemonstrated int
}

// CountTasks counts the tasks f selects by category, by source and by
// whether a person demonstrated them.
func (s *Store) CountTasks(ctx context.Context, f TaskFilter) (TaskCounts, error) {
	f.Limit, f.Offset = 0, 0
	where, args := f.where()
	rows, err := s.db.QueryContext(ctx, `SELECT t.category, t.source, EXISTS (`+demonstratedEpisodes+`), COUNT(*) FROM tasks t`+where+
		` GROUP BY 1, 2, 3`, args...)
	if err != nil {
		return TaskCounts{}, err
	}
	defer rows.Close()
	c := TaskCounts{ByCategory: map[string]int{}, BySource: map[string]int{}}
	for rows.Next() {
		var cat, src string
		var demo bool
		var n int
		if err := rows.Scan(&cat, &src, &demo, &n); err != nil {
			return TaskCounts{}, err
		}
		c.Total += n
		c.ByCategory[cat] += n
		c.BySource[src] += n
		if demo {
			c.Demonstrated += n
		} else {
			c.NotDemonstrated += n
		}
	}
	return c, rows.Err()
}

// Sources lists the distinct task sources, for a filter menu.
func (s *Store) Sources(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT source FROM tasks ORDER BY source`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func isUniqueViolation(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintUnique
}
