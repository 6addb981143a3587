package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// The copy of a merge, table by table, inside one transaction (see
// merge.go).

// merger copies one attached file into this store.
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
	for _, step := range []func() error{m.keyless, m.tasks, m.episodes, m.steps, m.harChunks, m.archive, m.edits, m.guidelineVersions, m.reviews, m.stepLabels, m.replayRuns, m.guidelines} {
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

// keylessRows are the tables whose id SQLite lets be NULL (a TEXT primary
// key without NOT NULL), with the report's name of a row and a description
// of one from columns every schema has.
var keylessRows = []struct{ table, kind, describe string }{
	{"tasks", "task", `printf('%s at %s', json_quote(goal), start_url)`},
	{"episodes", "episode", `printf('annotator %s, started %s', json_quote(annotator), started_at)`},
	{"reviews", "review", `printf('of episode %s by %s, %s', episode_id, json_quote(reviewer), created_at)`},
	{"replay_runs", "replay run", `printf('of episode %s, started %s', episode_id, started_at)`},
}

// keyless names the other file's rows without an id (a file edited by
// hand, or by another program, may have them): no such row can be matched
// with a row of this store or be pointed to, so none is copied, and each is
// in the report rather than left out unsaid.
func (m *merger) keyless() error {
	for _, k := range keylessRows {
		if !contains(m.cols[k.table], "id") {
			continue
		}
		rows, err := m.tx.QueryContext(m.ctx, `SELECT rowid, `+k.describe+` FROM src.`+k.table+` WHERE id IS NULL ORDER BY rowid`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var rowid int64
			var what string
			if err := rows.Scan(&rowid, &what); err != nil {
				rows.Close()
				return err
			}
			m.issue(k.kind, "(no id)", fmt.Sprintf("row %d of the other file's %s has no id (%s)", rowid, k.table, what),
				"not copied: a row without an id cannot be told from any other; give it one in the other file and merge again")
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
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

func (m *merger) tasks() error {
	cols := m.cols["tasks"]
	type srcTask struct{ id, goal, url string }
	var list []srcTask
	rows, err := m.tx.QueryContext(m.ctx, `SELECT id, goal, start_url FROM src.tasks WHERE id IS NOT NULL ORDER BY created_at, id`)
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
	if _, err := m.exec(`INSERT INTO merge_new_eps (id) SELECT id FROM src.episodes s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.episodes t WHERE t.id = s.id)`); err != nil {
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

// archive copies the replay archives of new and identical episodes: their
// chunks as the HAR's, and the bodies they use that this store lacks (a
// body is the same wherever its SHA-256 is).
func (m *merger) archive() error {
	if len(m.cols["archive_chunks"]) == 0 || len(m.cols["bodies"]) == 0 || len(m.cols["archive_bodies"]) == 0 {
		return nil // the other file's schema predates the archive
	}
	eps := `(SELECT id FROM temp.merge_new_eps UNION SELECT id FROM temp.merge_same_eps)`
	used := `(SELECT sha256 FROM src.archive_bodies WHERE episode_id IN ` + eps + `)`
	all, err := m.count(`SELECT COUNT(*) FROM src.bodies WHERE sha256 IN ` + used)
	if err != nil {
		return err
	}
	n, err := m.exec(`INSERT OR IGNORE INTO main.bodies (sha256, size, data, created_at) SELECT sha256, size, data, created_at FROM src.bodies WHERE sha256 IN ` + used)
	if err != nil {
		return fmt.Errorf("copy the archives' bodies: %w", err)
	}
	m.rep.Added["bodies"] += int(n)
	m.rep.Identical["bodies"] += all - int(n)
	if _, err := m.exec(`INSERT OR IGNORE INTO main.archive_bodies (episode_id, sha256) SELECT episode_id, sha256 FROM src.archive_bodies
		WHERE episode_id IN ` + eps + ` AND sha256 IN (SELECT sha256 FROM main.bodies)`); err != nil {
		return fmt.Errorf("copy the archives' bodies: %w", err)
	}
	return m.appendRows("archive_chunks")
}
func (m *merger) edits() error { return m.appendRows("episode_edits") }

// byID copies the rows of table whose id this store lacks and compares the
// others (leaving out the columns in ignore), reporting those that differ.
func (m *merger) byID(table, kind string, ignore []string) error {
	cols := m.cols[table]
	if len(cols) == 0 {
		return nil
	}
	list := colList(cols, "", nil, nil)
	n, err := m.exec(`INSERT INTO main.` + table + ` (` + list + `) SELECT ` + colList(cols, "s", nil, nil) + ` FROM src.` + table + ` s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.` + table + ` t WHERE t.id = s.id) ORDER BY s.rowid`)
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
	if _, err := m.exec(`INSERT INTO merge_review_eps (id) SELECT DISTINCT episode_id FROM src.reviews s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.reviews t WHERE t.id = s.id)`); err != nil {
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
