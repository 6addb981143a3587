// Package dataset is Waymark's store: one SQLite file holding tasks,
// episodes, steps (with their screenshots) and reviews, plus import and
// export. It knows nothing of the UI or the browser.
package dataset

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// timeFormat is how timestamps are stored: UTC, fixed width, so text order is
// time order.
const timeFormat = "2006-01-02T15:04:05.000Z"

func now() string { return time.Now().UTC().Format(timeFormat) }

// FormatTime and ParseTime convert stored timestamps.
func FormatTime(t time.Time) string { return t.UTC().Format(timeFormat) }
func ParseTime(s string) time.Time {
	t, _ := time.Parse(timeFormat, s)
	return t
}

// Store is an open Waymark database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
}

// DefaultPath is where the store lives unless --db or WAYMARK_DB says
// otherwise: $XDG_DATA_HOME/waymark/waymark.db (~/.local/share on Linux).
func DefaultPath() string {
	if p := os.Getenv("WAYMARK_DB"); p != "" {
		return p
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "waymark", "waymark.db")
}

// Errors a user can hit when opening a store.
var (
	ErrNewerSchema = errors.New("database was written by a newer Waymark")
	ErrNotDatabase = errors.New("file is not a Waymark database")
	ErrLocked      = errors.New("database is locked by another program")
)

// Open opens (creating if needed) the store at path, runs forward migrations
// and marks episodes left "recording" by a program that died as
// "interrupted", keeping their steps.
func Open(path string) (*Store, error) {
	if path == "" {
		path = DefaultPath()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the folder for the database %s: %w (choose another place with --db or WAYMARK_DB)", dir, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a database file (give a file path with --db)", path)
	}
	dsn := "file:" + path + "?_foreign_keys=on&_busy_timeout=5000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, explainOpenError(path, err)
	}
	if err := s.markInterrupted(); err != nil {
		db.Close()
		return nil, explainOpenError(path, err)
	}
	return s, nil
}

func explainOpenError(path string, err error) error {
	var se sqlite3.Error
	switch {
	case errors.Is(err, ErrNewerSchema):
		return fmt.Errorf("%s: %w; update Waymark to open it (the file was not changed)", path, err)
	case errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt):
		return fmt.Errorf("%s: %w (%v); it was not changed — choose another file with --db, or restore a backup", path, ErrNotDatabase, se)
	case errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked):
		return fmt.Errorf("%s: %w; close the other Waymark using it and try again", path, ErrLocked)
	case errors.As(err, &se) && (se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrCantOpen || se.Code == sqlite3.ErrPerm):
		return fmt.Errorf("%s: cannot write the database (%v); check the folder's permissions or choose another file with --db", path, se)
	}
	return fmt.Errorf("%s: %w", path, err)
}

func (s *Store) migrate() error {
	var v int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (schema %d, this program knows up to %d)", ErrNewerSchema, v, SchemaVersion)
	}
	for ; v < SchemaVersion; v++ {
		tx, err := s.db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) markInterrupted() error {
	_, err := s.db.Exec(`UPDATE episodes SET status='interrupted', end_reason=CASE WHEN end_reason='' THEN 'interrupted' ELSE end_reason END,
		ended_at=COALESCE(ended_at, (SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
		WHERE status='recording'`)
	return err
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the handle to the package's own sub-packages (export).
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *Store) IntegrityCheck() (string, error) {
	var out []string
	rows, err := s.db.Query(`PRAGMA integrity_check`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n"), rows.Err()
}

// Meta reads a key of the meta table ("" when absent).
func (s *Store) Meta(key string) (string, error) {
	var v string
	err := s.db.QueryRow(`SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a key of the meta table.
func (s *Store) SetMeta(key, value string) error {
	_, err := s.db.Exec(`INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}
