package dataset

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// What a merge checks of the other file before it copies anything (see
// merge.go).

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
		return mergeDamaged(path, msg)
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

// checkMergeIntegrity refuses an attached file that fails SQLite's
// integrity_check. quick_check is not enough: an index that no longer
// matches its table (bits flipped in an index page) passes it, and the
// merge, which finds rows through those indexes, then copied part of the
// file or rows under garbled ids, with no error. Its cost is about that of
// reading the file once (0.4–0.6 s for 340 MB on two cores).
func checkMergeIntegrity(ctx context.Context, conn *sql.Conn, path string) error {
	verdict, err := integrityVerdict(ctx, conn, `PRAGMA src.integrity_check`)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("merge of %s cancelled: nothing was changed", path)
		}
		return explainMergeOpen(path, err)
	}
	if verdict != "" {
		return mergeDamaged(path, "SQLite's integrity check found "+verdict)
	}
	return nil
}

// mergeDamaged refuses a damaged file, with what to do about it.
func mergeDamaged(path, found string) error {
	return fmt.Errorf("cannot merge %s: %w (%s); nothing of it was merged and this database was not changed. "+
		"Ask for a fresh copy of it, or save what can be read with 'sqlite3 %s .recover | sqlite3 recovered.db' (the sqlite3 program) and merge recovered.db",
		path, ErrDamaged, found, path)
}
