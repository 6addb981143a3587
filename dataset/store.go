// Package dataset is Waymark's store: one SQLite file holding tasks,
// episodes, steps (with their screenshots) and reviews, plus import and
// export. It knows nothing of the UI or the browser.
package dataset

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	// owner identifies this process in episodes.owner (see processOwner).
	owner string
}

// busyTimeoutMS is how long a write waits for another program's write to
// finish before giving up with ErrLocked. Tests shorten it.
var busyTimeoutMS = 5000

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
	// Errors of reads and writes after Open.
	ErrDiskFull = errors.New("the disk holding the database is full")
	ErrReadOnly = errors.New("the database cannot be written")
	ErrNotFound = errors.New("not found")
)

// explainWriteError turns SQLite's busy, full and read-only codes into the
// package's errors with a hint of what to do; other errors pass unchanged.
func (s *Store) explainWriteError(err error) error {
	var se sqlite3.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	switch se.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return fmt.Errorf("%w (%s): another Waymark is writing to it; wait and try again, or close the other program", ErrLocked, s.path)
	case sqlite3.ErrFull:
		return fmt.Errorf("%w (%s): free some space and try again; nothing already saved was lost", ErrDiskFull, s.path)
	case sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrCantOpen:
		return fmt.Errorf("%w (%s: %v): check the file's and folder's permissions", ErrReadOnly, s.path, se)
	case sqlite3.ErrIoErr:
		return fmt.Errorf("%s: the disk reported an error while writing (%v); check the disk, nothing already saved was lost", s.path, se)
	}
	return err
}

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
	dsn := "file:" + path + fmt.Sprintf("?_foreign_keys=on&_busy_timeout=%d&_journal_mode=WAL&_synchronous=FULL&_txlock=immediate&_cache_size=-32768", busyTimeoutMS)
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s := &Store{db: db, path: path, owner: processOwner()}
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
	case errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt ||
		strings.Contains(se.Error(), "unsupported file format") || strings.Contains(se.Error(), "malformed")):
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

// staleForeignRecording is how long an episode recorded on another host may
// stay silent before it is taken for dead (its owner cannot be checked).
const staleForeignRecording = 24 * time.Hour

// markInterrupted marks "recording" episodes whose recording process is gone
// as interrupted. An episode of a live process (this one, or another program
// on this machine using the same file, such as `waymark serve --record`) is
// left alone: its owner column names the process by host, pid and a start
// token (boot id + the process's start time), so a reused pid is not taken
// for the original process. It writes nothing when nothing is to be marked.
func (s *Store) markInterrupted() error {
	rows, err := s.db.Query(`SELECT id, owner, COALESCE((SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
		FROM episodes WHERE status='recording'`)
	if err != nil {
		return err
	}
	var dead []string
	for rows.Next() {
		var id, owner, last string
		if err := rows.Scan(&id, &owner, &last); err != nil {
			rows.Close()
			return err
		}
		if !ownerAlive(owner, ParseTime(last)) {
			dead = append(dead, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(dead) == 0 {
		return nil
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, id := range dead {
		if _, err := tx.Exec(`UPDATE episodes SET status='interrupted', end_reason=CASE WHEN end_reason='' THEN 'interrupted' ELSE end_reason END,
			ended_at=COALESCE(ended_at, (SELECT MAX(created_at) FROM steps WHERE steps.episode_id=episodes.id), started_at)
			WHERE id=? AND status='recording'`, id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// processOwner names this process for episodes.owner: "host|pid|token".
func processOwner() string {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return host + "|" + strconv.Itoa(pid) + "|" + startToken(pid)
}

// startToken identifies one run of process pid: the boot id and the
// process's start time in clock ticks since boot (/proc/PID/stat field 22).
// Where /proc is missing it is "" and only the pid is checked.
func startToken(pid int) string {
	st, _, ok := procStat(pid)
	if !ok {
		return ""
	}
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(boot)) + ":" + st
}

// procStat reads a process's start time and state from /proc.
func procStat(pid int) (start, state string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	// The command name is in parentheses and may hold spaces: fields start
	// after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", "", false
	}
	return f[19], f[0], true
}

// ownerAlive reports whether the process that owns a recording episode may
// still be running. Unknown owners (episodes from before the owner column)
// count as dead; owners on another host count as alive until the episode has
// been silent for staleForeignRecording.
func ownerAlive(owner string, lastActivity time.Time) bool {
	parts := strings.SplitN(owner, "|", 3)
	if len(parts) != 3 {
		return false
	}
	host, _ := os.Hostname()
	if parts[0] != host {
		return time.Since(lastActivity) < staleForeignRecording
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		// No /proc: ask the kernel whether the pid exists.
		return syscall.Kill(pid, 0) == nil
	}
	_, state, ok := procStat(pid)
	if !ok || state == "Z" || state == "X" {
		return false
	}
	return parts[2] == "" || parts[2] == startToken(pid)
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
