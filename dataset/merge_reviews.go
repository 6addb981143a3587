package dataset

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// How a merge copies the rows added after an episode was recorded:
// reviews (one current version per reviewer), their step labels, replay
// runs and the review guidelines (see merge.go).

// byID copies the rows of table whose id this store lacks and compares the
// others (leaving out the table's ignored columns), reporting those that
// differ.
func (m *merger) byID(table string) error {
	t := m.cols[table]
	if len(t.cols) == 0 {
		return nil
	}
	n, err := m.exec(`INSERT INTO main.` + table + ` (` + t.into() + `) SELECT ` + t.from() + ` FROM src.` + table + ` s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.` + table + ` t WHERE t.id = s.id) ORDER BY s.rowid`)
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	m.rep.Added[table] += int(n)
	rows, err := m.tx.QueryContext(m.ctx, `SELECT s.id, `+t.same("s", "t")+` FROM src.`+table+` s JOIN main.`+table+` t ON t.id = s.id`)
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
	for _, id := range differ {
		here, there, err := m.versions(t, id, id)
		if err != nil {
			return err
		}
		m.issue(t.kind, id, "the two files hold different versions: "+strings.Join(t.diff(here, there), "; "),
			"this database's version is kept")
	}
	return nil
}

func (m *merger) replayRuns() error { return m.byID("replay_runs") }

// reviews copies reviews by id, then makes one version current per
// reviewer (and one settling label) per episode: a review edited on two
// machines has two current versions after the copy; the newest stays
// current and the other becomes its history.
func (m *merger) reviews() error {
	if _, err := m.exec(`INSERT INTO merge_review_eps (id) SELECT DISTINCT episode_id FROM src.reviews s
		WHERE s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM main.reviews t WHERE t.id = s.id)`); err != nil {
		return err
	}
	if err := m.byID("reviews"); err != nil {
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
		m.issue(m.cols["reviews"].kind, u.old, fmt.Sprintf("%s of episode %s was edited in both files", reviewerName(u.who), u.ep),
			fmt.Sprintf("both versions are kept as history; the newer one (%s) is current", u.by))
	}
	return nil
}

// stepLabels copies the step labels of the other file's reviews: a
// review's labels never change (an edit is a new review row), so a label
// is the same row by its review and step.
func (m *merger) stepLabels() error {
	labels := m.cols["step_labels"]
	if len(labels.cols) == 0 {
		return nil // the other file's schema predates step labels
	}
	n, err := m.exec(`INSERT INTO main.step_labels (` + labels.into() + `) SELECT ` + labels.from() + ` FROM src.step_labels s
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

// guidelineVersions copies the other file's guidelines versions that this
// store lacks (a version is the same row in every store: its text's
// SHA-256), so the reviews a merge copies name a text this store has.
func (m *merger) guidelineVersions() error {
	t := m.cols["guideline_versions"]
	if len(t.cols) == 0 {
		return nil // the other file's schema predates guidelines versions
	}
	_, err := m.exec(`INSERT INTO main.guideline_versions (` + t.into() + `) SELECT ` + t.from() + ` FROM src.guideline_versions s
		WHERE NOT EXISTS (SELECT 1 FROM main.guideline_versions t WHERE t.id = s.id) ORDER BY s.created_at, s.rowid`)
	return err
}
