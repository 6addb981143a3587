package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage/repository"

	"waymark/dataset"
)

// GuardStoreFiles wraps the running app's "file" storage repository so that
// no file dialog, preview or storage call of this process opens a file of a
// store that is open in it. Fyne's file dialog guesses the type of every
// listed file whose extension it does not know (.db, .db-wal, .db-shm) by
// opening it and reading its first line; CanRead and CanWrite open the file
// too. Opening and closing a SQLite database's files outside SQLite drops
// SQLite's locks for the whole process (POSIX locks belong to the process),
// after which another program closing the same database deletes its
// write-ahead log: recorded steps are then lost at the next crash.
//
// The guard also keeps SQLite's -wal, -shm and -journal files out of
// listings: nobody means to pick them.
//
// Call it once the Fyne app exists (its driver registers the repository).
func GuardStoreFiles() {
	base, err := repository.ForScheme("file")
	if err != nil {
		return
	}
	if _, ok := base.(*guardedFiles); ok {
		return
	}
	repository.Register("file", &guardedFiles{base: base})
}

type guardedFiles struct{ base repository.Repository }

// StoreFileError is the refusal to open a file of the store in use; a
// dialog that only wants the file's path (Settings → Database) takes Path.
type StoreFileError struct{ Path string }

func (e *StoreFileError) Error() string {
	return fmt.Sprintf("%s is Waymark's open database (or one of its journal files); it cannot be opened as another file while Waymark uses it", e.Path)
}

func refuse(u fyne.URI) error { return &StoreFileError{Path: u.Path()} }

func isStore(u fyne.URI) bool {
	return u != nil && u.Scheme() == "file" && dataset.IsStoreFile(u.Path())
}

func (g *guardedFiles) Exists(u fyne.URI) (bool, error) { return g.base.Exists(u) }
func (g *guardedFiles) Destroy(scheme string)           { g.base.Destroy(scheme) }

func (g *guardedFiles) Reader(u fyne.URI) (fyne.URIReadCloser, error) {
	if isStore(u) {
		return nil, refuse(u)
	}
	return g.base.Reader(u)
}

func (g *guardedFiles) CanRead(u fyne.URI) (bool, error) {
	if isStore(u) {
		return false, nil
	}
	return g.base.CanRead(u)
}

func (g *guardedFiles) writable() (repository.WritableRepository, error) {
	w, ok := g.base.(repository.WritableRepository)
	if !ok {
		return nil, repository.ErrOperationNotSupported
	}
	return w, nil
}

func (g *guardedFiles) Writer(u fyne.URI) (fyne.URIWriteCloser, error) {
	w, err := g.writable()
	if err != nil {
		return nil, err
	}
	if isStore(u) {
		return nil, refuse(u)
	}
	return w.Writer(u)
}

func (g *guardedFiles) CanWrite(u fyne.URI) (bool, error) {
	w, err := g.writable()
	if err != nil {
		return false, err
	}
	if isStore(u) {
		return false, nil
	}
	return w.CanWrite(u)
}

func (g *guardedFiles) Delete(u fyne.URI) error {
	w, err := g.writable()
	if err != nil {
		return err
	}
	if isStore(u) {
		return refuse(u)
	}
	return w.Delete(u)
}

func (g *guardedFiles) Appender(u fyne.URI) (fyne.URIWriteCloser, error) {
	a, ok := g.base.(repository.AppendableRepository)
	if !ok {
		return nil, repository.ErrOperationNotSupported
	}
	if isStore(u) {
		return nil, refuse(u)
	}
	return a.Appender(u)
}

func (g *guardedFiles) DeleteAll(u fyne.URI) error {
	d, ok := g.base.(repository.DeleteAllRepository)
	if !ok {
		return repository.ErrOperationNotSupported
	}
	if isStore(u) {
		return refuse(u)
	}
	return d.DeleteAll(u)
}

func (g *guardedFiles) CanList(u fyne.URI) (bool, error) {
	l, ok := g.base.(repository.ListableRepository)
	if !ok {
		return false, repository.ErrOperationNotSupported
	}
	return l.CanList(u)
}

func (g *guardedFiles) List(u fyne.URI) ([]fyne.URI, error) {
	l, ok := g.base.(repository.ListableRepository)
	if !ok {
		return nil, repository.ErrOperationNotSupported
	}
	all, err := l.List(u)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, c := range all {
		if c.Scheme() == "file" && dataset.IsSQLiteSidecar(c.Path()) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

func (g *guardedFiles) CreateListable(u fyne.URI) error {
	l, ok := g.base.(repository.ListableRepository)
	if !ok {
		return repository.ErrOperationNotSupported
	}
	return l.CreateListable(u)
}

func (g *guardedFiles) Parent(u fyne.URI) (fyne.URI, error) {
	h, ok := g.base.(repository.HierarchicalRepository)
	if !ok {
		return nil, repository.ErrOperationNotSupported
	}
	return h.Parent(u)
}

func (g *guardedFiles) Child(u fyne.URI, component string) (fyne.URI, error) {
	h, ok := g.base.(repository.HierarchicalRepository)
	if !ok {
		return nil, repository.ErrOperationNotSupported
	}
	return h.Child(u, component)
}

// refusePair refuses a copy or move from or to an open store's file.
func refusePair(src, dst fyne.URI) error {
	if isStore(src) {
		return refuse(src)
	}
	if isStore(dst) {
		return refuse(dst)
	}
	return nil
}

func (g *guardedFiles) Copy(src, dst fyne.URI) error {
	c, ok := g.base.(repository.CopyableRepository)
	if !ok {
		return repository.ErrOperationNotSupported
	}
	if err := refusePair(src, dst); err != nil {
		return err
	}
	return c.Copy(src, dst)
}

func (g *guardedFiles) Move(src, dst fyne.URI) error {
	m, ok := g.base.(repository.MovableRepository)
	if !ok {
		return repository.ErrOperationNotSupported
	}
	if err := refusePair(src, dst); err != nil {
		return err
	}
	return m.Move(src, dst)
}
