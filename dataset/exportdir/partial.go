package exportdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// An export is written into a hidden folder beside its target and becomes
// the target only once it is complete, so a cancelled, failed or crashed
// export leaves no half-written folder under the target's name: a crash
// leaves only the hidden folder, which the next export of the same target
// removes (unless the export that made it still runs: it holds the lock
// in it).

const (
	partialInfix = ".waymark-partial-"
	oldInfix     = ".waymark-old-"
	// lockFile is held (flock) by a running export inside its folder.
	lockFile = ".lock"
)

// Partial is an export being written.
type Partial struct {
	// Dir is the folder to write the export in.
	Dir    string
	target string
	lock   *os.File
}

// Begin makes the folder an export of target is written in, beside
// target (target's parent is made with parentPerm if missing), after
// removing those crashed exports of the same target left. The caller
// ends it with Commit or Abort.
func Begin(target string, parentPerm os.FileMode) (*Partial, error) {
	parent, base := filepath.Dir(target), filepath.Base(target)
	if err := os.MkdirAll(parent, parentPerm); err != nil {
		return nil, fmt.Errorf("cannot create %s: %w (choose another output folder)", parent, err)
	}
	removeStale(parent, base)
	tmp, err := os.MkdirTemp(parent, "."+base+partialInfix)
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %w (check its permissions or choose another output folder)", parent, err)
	}
	// The lock tells a concurrent export of the same target that this
	// folder is in use, not left by a crash.
	lock, err := os.Create(filepath.Join(tmp, lockFile))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("cannot write in %s: %w (check its permissions or choose another output folder)", parent, err)
	}
	_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return &Partial{Dir: tmp, target: target, lock: lock}, nil
}

// Abort removes the export's folder and all that was written in it.
func (p *Partial) Abort() {
	p.lock.Close()
	os.RemoveAll(p.Dir)
}

// Commit puts the finished export at its target, synced to disk: in place
// of an absent or empty folder, or, when replace, of the previous export,
// which is kept aside until the new one is in place. After an error the
// caller still calls Abort.
func (p *Partial) Commit(replace bool) error {
	p.lock.Close()
	if err := os.Remove(filepath.Join(p.Dir, lockFile)); err != nil {
		return err
	}
	return swapInto(p.Dir, p.target, replace)
}

// removeStale deletes hidden folders a crashed export of the same target
// left behind (they carry our infix in their name); folders whose lock a
// running export holds are left alone.
func removeStale(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(n, "."+base+partialInfix) || strings.HasPrefix(n, "."+base+oldInfix)) {
			continue
		}
		dir := filepath.Join(parent, n)
		if inUse(dir) {
			continue
		}
		os.RemoveAll(dir)
	}
}

// inUse reports whether a running export holds the folder's lock.
func inUse(dir string) bool {
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// swapInto renames the finished temporary folder to the target, replacing a
// previous export (kept aside until the new one is in place).
func swapInto(tmp, target string, replace bool) error {
	if err := syncDir(tmp); err != nil {
		return err
	}
	if !replace {
		// The target is absent or an empty folder (os.Remove never removes a
		// folder with anything in it).
		if err := os.Remove(target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot replace the empty folder %s: %w", target, err)
		}
		if err := os.Rename(tmp, target); err != nil {
			return fmt.Errorf("cannot move the export into %s: %w", target, err)
		}
		return syncDir(filepath.Dir(target))
	}
	parent, base := filepath.Dir(target), filepath.Base(target)
	old := filepath.Join(parent, "."+base+oldInfix+strings.TrimPrefix(filepath.Base(tmp), "."+base+partialInfix))
	if err := os.Rename(target, old); err != nil {
		return fmt.Errorf("cannot move the previous export %s aside: %w", target, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		if rerr := os.Rename(old, target); rerr != nil {
			return fmt.Errorf("cannot move the export into %s: %w (the previous export is kept in %s)", target, err, old)
		}
		return fmt.Errorf("cannot move the export into %s: %w", target, err)
	}
	_ = syncDir(filepath.Dir(target))
	return os.RemoveAll(old)
}

// syncDir flushes a folder's entries to disk.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
