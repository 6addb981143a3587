// Package dataset is Waymark's store: one SQLite file holding tasks,
// episodes, steps (with their screenshots) and reviews, plus import and
// export. It knows nothing of the UI or the browser.
package dataset

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	// pin keeps one connection open for the store's life, so this process
	// never closes its last connection (which would delete the write-ahead
	// log and start a new one) while the store is open.
	pin   *sql.Conn
	guard *walGuard
	// owner identifies this process in episodes.owner (see processOwner).
	owner string
	// damaged is what SQLite's check found wrong when the store was opened
	// ("" when nothing); a damaged store is open read-only.
	damaged string
	// open is this Store's marker beside the file (see openstate.go);
	// checked says why Open ran SQLite's check ("" when it did not), and
	// opened that Open succeeded.
	open    *openState
	checked string
	opened  bool

	closeOnce sync.Once
	closeErr  error
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
	// ErrForeignDatabase is a SQLite file of another program.
	ErrForeignDatabase = fmt.Errorf("%w", ErrNotDatabase)
	// Errors of reads and writes after Open.
	ErrDiskFull = errors.New("the disk holding the database is full")
	ErrReadOnly = errors.New("the database cannot be written")
	ErrNotFound = errors.New("not found")
)

// explainWriteError turns SQLite's busy, full and read-only codes into the
// package's errors with a hint of what to do; other errors pass unchanged.
func (s *Store) explainWriteError(err error) error {
	var se sqlite3.Error
	if err == nil {
		return nil
	}
	if s.guard.isLost() || errors.Is(err, ErrStoreLost) {
		return s.lostError()
	}
	if !errors.As(err, &se) {
		return err
	}
	if s.damaged != "" && (se.Code == sqlite3.ErrReadonly || se.Code == sqlite3.ErrCorrupt) {
		return fmt.Errorf("%w: %s failed SQLite's integrity check when it was opened, so it is open read-only and nothing can be saved in it. %s",
			ErrDamaged, s.path, recoverAdvice(s.path))
	}
	switch se.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		return fmt.Errorf("%w (%s): another Waymark is writing to it; wait and try again, or close the other program", ErrLocked, s.path)
	case sqlite3.ErrFull:
		return fmt.Errorf("%w (%s): free some space and try again; nothing already saved was lost", ErrDiskFull, s.path)
	case sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrCantOpen:
		return fmt.Errorf("%w (%s: %v): check the file's and folder's permissions", ErrReadOnly, s.path, se)
	case sqlite3.ErrCorrupt:
		return ExplainDamage(s.path, err)
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
	if err := prepareFile(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + fmt.Sprintf("?_foreign_keys=on&_busy_timeout=%d&_synchronous=FULL&_txlock=immediate&_cache_size=-%d", busyTimeoutMS, storeCacheKiB)
	state := beginOpen(path)
	s, err := openDSN(path, dsn)
	if err != nil {
		state.end(path, false)
		return nil, err
	}
	s.open = state
	fail := func(err error) (*Store, error) {
		s.Close()
		return nil, explainOpenError(path, err)
	}
	// The check runs only when the file may have been left damaged: a
	// Waymark died with it open, or it changed while none had it open.
	if state.why != "" {
		s.checked = state.why
		verdict, err := quickCheck(s.pin)
		if err != nil {
			return fail(err)
		}
		if verdict != "" {
			s.Close()
			return openDamaged(path, dsn, verdict, state.why)
		}
	}
	if err := s.migrate(); err != nil {
		return fail(err)
	}
	state.checked()
	s.guard.note()
	if err := s.markInterrupted(); err != nil {
		return fail(err)
	}
	s.opened = true
	return s, nil
}

// What an open store holds in memory besides Go's heap: SQLite's page
// cache is per connection, and it fills up to cache_size with every page
// that passes through it, the screenshots a recording writes too (a long
// serve session grew 40-80 KB an episode until the cap). So each connection's
// cache is storeCacheKiB, and once a burst of concurrent work is over the
// pool keeps storeIdleConns connections, each closed after storeIdleTime
// unused: at most (storeIdleConns+1)×storeCacheKiB of page cache, the pinned
// connection included. A bigger cache made no measured difference
// (BenchmarkListEpisodes10k: the same CPU time at 2, 4 and 32 MiB).
const (
	storeCacheKiB  = 4096
	storeIdleConns = 2
	storeIdleTime  = time.Minute
)

// openDSN opens the database and pins a connection.
func openDSN(path, dsn string) (*Store, error) {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxIdleConns(storeIdleConns)
	db.SetConnMaxIdleTime(storeIdleTime)
	s := &Store{db: db, path: path, owner: processOwner(), guard: acquireGuard(path)}
	if s.pin, err = db.Conn(context.Background()); err != nil {
		s.Close()
		return nil, explainOpenError(path, err)
	}
	return s, nil
}

// prepareFile checks the database's place before SQLite opens it, so that a
// person reads what is wrong in words: a missing or read-only folder, a
// folder given as the file. A new database is created readable by its owner
// only (its folder too, when Waymark creates it): it holds everything typed
// in the recorded episodes. It never opens an existing database file: that
// would drop the locks of a store this process may already have open on it.
func prepareFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the folder for the database %s: %w (choose another place with --db or WAYMARK_DB)", dir, err)
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder, not a database file (give a file path with --db)", path)
	}
	// SQLite keeps its write-ahead log and shared-memory files beside the
	// database, so the folder must be writable even to read.
	if aerr := syscall.Access(dir, 2 /* W_OK */); aerr != nil {
		why := "Waymark cannot write in it"
		if errors.Is(aerr, syscall.EROFS) {
			why = "it is on a read-only file system"
		}
		return fmt.Errorf("cannot use the database %s: the folder %s is not writable (%s), and SQLite needs to create its journal files there; "+
			"copy the database to a writable folder and open that copy with --db", path, dir, why)
	}
	if errors.Is(err, os.ErrNotExist) {
		f, cerr := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if cerr == nil {
			return f.Close()
		}
		if !errors.Is(cerr, os.ErrExist) {
			return fmt.Errorf("cannot write the database %s: cannot create it (%w); check the folder's permissions or choose another place with --db or WAYMARK_DB", path, cerr)
		}
	}
	return nil
}

func explainOpenError(path string, err error) error {
	var se sqlite3.Error
	switch {
	case errors.Is(err, ErrForeignDatabase):
		return fmt.Errorf("%s: %w; it was not changed — choose another file with --db", path, err)
	case errors.Is(err, ErrNewerSchema):
		return fmt.Errorf("%s: %w; update Waymark to open it (the file was not changed)", path, err)
	case errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || strings.Contains(se.Error(), "malformed")):
		return ExplainDamage(path, se)
	case errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || strings.Contains(se.Error(), "unsupported file format")):
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
	if err := s.pin.QueryRowContext(context.Background(), `PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("%w (schema %d, this program knows up to %d)", ErrNewerSchema, v, SchemaVersion)
	}
	if v == 0 {
		// A new file has no tables; a file with tables but no Waymark schema
		// belongs to another program and must not be changed (not even by
		// switching it to write-ahead logging, hence the order here).
		var names []string
		rows, err := s.db.Query(`SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 4`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return err
			}
			names = append(names, n)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(names) > 0 {
			return fmt.Errorf("%w: it is another program's SQLite database (it has tables such as %s)", ErrForeignDatabase, strings.Join(names, ", "))
		}
	}
	// Write-ahead logging is a property of the file: set once, every later
	// connection of every program uses it.
	var mode string
	if err := s.pin.QueryRowContext(context.Background(), `PRAGMA journal_mode=WAL`).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("cannot switch the database to write-ahead logging (journal mode %q)", mode)
	}
	if v == SchemaVersion {
		return nil
	}
	// A migration that rebuilds a table drops the old one, which foreign
	// key enforcement would refuse: migrations run with it off, on the
	// pinned connection, and the keys are checked before each commit.
	ctx := context.Background()
	if _, err := s.pin.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
		return err
	}
	defer s.pin.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
	for ; v < SchemaVersion; v++ {
		if err := s.migrateOne(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// migrateOne runs migrations[v] in one transaction on the pinned connection.
func (s *Store) migrateOne(ctx context.Context, v int) error {
	tx, err := s.pin.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
		return fmt.Errorf("migrate schema %d→%d: %w", v, v+1, err)
	}
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return err
	}
	bad := rows.Next()
	rows.Close()
	if bad {
		return fmt.Errorf("migrate schema %d→%d: a foreign key no longer holds; the database was not changed", v, v+1)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return err
	}
	return tx.Commit()
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes the store. Later calls, from any goroutine, do nothing and
// return the first one's result (the app's close watch and its normal
// return may both close it).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.pin != nil {
			s.pin.Close()
		}
		s.closeErr = s.db.Close()
		if s.guard != nil {
			releaseGuard(s.guard)
			s.guard = nil
		}
		// After SQLite closed the file: a sound store closed without an
		// error needs no check at the next Open.
		if s.open != nil {
			s.open.end(s.path, s.opened && s.damaged == "" && s.closeErr == nil)
		}
	})
	return s.closeErr
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok").
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var out []string
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
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
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetMeta writes a key of the meta table.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}
