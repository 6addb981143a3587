package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"waymark/dataset"
)

// TestChildOpenCloseStore is not a test: it is the other program of
// TestFileDialogKeepsStoreLocks, which opens the store and closes it.
func TestChildOpenCloseStore(t *testing.T) {
	path := os.Getenv("WAYMARK_UI_CHILD_DB")
	if path == "" {
		t.Skip("helper process")
	}
	s, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// Fyne's file dialog opens every listed file whose type it does not know to
// sniff it. Shown on the folder of the open store, it must not touch the
// store's files: otherwise SQLite's locks are dropped, another program that
// closes the database deletes the write-ahead log, and every later step is
// lost at the next crash (the store then refuses to write).
func TestFileDialogKeepsStoreLocks(t *testing.T) {
	test.NewTempApp(t)
	GuardStoreFiles()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.db")
	store, err := dataset.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.AddTask(t.Context(), dataset.Task{Goal: "before", Category: dataset.Navigation, StartURL: "http://a.test/"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(`{"goal":"x","url":"http://a.test/"}`+"\n"), 0o600)

	// What the dialog does with the folder: list it, sniff each file's type,
	// ask whether it can be read and written.
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(900, 620))
	fd := dialog.NewFileOpen(func(fyne.URIReadCloser, error) {}, w)
	loc, _ := storage.ListerForURI(storage.NewFileURI(dir))
	fd.SetLocation(loc)
	fd.Resize(fyne.NewSize(900, 620))
	fd.Show()
	items, err := storage.List(storage.NewFileURI(dir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range items {
		names = append(names, u.Name())
		_ = u.MimeType()
		storage.CanRead(u)
		storage.CanWrite(u)
	}
	if got := strings.Join(names, " "); strings.Contains(got, "-wal") || strings.Contains(got, "-shm") || !strings.Contains(got, "r.db") {
		t.Errorf("the dialog lists %q; want the database without its -wal and -shm files", got)
	}
	for _, suf := range []string{"", "-wal", "-shm"} {
		if rc, err := storage.Reader(storage.NewFileURI(path + suf)); err == nil {
			rc.Close()
			t.Errorf("storage.Reader opened %s%s", path, suf)
		} else if !strings.Contains(err.Error(), "Waymark's open database") {
			t.Errorf("refusal does not say why: %v", err)
		}
	}
	fd.Hide()

	// Another program opens and closes the same database.
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildOpenCloseStore$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WAYMARK_UI_CHILD_DB="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("second process: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the write-ahead log is gone after another program closed the database: %v", err)
	}
	if _, err := store.AddTask(t.Context(), dataset.Task{Goal: "after", Category: dataset.Navigation, StartURL: "http://a.test/"}); err != nil {
		t.Fatalf("the store refuses to write after the dialog: %v", err)
	}
}
