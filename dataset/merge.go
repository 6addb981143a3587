package dataset

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
)

// Merging another annotator's store into this one (waymark merge, and
// "Merge a colleague's database" in the app).
//
// The other file is attached read-only to one connection of this store and
// everything is copied with INSERT … SELECT inside one transaction, so a
// failure (or a cancel) leaves this store as it was, and the screenshots
// pass from file to file inside SQLite: memory does not grow with the
// number of steps. Every table is copied with the columns both files have
// (PRAGMA table_info), so a column added by a later migration merges without
// a change here, and a store of an older schema merges too (the columns it
// lacks get their defaults). A store of a newer schema is refused.
//
// What is the same row, and what happens when the two differ:
//
//   - Tasks are the same by id, else by goal and start URL (every store gets
//     the practice pack with ids of its own). A task defined differently in
//     the two files (check, category, clock, archived, …) stays one task
//     with this store's definition; the other file's episodes of it are
//     merged under it, and the report lists each differing field with both
//     values.
//   - Episodes are the same by id. A new episode comes with its steps
//     (screenshots, extras, targets, notes), HAR chunks, audit log, reviews
//     (with their step labels) and replay runs. An episode in both files
//     whose row or steps differ (resumed, edited or relabelled on one
//     machine only) keeps this store's row, steps and audit log, and the
//     report says which fields and steps differ; the other file's reviews
//     and replay runs of it are still added.
//   - Reviews, replay runs are the same by id; a review's step labels by
//     their review and step; audit-log rows and HAR chunks
//     (numbered per file) by their content. A review edited on two machines
//     keeps every version as history: of the versions that were current in
//     either file, the newest (by time, then id) is current, and the report
//     lists the episode.
//   - The review guidelines are taken from the other file when this store
//     has none of its own (only the default); where both have their own
//     and they differ, this store's stay and the report says so.
//
// Merging the same file twice adds nothing.

// MergeReport says what a merge of one file did.
type MergeReport struct {
	Source string
	// Added and Identical count rows by table: rows copied, and rows that
	// were already here with the same content.
	Added, Identical map[string]int
	// Issues are the rows that differ between the two files, with what the
	// merge did about them.
	Issues []MergeIssue
	// GuidelinesTaken: this store had no review guidelines of its own and
	// the other file's were copied.
	GuidelinesTaken bool
}

// MergeIssue is one row the two files hold in different versions.
type MergeIssue struct {
	// Kind is "task", "episode", "review" or "replay run"; ID the row's id
	// in this store.
	Kind, ID string
	// Detail says what differs; Resolution what the merge kept.
	Detail, Resolution string
}

func (i MergeIssue) String() string {
	return fmt.Sprintf("%s %s: %s; %s", i.Kind, i.ID, i.Detail, i.Resolution)
}

// MergeProgress is reported while steps are copied.
type MergeProgress struct {
	Source string
	// Steps copied so far of TotalSteps.
	Steps, TotalSteps int
}

// MergeOptions tune a merge.
type MergeOptions struct {
	// Progress, if set, is called after every chunk of MergeChunk steps and
	// once at the end, from the merging goroutine.
	Progress func(MergeProgress)
}

// MergeChunk is how many steps are copied between progress reports.
const MergeChunk = 1000

// Errors of Merge; the messages say what to do.
var (
	ErrMergeSelf          = errors.New("this is the database Waymark has open: choose another annotator's database file")
	ErrMergeOpenElsewhere = errors.New("the database is open in another program")
)

// mergeTables are the tables a merge copies, in this order.
var mergeTables = []string{"tasks", "episodes", "steps", "har_chunks", "episode_edits", "reviews", "replay_runs", "step_labels"}

// Merge copies the store at path into s (see above). It never writes to the
// file at path.
func (s *Store) Merge(ctx context.Context, path string, opts MergeOptions) (MergeReport, error) {
	rep := MergeReport{Source: path, Added: map[string]int{}, Identical: map[string]int{}}
	if err := checkMergeSource(path); err != nil {
		return rep, err
	}
	if err := s.checkNoLiveRecording(ctx); err != nil {
		return rep, err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return rep, s.explainWriteError(err)
	}
	defer conn.Close()
	abs, _ := filepath.Abs(path)
	uri := (&url.URL{Scheme: "file", Path: abs}).String() + "?mode=ro"
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS src`, uri); err != nil {
		return rep, explainMergeOpen(path, err)
	}
	defer detachSource(conn)
	if err := checkMergeSchema(ctx, conn, path); err != nil {
		return rep, err
	}
	// The transaction ends by the deferred Rollback (or the Commit), not by
	// ctx: a transaction begun with ctx is rolled back by database/sql on a
	// goroutine of its own when ctx ends, which raced the source's detach
	// (a source still attached refused the next merge: "database src is
	// already in use"). The statements still stop with ctx.
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return rep, s.explainWriteError(err)
	}
	defer tx.Rollback()
	m := &merger{ctx: ctx, tx: tx, rep: &rep, opts: opts, path: path}
	if err := m.run(); err != nil {
		if ctx.Err() != nil {
			return rep, fmt.Errorf("merge of %s cancelled: nothing was changed", path)
		}
		return rep, fmt.Errorf("merge of %s failed, nothing was changed: %w", path, s.explainWriteError(err))
	}
	if err := tx.Commit(); err != nil {
		return rep, fmt.Errorf("merge of %s failed, nothing was changed: %w", path, s.explainWriteError(err))
	}
	return rep, nil
}

// detachSource detaches the merge's source from conn; a connection it
// cannot be detached from is closed rather than returned to the pool, so no
// later statement or merge finds the source there.
func detachSource(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), `DETACH DATABASE src`); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// ErrMergeWhileRecording refuses a merge into a store an episode is being
// recorded into: the merge holds the store for writing until it commits,
// and a recorded step must never wait for that (nor fail).
var ErrMergeWhileRecording = errors.New("an episode is being recorded into this database")

// checkNoLiveRecording refuses while an episode of this store is recording
// in a live process (this one, or another program on the file such as
// waymark serve --record; see ownerAlive).
func (s *Store) checkNoLiveRecording(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT owner, COALESCE((SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
		FROM episodes WHERE status='recording'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, last string
		if err := rows.Scan(&owner, &last); err != nil {
			return err
		}
		if owner == s.owner || ownerAlive(owner, ParseTime(last)) {
			return fmt.Errorf("cannot merge now: %w (by this Waymark or another program); finish or stop that episode, then merge", ErrMergeWhileRecording)
		}
	}
	return rows.Err()
}

// checkMergeSource refuses files a merge must not read: this process's own
// stores (their files are opened only by SQLite, see IsStoreFile), SQLite's
// side files, and a store another program has open.
func checkMergeSource(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("cannot merge %s: %w", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("cannot merge %s: it is a folder; choose the other annotator's database file (waymark.db)", path)
	}
	if IsStoreFile(path) {
		return fmt.Errorf("cannot merge %s: %w", path, ErrMergeSelf)
	}
	if IsSQLiteSidecar(path) {
		return fmt.Errorf("cannot merge %s: it is one of SQLite's side files; choose the database file beside it", path)
	}
	if openElsewhere(path) {
		return fmt.Errorf("cannot merge %s: %w (a Waymark recording or reviewing with it, or a backup tool): "+
			"close it there, or copy the file after closing it, and merge again; nothing was changed", path, ErrMergeOpenElsewhere)
	}
	return nil
}

// openElsewhere reports whether another process has the database at path
// open. Every SQLite connection to a database in write-ahead-log mode holds
// a shared lock on byte 128 of its -shm file (the "dead man switch") for as
// long as it is open, and a connection in rollback mode holds a lock on the
// database file's lock bytes while it reads or writes; F_GETLK asks the
// kernel about other processes' locks without taking any. Opening and
// closing these files here is safe only because no store of this process
// has them open (checkMergeSource refused that first).
func openElsewhere(path string) bool {
	probe := func(file string, start, n int64) bool {
		f, err := os.Open(file)
		if err != nil {
			return false
		}
		defer f.Close()
		lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: start, Len: n}
		if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
			return false
		}
		return lk.Type != syscall.F_UNLCK
	}
	const pendingByte = 0x40000000
	return probe(path+"-shm", 128, 1) || probe(path, pendingByte, 512)
}

func explainMergeOpen(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not a database"), strings.Contains(msg, "unsupported file format"):
		return fmt.Errorf("cannot merge %s: %w (%v); choose another annotator's Waymark database file", path, ErrNotDatabase, err)
	case strings.Contains(msg, "malformed"):
		return fmt.Errorf("cannot merge %s: the file is damaged (%v); ask for a fresh copy of it", path, err)
	case strings.Contains(msg, "locked"), strings.Contains(msg, "busy"):
		return fmt.Errorf("cannot merge %s: %w; close it there and merge again", path, ErrMergeOpenElsewhere)
	}
	return fmt.Errorf("cannot merge %s: %w", path, err)
}

// checkMergeSchema refuses an attached file that is no Waymark store or was
// written by a newer Waymark.
func checkMergeSchema(ctx context.Context, conn *sql.Conn, path string) error {
	var v int
	if err := conn.QueryRowContext(ctx, `PRAGMA src.user_version`).Scan(&v); err != nil {
		return explainMergeOpen(path, err)
	}
	if v > SchemaVersion {
		return fmt.Errorf("cannot merge %s: %w (schema %d, this program knows up to %d); update Waymark here, then merge again (nothing was changed)",
			path, ErrNewerSchema, v, SchemaVersion)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM src.sqlite_master WHERE type='table' AND name IN ('tasks','episodes','steps','reviews')`).Scan(&n); err != nil {
		return explainMergeOpen(path, err)
	}
	if v == 0 || n < 4 {
		return fmt.Errorf("cannot merge %s: %w (it has no Waymark tables); choose another annotator's Waymark database file", path, ErrNotDatabase)
	}
	return nil
}

type merger struct {
	ctx  context.Context
	tx   *sql.Tx
	rep  *MergeReport
	opts MergeOptions
	path string
	// cols are the columns of each table both files have, in this store's
	// order; a table the other file lacks has none.
	cols map[string][]string
}

func (m *merger) exec(q string, args ...any) (int64, error) {
	r, err := m.tx.ExecContext(m.ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (m *merger) count(q string, args ...any) (int, error) {
	var n int
	err := m.tx.QueryRowContext(m.ctx, q, args...).Scan(&n)
	return n, err
}

func (m *merger) issue(kind, id, detail, resolution string) {
	m.rep.Issues = append(m.rep.Issues, MergeIssue{Kind: kind, ID: id, Detail: detail, Resolution: resolution})
}

func (m *merger) run() error {
	if _, err := m.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	m.cols = map[string][]string{}
	for _, t := range mergeTables {
		c, err := m.shared(t)
		if err != nil {
			return err
		}
		m.cols[t] = c
	}
	for _, q := range []string{
		`CREATE TEMP TABLE IF NOT EXISTS merge_task_map (src TEXT PRIMARY KEY, dst TEXT NOT NULL)`,
		`CREATE TEMP TABLE IF NOT EXISTS merge_new_eps (id TEXT PRIMARY KEY)`,
		`CREATE TEMP TABLE IF NOT EXISTS merge_same_eps (id TEXT PRIMARY KEY)`,
		`CREATE TEMP TABLE IF NOT EXISTS merge_review_eps (id TEXT PRIMARY KEY)`,
		`DELETE FROM merge_task_map`, `DELETE FROM merge_new_eps`, `DELETE FROM merge_same_eps`, `DELETE FROM merge_review_eps`,
	} {
		if _, err := m.exec(q); err != nil {
			return err
		}
	}
	for _, step := range []func() error{m.tasks, m.episodes, m.steps, m.harChunks, m.edits, m.reviews, m.stepLabels, m.replayRuns, m.guidelines} {
		if err := step(); err != nil {
			return err
		}
		if err := m.ctx.Err(); err != nil {
			return err
		}
	}
	// The deferred foreign keys are checked at commit; say which first.
	rows, err := m.tx.QueryContext(m.ctx, `PRAGMA main.foreign_key_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		return fmt.Errorf("a row of %s in the other file points to a %s row it does not have (the file may be damaged or cut short)", table, parent)
	}
	return rows.Err()
}

// shared returns the columns table has in both files, in this store's order.
func (m *merger) shared(table string) ([]string, error) {
	list := func(schema string) ([]string, error) {
		rows, err := m.tx.QueryContext(m.ctx, `SELECT name FROM pragma_table_info(?, ?) ORDER BY cid`, table, schema)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, rows.Err()
	}
	mine, err := list("main")
	if err != nil {
		return nil, err
	}
	theirs, err := list("src")
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, c := range theirs {
		have[c] = true
	}
	var out []string
	for _, c := range mine {
		if have[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

// colList joins columns as "p.a, p.b" (prefix p may be empty), leaving out
// the ones in skip and replacing those in repl by an expression.
func colList(cols []string, prefix string, skip []string, repl map[string]string) string {
	var b []string
	for _, c := range cols {
		if contains(skip, c) {
			continue
		}
		if e, ok := repl[c]; ok {
			b = append(b, e)
			continue
		}
		if prefix != "" {
			b = append(b, prefix+`."`+c+`"`)
		} else {
			b = append(b, `"`+c+`"`)
		}
	}
	return strings.Join(b, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameExpr is a SQL condition true when a and b agree on every column of
// cols except skip.
func sameExpr(cols []string, a, b string, skip []string) string {
	var parts []string
	for _, c := range cols {
		if contains(skip, c) {
			continue
		}
		parts = append(parts, fmt.Sprintf(`%s."%s" IS %s."%s"`, a, c, b, c))
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, " AND ")
}

// rowValues reads one row of cols as values, for comparing in Go.
func (m *merger) rowValues(q string, n int, args ...any) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	err := m.tx.QueryRowContext(m.ctx, q, args...).Scan(ptrs...)
	return vals, err
}

// diffFields lists the columns whose values differ, with both values (long
// ones cut).
func diffFields(cols []string, here, there []any, skip []string) []string {
	var out []string
	for i, c := range cols {
		if contains(skip, c) || reflect.DeepEqual(norm(here[i]), norm(there[i])) {
			continue
		}
		out = append(out, fmt.Sprintf("%s is %s here and %s there", c, short(here[i]), short(there[i])))
	}
	return out
}

func norm(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

func short(v any) string {
	if v == nil {
		return "empty"
	}
	s := fmt.Sprint(norm(v))
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func (m *merger) tasks() error {
	cols := m.cols["tasks"]
	type srcTask struct{ id, goal, url string }
	var list []srcTask
	rows, err := m.tx.QueryContext(m.ctx, `SELECT id, goal, start_url FROM src.tasks ORDER BY created_at, id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var t srcTask
		if err := rows.Scan(&t.id, &t.goal, &t.url); err != nil {
			rows.Close()
			return err
		}
		list = append(list, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	sel := `SELECT ` + colList(cols, "", nil, nil) + ` FROM %s.tasks WHERE id=?`
	skip := []string{"id", "created_at", "updated_at"}
	for _, t := range list {
		var dst string
		err := m.tx.QueryRowContext(m.ctx, `SELECT id FROM main.tasks WHERE id=?`, t.id).Scan(&dst)
		if errors.Is(err, sql.ErrNoRows) {
			err = m.tx.QueryRowContext(m.ctx, `SELECT id FROM main.tasks WHERE goal=? AND start_url=?`, t.goal, t.url).Scan(&dst)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := m.exec(`INSERT INTO main.tasks (`+colList(cols, "", nil, nil)+`) SELECT `+colList(cols, "", nil, nil)+` FROM src.tasks WHERE id=?`, t.id); err != nil {
				return fmt.Errorf("copy task %s: %w", t.id, err)
			}
			m.rep.Added["tasks"]++
			dst = t.id
		case err != nil:
			return err
		default:
			here, err := m.rowValues(fmt.Sprintf(sel, "main"), len(cols), dst)
			if err != nil {
				return err
			}
			there, err := m.rowValues(fmt.Sprintf(sel, "src"), len(cols), t.id)
			if err != nil {
				return err
			}
			if d := diffFields(cols, here, there, skip); len(d) > 0 {
				m.issue("task", dst, fmt.Sprintf("%q is defined differently in the two files: %s", t.goal, strings.Join(d, "; ")),
					"this database's definition is kept and the other file's episodes of it are merged under it")
			} else {
				m.rep.Identical["tasks"]++
			}
		}
		if _, err := m.exec(`INSERT INTO merge_task_map (src, dst) VALUES (?, ?)`, t.id, dst); err != nil {
			return err
		}
	}
	return nil
}

func (m *merger) episodes() error {
	cols := m.cols["episodes"]
	if _, err := m.exec(`INSERT INTO merge_new_eps (id) SELECT id FROM src.episodes WHERE id NOT IN (SELECT id FROM main.episodes)`); err != nil {
		return err
	}
	taskExpr := map[string]string{"task_id": `(SELECT dst FROM temp.merge_task_map WHERE src = s.task_id)`}
	n, err := m.exec(`INSERT INTO main.episodes (` + colList(cols, "", nil, nil) + `) SELECT ` + colList(cols, "s", nil, taskExpr) +
		` FROM src.episodes s WHERE s.id IN (SELECT id FROM temp.merge_new_eps) ORDER BY s.started_at, s.id`)
	if err != nil {
		return fmt.Errorf("copy episodes: %w", err)
	}
	m.rep.Added["episodes"] += int(n)

	// Episodes in both files: the row (its task mapped) and every step but
	// the cached thumbnail must agree.
	stepCols := m.cols["steps"]
	stepSame := sameExpr(stepCols, "s", "t", []string{"thumb"})
	diffSteps := map[string][]int{}
	q := `SELECT s.episode_id, s.idx FROM src.steps s JOIN main.episodes e ON e.id = s.episode_id
		LEFT JOIN main.steps t ON t.episode_id = s.episode_id AND t.idx = s.idx
		WHERE s.episode_id NOT IN (SELECT id FROM temp.merge_new_eps) AND (t.idx IS NULL OR NOT (` + stepSame + `))
		UNION SELECT t.episode_id, t.idx FROM main.steps t JOIN src.episodes e ON e.id = t.episode_id
		WHERE t.episode_id NOT IN (SELECT id FROM temp.merge_new_eps)
		  AND NOT EXISTS (SELECT 1 FROM src.steps s WHERE s.episode_id = t.episode_id AND s.idx = t.idx)
		ORDER BY 1, 2`
	rows, err := m.tx.QueryContext(m.ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		var idx int
		if err := rows.Scan(&id, &idx); err != nil {
			rows.Close()
			return err
		}
		diffSteps[id] = append(diffSteps[id], idx)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	sel := colList(cols, "", nil, nil)
	rows, err = m.tx.QueryContext(m.ctx, `SELECT s.id FROM src.episodes s JOIN main.episodes t ON t.id = s.id
		WHERE s.id NOT IN (SELECT id FROM temp.merge_new_eps) ORDER BY s.id`)
	if err != nil {
		return err
	}
	var both []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		both = append(both, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range both {
		here, err := m.rowValues(`SELECT `+sel+` FROM main.episodes WHERE id=?`, len(cols), id)
		if err != nil {
			return err
		}
		there, err := m.rowValues(`SELECT `+colList(cols, "s", nil, taskExpr)+` FROM src.episodes s WHERE s.id=?`, len(cols), id)
		if err != nil {
			return err
		}
		d := diffFields(cols, here, there, nil)
		if st := diffSteps[id]; len(st) > 0 {
			d = append(d, "steps "+intList(st)+" differ")
		}
		if len(d) > 0 {
			m.issue("episode", id, "the two files hold different versions: "+strings.Join(d, "; "),
				"this database's episode, steps and audit log are kept; the other file's reviews and replay runs of it are added")
			continue
		}
		if _, err := m.exec(`INSERT INTO merge_same_eps (id) VALUES (?)`, id); err != nil {
			return err
		}
		m.rep.Identical["episodes"]++
	}
	nSteps, err := m.count(`SELECT COUNT(*) FROM src.steps WHERE episode_id IN (SELECT id FROM temp.merge_same_eps)`)
	if err != nil {
		return err
	}
	m.rep.Identical["steps"] += nSteps
	return nil
}

func intList(xs []int) string {
	var b []string
	for i, x := range xs {
		if i == 8 {
			b = append(b, fmt.Sprintf("… (%d in all)", len(xs)))
			break
		}
		b = append(b, fmt.Sprint(x))
	}
	return strings.Join(b, ", ")
}

// steps copies the steps of new episodes MergeChunk at a time, in the other
// file's row order, reporting progress after each chunk.
func (m *merger) steps() error {
	cols := colList(m.cols["steps"], "", nil, nil)
	total, err := m.count(`SELECT COUNT(*) FROM src.steps WHERE episode_id IN (SELECT id FROM temp.merge_new_eps)`)
	if err != nil {
		return err
	}
	done := 0
	var last int64 = -1 << 62
	for done < total {
		if err := m.ctx.Err(); err != nil {
			return err
		}
		var upto sql.NullInt64
		if err := m.tx.QueryRowContext(m.ctx, `SELECT MAX(r) FROM (SELECT rowid AS r FROM src.steps
			WHERE rowid > ? AND episode_id IN (SELECT id FROM temp.merge_new_eps) ORDER BY rowid LIMIT ?)`, last, MergeChunk).Scan(&upto); err != nil {
			return err
		}
		if !upto.Valid {
			break
		}
		n, err := m.exec(`INSERT INTO main.steps (`+cols+`) SELECT `+cols+` FROM src.steps
			WHERE rowid > ? AND rowid <= ? AND episode_id IN (SELECT id FROM temp.merge_new_eps) ORDER BY rowid`, last, upto.Int64)
		if err != nil {
			return fmt.Errorf("copy steps: %w", err)
		}
		last = upto.Int64
		done += int(n)
		if m.opts.Progress != nil {
			m.opts.Progress(MergeProgress{Source: m.path, Steps: done, TotalSteps: total})
		}
	}
	m.rep.Added["steps"] += done
	if m.opts.Progress != nil && total == 0 {
		m.opts.Progress(MergeProgress{Source: m.path})
	}
	return nil
}

// appendRows copies rows of table (numbered per file: the id column is left
// to this store) of new and identical episodes that this store does not
// have with the same content, in the other file's order.
func (m *merger) appendRows(table string) error {
	cols := m.cols[table]
	if len(cols) == 0 {
		return nil // the other file's schema predates the table
	}
	skip := []string{"id"}
	list := colList(cols, "", skip, nil)
	n, err := m.exec(`INSERT INTO main.` + table + ` (` + list + `) SELECT ` + colList(cols, "s", skip, nil) + ` FROM src.` + table + ` s
		WHERE (s.episode_id IN (SELECT id FROM temp.merge_new_eps) OR s.episode_id IN (SELECT id FROM temp.merge_same_eps))
		  AND NOT EXISTS (SELECT 1 FROM main.` + table + ` t WHERE t.episode_id = s.episode_id AND ` + sameExpr(cols, "s", "t", skip) + `)
		ORDER BY s.id`)
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	m.rep.Added[table] += int(n)
	all, err := m.count(`SELECT COUNT(*) FROM src.` + table + ` WHERE episode_id IN (SELECT id FROM temp.merge_new_eps) OR episode_id IN (SELECT id FROM temp.merge_same_eps)`)
	if err != nil {
		return err
	}
	m.rep.Identical[table] += all - int(n)
	return nil
}

func (m *merger) harChunks() error { return m.appendRows("har_chunks") }
func (m *merger) edits() error     { return m.appendRows("episode_edits") }

// byID copies the rows of table whose id this store lacks and compares the
// others (leaving out the columns in ignore), reporting those that differ.
func (m *merger) byID(table, kind string, ignore []string) error {
	cols := m.cols[table]
	if len(cols) == 0 {
		return nil
	}
	list := colList(cols, "", nil, nil)
	n, err := m.exec(`INSERT INTO main.` + table + ` (` + list + `) SELECT ` + colList(cols, "s", nil, nil) + ` FROM src.` + table + ` s
		WHERE s.id NOT IN (SELECT id FROM main.` + table + `) ORDER BY s.rowid`)
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	m.rep.Added[table] += int(n)
	rows, err := m.tx.QueryContext(m.ctx, `SELECT s.id, `+sameExpr(cols, "s", "t", ignore)+` FROM src.`+table+` s JOIN main.`+table+` t ON t.id = s.id`)
	if err != nil {
		return err
	}
	var differ []string
	same := 0
	for rows.Next() {
		var id string
		var eq bool
		if err := rows.Scan(&id, &eq); err != nil {
			rows.Close()
			return err
		}
		if eq {
			same++
		} else {
			differ = append(differ, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// The rows the INSERT above copied joined too.
	m.rep.Identical[table] += same - int(n)
	sel := `SELECT ` + list + ` FROM %s.` + table + ` WHERE id=?`
	for _, id := range differ {
		here, err := m.rowValues(fmt.Sprintf(sel, "main"), len(cols), id)
		if err != nil {
			return err
		}
		there, err := m.rowValues(fmt.Sprintf(sel, "src"), len(cols), id)
		if err != nil {
			return err
		}
		m.issue(kind, id, "the two files hold different versions: "+strings.Join(diffFields(cols, here, there, ignore), "; "),
			"this database's version is kept")
	}
	return nil
}

func (m *merger) replayRuns() error { return m.byID("replay_runs", "replay run", nil) }

// reviews copies reviews by id, then makes one version current per
// reviewer (and one settling label) per episode: a review edited on two
// machines has two current versions after the copy; the newest stays
// current and the other becomes its history.
func (m *merger) reviews() error {
	if _, err := m.exec(`INSERT INTO merge_review_eps (id) SELECT DISTINCT episode_id FROM src.reviews WHERE id NOT IN (SELECT id FROM main.reviews)`); err != nil {
		return err
	}
	if err := m.byID("reviews", "review", []string{"superseded_by"}); err != nil {
		return err
	}
	rows, err := m.tx.QueryContext(m.ctx, `SELECT id, episode_id, reviewer, settles FROM main.reviews
		WHERE superseded_by IS NULL AND episode_id IN (SELECT id FROM temp.merge_review_eps)
		ORDER BY episode_id, settles, CASE WHEN settles = 1 THEN '' ELSE reviewer END, created_at DESC, id DESC`)
	if err != nil {
		return err
	}
	type sup struct{ old, by, ep, who string }
	var ups []sup
	var key, head string
	for rows.Next() {
		var id, ep, who string
		var settles bool
		if err := rows.Scan(&id, &ep, &who, &settles); err != nil {
			rows.Close()
			return err
		}
		k := ep + "\x00" + who
		if settles {
			k, who = ep+"\x00\x01", "the settling label"
		}
		if k != key {
			key, head = k, id
			continue
		}
		ups = append(ups, sup{old: id, by: head, ep: ep, who: who})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, u := range ups {
		if _, err := m.exec(`UPDATE main.reviews SET superseded_by=? WHERE id=?`, u.by, u.old); err != nil {
			return err
		}
		m.issue("review", u.old, fmt.Sprintf("%s of episode %s was edited in both files", reviewerName(u.who), u.ep),
			fmt.Sprintf("both versions are kept as history; the newer one (%s) is current", u.by))
	}
	return nil
}

// stepLabels copies the step labels of the other file's reviews: a
// review's labels never change (an edit is a new review row), so a label
// is the same row by its review and step.
func (m *merger) stepLabels() error {
	cols := m.cols["step_labels"]
	if len(cols) == 0 {
		return nil // the other file's schema predates step labels
	}
	n, err := m.exec(`INSERT INTO main.step_labels (` + colList(cols, "", nil, nil) + `) SELECT ` + colList(cols, "s", nil, nil) + ` FROM src.step_labels s
		WHERE s.review_id IN (SELECT id FROM main.reviews)
		  AND NOT EXISTS (SELECT 1 FROM main.step_labels t WHERE t.review_id = s.review_id AND t.step_idx = s.step_idx)
		ORDER BY s.review_id, s.step_idx`)
	if err != nil {
		return fmt.Errorf("copy step labels: %w", err)
	}
	m.rep.Added["step_labels"] += int(n)
	all, err := m.count(`SELECT COUNT(*) FROM src.step_labels`)
	if err != nil {
		return err
	}
	m.rep.Identical["step_labels"] += all - int(n)
	return nil
}

// guidelines takes the other file's review guidelines where this store has
// none of its own, and reports them where both have their own and differ.
func (m *merger) guidelines() error {
	read := func(schema string) (string, error) {
		var v string
		err := m.tx.QueryRowContext(m.ctx, `SELECT value FROM `+schema+`.meta WHERE key=?`, guidelinesKey).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return strings.TrimSpace(v), err
	}
	there, err := read("src")
	if err != nil || there == "" {
		return err
	}
	here, err := read("main")
	if err != nil {
		return err
	}
	switch {
	case here == there:
	case here == "":
		if _, err := m.exec(`INSERT INTO main.meta (key, value) SELECT key, value FROM src.meta WHERE key=?
			ON CONFLICT (key) DO UPDATE SET value=excluded.value`, guidelinesKey); err != nil {
			return err
		}
		m.rep.GuidelinesTaken = true
	default:
		lines := func(s string) int { return strings.Count(s, "\n") + 1 }
		m.issue("guidelines", "review guidelines",
			fmt.Sprintf("the other file's review guidelines differ from this database's (%d lines there, %d here)", lines(there), lines(here)),
			"kept this database's; the other file's are not copied")
	}
	return nil
}

func reviewerName(who string) string {
	if who == "the settling label" {
		return who
	}
	return "the review by " + who
}

// Summary is the report in a few lines for people: what was added, what
// was already here, and every row the two files hold in different versions.
func (r MergeReport) Summary() string {
	var b strings.Builder
	names := map[string]string{"tasks": "tasks", "episodes": "episodes", "steps": "steps", "har_chunks": "network chunks",
		"episode_edits": "edits", "reviews": "reviews", "step_labels": "step labels", "replay_runs": "replay runs"}
	part := func(m map[string]int) string {
		var p []string
		for _, t := range mergeTables {
			p = append(p, fmt.Sprintf("%d %s", m[t], names[t]))
		}
		return strings.Join(p, ", ")
	}
	fmt.Fprintf(&b, "merged %s\n  added: %s\n  already here (identical): %s\n", r.Source, part(r.Added), part(r.Identical))
	if r.GuidelinesTaken {
		fmt.Fprintf(&b, "  review guidelines: taken from %s (this database had none of its own)\n", r.Source)
	}
	if len(r.Issues) == 0 {
		b.WriteString("  could not reconcile: nothing\n")
		return b.String()
	}
	issues := append([]MergeIssue(nil), r.Issues...)
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].Kind < issues[j].Kind })
	fmt.Fprintf(&b, "  could not reconcile (%d):\n", len(issues))
	for _, i := range issues {
		fmt.Fprintf(&b, "    - %s\n", i)
	}
	return b.String()
}
