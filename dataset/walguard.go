package dataset

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// SQLite's locks on a database file are POSIX advisory locks, and those
// belong to the process, not to the file descriptor: when any code in this
// process opens one of the database's files by another path than SQLite (a
// file dialog sniffing the file's type, an importer reading it, a copy) and
// closes it again, the kernel drops every lock SQLite holds on that file.
// The next other program that closes the same database then believes it is
// the last user, checkpoints, and deletes the write-ahead log while this
// process still writes into it: every later commit goes into a deleted file
// and is lost at the next crash.
//
// Two defences live here. The registry of open stores lets every code path
// of the app ask whether a path is one of an open store's files before
// opening it (IsStoreFile), so none of them touches one. And each store's
// connections run a commit hook that checks, just before every commit, that
// the write-ahead log on disk is still the file this process opened; when it
// is gone or replaced, the commit is turned into a rollback and the store
// refuses every later write with ErrStoreLost, instead of writing into a
// deleted file. Everything committed before the loss was checkpointed into
// the database by the program that deleted the log, so nothing acknowledged
// is lost.

// ErrStoreLost is returned by every write after the store found its
// write-ahead log deleted or replaced underneath it.
var ErrStoreLost = errors.New("the database's write-ahead log was deleted by another program while Waymark had it open")

// walGuard is the state shared by every Store of this process open on one
// database file.
type walGuard struct {
	path string // the database file, absolute
	refs int
	mu   sync.Mutex
	ino  uint64 // the write-ahead log's inode as first seen; 0 until seen
	dev  uint64
	lost bool
}

var (
	guardsMu sync.Mutex
	guards   = map[string]*walGuard{} // by absolute database path
)

// driverName is the database/sql driver of every store: go-sqlite3 with the
// commit hook installed on each new connection.
const driverName = "sqlite3_waymark"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		// A store's connections are made after Open acquired its guard, and
		// live no longer than it: look the guard up once, not per commit.
		g := lookupGuard(c.GetFilename("main"))
		if g == nil {
			return nil
		}
		c.RegisterCommitHook(func() int {
			if !g.intact() {
				return 1 // SQLite turns the commit into a rollback
			}
			return 0
		})
		return nil
	}})
}

func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	return path
}

func lookupGuard(path string) *walGuard {
	guardsMu.Lock()
	defer guardsMu.Unlock()
	return guards[absPath(path)]
}

// acquireGuard returns the guard for the database at path, creating it.
func acquireGuard(path string) *walGuard {
	guardsMu.Lock()
	defer guardsMu.Unlock()
	abs := absPath(path)
	g := guards[abs]
	if g == nil {
		g = &walGuard{path: abs}
		guards[abs] = g
	}
	g.refs++
	return g
}

func releaseGuard(g *walGuard) {
	guardsMu.Lock()
	defer guardsMu.Unlock()
	if g.refs--; g.refs <= 0 && guards[g.path] == g {
		delete(guards, g.path)
	}
}

// note records the write-ahead log's identity once it exists.
func (g *walGuard) note() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ino != 0 {
		return
	}
	var st syscall.Stat_t
	if syscall.Stat(g.path+"-wal", &st) == nil {
		g.ino, g.dev = st.Ino, uint64(st.Dev)
	}
}

// intact reports whether the write-ahead log on disk is still the one this
// process has open. It only stats the path: opening the file would itself
// drop SQLite's locks. Once lost, always lost.
func (g *walGuard) intact() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lost {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Stat(g.path+"-wal", &st); err != nil {
		// SQLite creates the log with the first write; gone after it was
		// seen means deleted.
		g.lost = g.ino != 0 && errors.Is(err, syscall.ENOENT)
		return !g.lost
	}
	if g.ino == 0 {
		g.ino, g.dev = st.Ino, uint64(st.Dev)
		return true
	}
	g.lost = st.Ino != g.ino || uint64(st.Dev) != g.dev
	return !g.lost
}

func (g *walGuard) isLost() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}

// lostError is the message a person reads when the store was lost.
func (s *Store) lostError() error {
	return fmt.Errorf("%w (%s-wal): nothing more can be saved safely. Everything saved until now is kept in %s; "+
		"close Waymark and open it again to go on recording. This happens when a program opens and closes the "+
		"database's files itself (a file manager, a backup or copy tool) while Waymark is running", ErrStoreLost, s.path, s.path)
}

// sidecars are the files SQLite keeps beside a database.
var sidecars = []string{"", "-wal", "-shm", "-journal"}

// IsStoreFile reports whether path is the database file, or one of its
// write-ahead log, shared-memory or journal files, of a store open in this
// process. Code that opens files a person chose (file dialogs, importers)
// must refuse such a path: opening and closing it outside SQLite drops the
// store's locks (see above).
func IsStoreFile(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	guardsMu.Lock()
	paths := make([]string, 0, len(guards))
	for p := range guards {
		paths = append(paths, p)
	}
	guardsMu.Unlock()
	for _, p := range paths {
		for _, suf := range sidecars {
			if other, err := os.Stat(p + suf); err == nil && os.SameFile(fi, other) {
				return true
			}
		}
	}
	return false
}

// IsSQLiteSidecar reports whether path names a SQLite write-ahead log,
// shared-memory or journal file next to an existing database (name-db and
// name-db-wal): files a person never means to pick.
func IsSQLiteSidecar(path string) bool {
	for _, suf := range sidecars[1:] {
		if base, ok := strings.CutSuffix(path, suf); ok && base != "" {
			if fi, err := os.Stat(base); err == nil && fi.Mode().IsRegular() {
				return true
			}
		}
	}
	return false
}
