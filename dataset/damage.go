package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// A damaged database file: SQLite's checks, a damaged store opened
// read-only, and what a person is told to do about it.

// quickCheck runs SQLite's quick_check (every page and record read, the
// indexes' order checked) and returns what it found wrong, at most three
// problems and their count ("" when the file is sound). Its cost grows
// with the file: about 0.4–0.6 s for 500 MB on two cores, so Open runs it
// only when the file may have been left damaged (openstate.go).
func quickCheck(c *sql.Conn) (string, error) {
	return integrityVerdict(context.Background(), c, `PRAGMA quick_check`)
}

// integrityVerdict runs pragma, SQLite's quick_check or integrity_check
// (of one schema, "PRAGMA src.integrity_check"), and returns what it found
// wrong: at most three problems and their count, "" when nothing.
func integrityVerdict(ctx context.Context, c *sql.Conn, pragma string) (string, error) {
	rows, err := c.QueryContext(ctx, pragma)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var found []string
	n := 0
	for rows.Next() {
		var row string
		if err := rows.Scan(&row); err != nil {
			return "", err
		}
		// A row may hold several problems, one a line, under a
		// "*** in database main ***" heading.
		for _, line := range strings.Split(row, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line == "ok" || strings.HasPrefix(line, "***") {
				continue
			}
			if n++; n <= 3 {
				if r := []rune(line); len(r) > 200 {
					line = string(r[:200]) + "…"
				}
				found = append(found, line)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if n > 3 {
		found = append(found, fmt.Sprintf("and %d more problems", n-3))
	}
	return strings.Join(found, "; "), nil
}

// openDamaged opens a store that failed its check read-only (query_only:
// no statement of this process changes it), so what can be read is still
// reviewed and exported and nothing is made worse. A store that would need
// a migration first is refused, unchanged.
func openDamaged(path, dsn, verdict, why string) (*Store, error) {
	state := beginOpen(path)
	s, err := openDSN(path, dsn+"&_query_only=1")
	if err != nil {
		state.end(path, false)
		return nil, err
	}
	s.open, s.damaged, s.checked = state, verdict, why
	var v int
	if err := s.pin.QueryRowContext(context.Background(), `PRAGMA user_version`).Scan(&v); err != nil {
		s.Close()
		return nil, explainOpenError(path, err)
	}
	if v != SchemaVersion {
		s.Close()
		return nil, fmt.Errorf("%w: %s failed SQLite's integrity check (%s), and it would have to be upgraded from schema %d to %d, which is not done to a damaged file; it was not changed. %s",
			ErrDamaged, path, verdict, v, SchemaVersion, recoverAdvice(path))
	}
	return s, nil
}

// Damaged says what SQLite's integrity check found wrong with the file when
// the store was opened, and what to do; "" when nothing. A damaged store is
// open read-only: reads work as far as the file allows, writes fail with
// ErrDamaged.
func (s *Store) Damaged() string {
	if s.damaged == "" {
		return ""
	}
	return fmt.Sprintf("%s is damaged: SQLite's integrity check found %s. It was opened read-only, so nothing in it is changed: "+
		"what can be read can still be reviewed and exported. %s", s.path, s.damaged, recoverAdvice(s.path))
}

// recoverAdvice says how to get a sound database from a damaged one.
func recoverAdvice(path string) string {
	return fmt.Sprintf("To record into it again, copy the file somewhere safe, then save what can be read with "+
		"'sqlite3 %s .recover | sqlite3 recovered.db' (the sqlite3 program) and open recovered.db with --db, or restore a backup", path)
}

// ErrDamaged marks a database SQLite found damaged while reading or writing.
var ErrDamaged = errors.New("the database file is damaged")

// ExplainDamage turns SQLite's "database disk image is malformed" into a
// message that names the file and says what to do; any other error passes
// unchanged.
func ExplainDamage(path string, err error) error {
	var se sqlite3.Error
	if err == nil || errors.Is(err, ErrDamaged) || !errors.As(err, &se) || se.Code != sqlite3.ErrCorrupt {
		return err
	}
	return fmt.Errorf("%w: %s (%v). Nothing was changed: copy the file somewhere safe, then save what can be read with "+
		"'sqlite3 %s .recover | sqlite3 recovered.db' and open recovered.db with --db, or restore a backup", ErrDamaged, path, se, path)
}
