package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// The copy of a merge inside one transaction (see merge.go): its order,
// the columns both files have, and the rows that belong to the episodes it
// copies (steps, HAR chunks, audit log, replay archives). Tasks and
// episodes are matched in merge_episodes.go, reviews and replay runs in
// merge_reviews.go; the tables are described in merge_tables.go.

// merger copies one attached file into this store.
type merger struct {
	ctx  context.Context
	tx   *sql.Tx
	rep  *MergeReport
	opts MergeOptions
	path string
	// cols are the columns of each of mergeTables both files have.
	cols map[string]mergeCols
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
	m.cols = map[string]mergeCols{}
	for _, t := range mergeTables {
		c, err := m.shared(t.name)
		if err != nil {
			return err
		}
		m.cols[t.name] = mergeCols{mergeTable: t, cols: c}
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

// keyless names the other file's rows without an id (a file edited by
// hand, or by another program, may have them): no such row can be matched
// with a row of this store or be pointed to, so none is copied, and each is
// in the report rather than left out unsaid.
func (m *merger) keyless() error {
	for _, k := range mergeTables {
		if k.describe == "" || !slices.Contains(m.cols[k.name].cols, "id") {
			continue
		}
		rows, err := m.tx.QueryContext(m.ctx, `SELECT rowid, `+k.describe+` FROM src.`+k.name+` WHERE id IS NULL ORDER BY rowid`)
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
			m.issue(k.kind, "(no id)", fmt.Sprintf("row %d of the other file's %s has no id (%s)", rowid, k.name, what),
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

// steps copies the steps of new episodes MergeChunk at a time, in the other
// file's row order, reporting progress after each chunk.
func (m *merger) steps() error {
	steps := m.cols["steps"]
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
		n, err := m.exec(`INSERT INTO main.steps (`+steps.into()+`) SELECT `+steps.from()+` FROM src.steps s
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
	t := m.cols[table]
	if len(t.cols) == 0 {
		return nil // the other file's schema predates the table
	}
	n, err := m.exec(`INSERT INTO main.` + table + ` (` + t.into() + `) SELECT ` + t.from() + ` FROM src.` + table + ` s
		WHERE (s.episode_id IN (SELECT id FROM temp.merge_new_eps) OR s.episode_id IN (SELECT id FROM temp.merge_same_eps))
		  AND NOT EXISTS (SELECT 1 FROM main.` + table + ` t WHERE t.episode_id = s.episode_id AND ` + t.same("s", "t") + `)
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
	bodies, uses := m.cols["bodies"], m.cols["archive_bodies"]
	if len(m.cols["archive_chunks"].cols) == 0 || len(bodies.cols) == 0 || len(uses.cols) == 0 {
		return nil // the other file's schema predates the archive
	}
	eps := `(SELECT id FROM temp.merge_new_eps UNION SELECT id FROM temp.merge_same_eps)`
	used := `(SELECT sha256 FROM src.archive_bodies WHERE episode_id IN ` + eps + `)`
	all, err := m.count(`SELECT COUNT(*) FROM src.bodies WHERE sha256 IN ` + used)
	if err != nil {
		return err
	}
	n, err := m.exec(`INSERT OR IGNORE INTO main.bodies (` + bodies.into() + `) SELECT ` + bodies.from() + ` FROM src.bodies s WHERE s.sha256 IN ` + used)
	if err != nil {
		return fmt.Errorf("copy the archives' bodies: %w", err)
	}
	m.rep.Added["bodies"] += int(n)
	m.rep.Identical["bodies"] += all - int(n)
	if _, err := m.exec(`INSERT OR IGNORE INTO main.archive_bodies (` + uses.into() + `) SELECT ` + uses.from() + ` FROM src.archive_bodies s
		WHERE s.episode_id IN ` + eps + ` AND s.sha256 IN (SELECT sha256 FROM main.bodies)`); err != nil {
		return fmt.Errorf("copy the archives' bodies: %w", err)
	}
	return m.appendRows("archive_chunks")
}
func (m *merger) edits() error { return m.appendRows("episode_edits") }
