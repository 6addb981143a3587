package ui

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
)

// A file dialog on a computer without the XDG folders (no ~/Music…) logs
// "Getting favorite locations" each time it opens; Waymark's log stays
// quiet, and Fyne's other reports still get through.
func TestFileDialogLogsNoFavoriteLocations(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", filepath.Join(home, "bin")) // no xdg-user-dir: the folders are ~/Desktop…
	os.Mkdir(filepath.Join(home, "Desktop"), 0o700)
	var out bytes.Buffer
	prev := log.Writer()
	t.Cleanup(func() { log.SetOutput(prev) })
	log.SetOutput(&out)
	QuietFyneLog(&out)

	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(900, 620))
	fd := dialog.NewFileOpen(func(fyne.URIReadCloser, error) {}, w)
	fd.Resize(fyne.NewSize(900, 620))
	fd.Show()
	fd.Hide()
	if strings.Contains(out.String(), "favorite") || strings.Contains(out.String(), "Cause") {
		t.Errorf("the file dialog logged:\n%s", out.String())
	}
	fyne.LogError("Something else", os.ErrNotExist)
	if got := out.String(); !strings.Contains(got, "Something else") || !strings.Contains(got, "Cause: file does not exist") {
		t.Errorf("another report was dropped: %q", got)
	}
}
