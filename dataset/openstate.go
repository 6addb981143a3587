package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// SQLite's quick_check reads every page of the file: about a second per
// gigabyte on two cores. Open runs it only when the file may have been left
// damaged, which a folder beside the database, NAME-open, tells:
//
//   - Each open Store keeps a marker file in it (named by process and
//     store, holding the process's owner string, see processOwner) from
//     before SQLite opens the file until after SQLite closed it. A marker
//     whose process is gone means a Waymark ended with the store open (a
//     crash, a kill, a power cut): the next Open checks the file, and
//     removes the marker once the check passed.
//   - The last Store to close the file cleanly, with no other marker
//     left, writes "closed": the database file's device, inode, size,
//     modification and change times as they are then. With no Store open,
//     a file that no longer matches it (changed or replaced while no
//     Waymark had it open), a missing record (a file Waymark never closed:
//     a new or copied file) or a write-ahead log left beside the file (a
//     program that did not close it) is checked too.
//
// Open removes the record before it opens the file, so a record exists only
// while no Store has the file open since its last clean close. A damaged
// file never gets a record, so every Open checks it again. Damage that comes
// later to a file nobody changed (a failing disk) is not looked for at
// open: reads that meet it fail with ErrDamaged and its advice.

// openStateDirSuffix names the folder beside the database.
const openStateDirSuffix = "-open"

// closedRecordName is the record of the last clean close in that folder.
const closedRecordName = "closed"

// markerSeq tells apart the markers of several Stores of one process.
var markerSeq atomic.Int64

// openState is one Store's marker, and what Open found in the folder.
type openState struct {
	dir    string
	marker string   // this Store's marker file; "" when it could not be made
	stale  []string // markers of processes that are gone
	// why is the reason the file must be checked ("" when it need not be).
	why string
}

// beginOpen looks at the folder beside the database at path, says whether
// the file must be checked before use, removes the clean-close record and
// writes this Store's marker. It never fails: when the folder cannot be
// read or written, the file is checked, as it is when in doubt.
func beginOpen(path string) *openState {
	// Beside the file itself, whichever link or relative path names it.
	st := &openState{dir: absPath(path) + openStateDirSuffix}
	live, stale, record, err := readOpenState(st.dir)
	st.stale = stale
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		st.why = fmt.Sprintf("Waymark cannot read %s (%v)", st.dir, err)
	case len(stale) > 0:
		st.why = "a Waymark that had it open ended without closing it"
	case live > 0:
		// Another Store has it open: it checked the file when it opened it
		// if the file needed it, and the file changes under it.
	case record == "":
		st.why = "Waymark has no record of closing it last"
	case record != fileIdentity(path):
		st.why = "it was changed or replaced since Waymark closed it last"
	case walLeft(path):
		st.why = "a write-ahead log was left beside it by a program that did not close it"
	}
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		st.why = fmt.Sprintf("Waymark cannot write %s (%v)", st.dir, err)
		return st
	}
	name := filepath.Join(st.dir, fmt.Sprintf("%d.%d.store", os.Getpid(), markerSeq.Add(1)))
	if err := os.WriteFile(name, []byte(processOwner()), 0o600); err != nil {
		st.why = fmt.Sprintf("Waymark cannot write %s (%v)", name, err)
		return st
	}
	st.marker = name
	if err := os.Remove(filepath.Join(st.dir, closedRecordName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		st.why = fmt.Sprintf("Waymark cannot remove %s (%v)", filepath.Join(st.dir, closedRecordName), err)
	}
	return st
}

// checked is called once the file passed its check: the markers of the
// processes that died with it open have been dealt with.
func (st *openState) checked() {
	for _, m := range st.stale {
		os.Remove(m)
	}
	st.stale = nil
}

// end removes this Store's marker after SQLite closed the file. When clean
// (the store was sound and closed without an error) and no other marker is
// left, it records the file's identity for the next Open. A failed Open
// ends with clean false, and removes the folder when it is empty (a file
// that is no database keeps nothing beside it).
func (st *openState) end(path string, clean bool) {
	if st.marker != "" {
		os.Remove(st.marker)
		st.marker = ""
	}
	live, stale, _, err := readOpenState(st.dir)
	if err != nil || live > 0 || len(stale) > 0 {
		return
	}
	if !clean {
		os.Remove(st.dir) // fails, as it should, when the record is there
		return
	}
	if walLeft(path) {
		return // another program has the file open
	}
	id := fileIdentity(path)
	if id == "" {
		return
	}
	tmp := filepath.Join(st.dir, fmt.Sprintf(".%s.%d", closedRecordName, os.Getpid()))
	if err := os.WriteFile(tmp, []byte(id), 0o600); err != nil {
		return
	}
	if os.Rename(tmp, filepath.Join(st.dir, closedRecordName)) != nil {
		os.Remove(tmp)
	}
}

// readOpenState counts the live markers in dir, lists the stale ones, and
// reads the clean-close record ("" when there is none).
func readOpenState(dir string) (live int, stale []string, record string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, nil, "", err
	}
	for _, e := range entries {
		name := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == closedRecordName:
			b, rerr := os.ReadFile(name)
			if rerr == nil {
				record = string(b)
			}
		case strings.HasSuffix(e.Name(), ".store"):
			b, rerr := os.ReadFile(name)
			if errors.Is(rerr, fs.ErrNotExist) {
				continue // its Store closed meanwhile
			}
			info, ierr := e.Info()
			if rerr != nil || ierr != nil || !ownerAlive(string(b), info.ModTime()) {
				stale = append(stale, name)
				continue
			}
			live++
		}
	}
	return live, stale, record, nil
}

// fileIdentity is the database file's device, inode, size and times, or
// "" when it cannot be read.
func fileIdentity(path string) string {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return ""
	}
	return fmt.Sprintf("waymark closed 1\ndev %d\ninode %d\nsize %d\nmtime %d\nctime %d\n",
		uint64(st.Dev), st.Ino, st.Size,
		time.Unix(st.Mtim.Unix()).UnixNano(), time.Unix(st.Ctim.Unix()).UnixNano())
}

// walLeft says whether a non-empty write-ahead log is beside the file.
// SQLite deletes it when the last connection closes cleanly.
func walLeft(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}
