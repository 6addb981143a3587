package dataset

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// How a merge matches tasks and episodes with this store's and compares
// the versions both files hold (see merge.go).

// tasks copies the other file's tasks this store lacks (the same task by
// id, else by goal and start URL) and maps each to this store's id
// (temp.merge_task_map), reporting those defined differently.
func (m *merger) tasks() error {
	tasks := m.cols["tasks"]
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
	for _, t := range list {
		var dst string
		err := m.tx.QueryRowContext(m.ctx, `SELECT id FROM main.tasks WHERE id=?`, t.id).Scan(&dst)
		if errors.Is(err, sql.ErrNoRows) {
			err = m.tx.QueryRowContext(m.ctx, `SELECT id FROM main.tasks WHERE goal=? AND start_url=?`, t.goal, t.url).Scan(&dst)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := m.exec(`INSERT INTO main.tasks (`+tasks.into()+`) SELECT `+tasks.from()+` FROM src.tasks s WHERE s.id=?`, t.id); err != nil {
				return fmt.Errorf("copy task %s: %w", t.id, err)
			}
			m.rep.Added["tasks"]++
			dst = t.id
		case err != nil:
			return err
		default:
			here, there, err := m.versions(tasks, dst, t.id)
			if err != nil {
				return err
			}
			if d := tasks.diff(here, there); len(d) > 0 {
				m.issue(tasks.kind, dst, fmt.Sprintf("%q is defined differently in the two files: %s", t.goal, strings.Join(d, "; ")),
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

// episodes copies the other file's episodes this store lacks (listed in
// temp.merge_new_eps) and compares the others with this store's, row and
// steps: those that agree are listed in temp.merge_same_eps, the others
// reported.
func (m *merger) episodes() error {
	eps := m.cols["episodes"]
	if _, err := m.exec(`INSERT INTO merge_new_eps (id) SELECT id FROM src.episodes s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.episodes t WHERE t.id = s.id)`); err != nil {
		return err
	}
	n, err := m.exec(`INSERT INTO main.episodes (` + eps.into() + `) SELECT ` + eps.from() +
		` FROM src.episodes s WHERE s.id IN (SELECT id FROM temp.merge_new_eps) ORDER BY s.started_at, s.id`)
	if err != nil {
		return fmt.Errorf("copy episodes: %w", err)
	}
	m.rep.Added["episodes"] += int(n)

	// Episodes in both files: the row (its task mapped) and every step but
	// the cached thumbnail must agree.
	stepSame := m.cols["steps"].same("s", "t")
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
		here, there, err := m.versions(eps, id, id)
		if err != nil {
			return err
		}
		d := eps.diff(here, there)
		if st := diffSteps[id]; len(st) > 0 {
			d = append(d, "steps "+intList(st)+" differ")
		}
		if len(d) > 0 {
			m.issue(eps.kind, id, "the two files hold different versions: "+strings.Join(d, "; "),
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
