package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Settings → Database file takes a typed path, and Choose… opens a file
// dialog on the named database's folder that lists database files only.
func TestSettingsDatabaseChooser(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	GuardStoreFiles()
	dir := t.TempDir()
	for _, n := range []string{"other.db", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600)
	}
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	cur.DBPath = filepath.Join(dir, "w.db")
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(1000, 700))
	items, _ := settingsForm(w, cur)
	var choose *widget.Button
	for _, it := range items {
		if it.Text != "Database file" {
			continue
		}
		for _, o := range test.LaidOutObjects(it.Widget) {
			if b, ok := asButton(o); ok && b.Text == "Choose…" {
				choose = b
			}
		}
	}
	if choose == nil {
		t.Fatal("the database field has no Choose… button")
	}
	test.Tap(choose)
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Choose… opened no dialog")
	}
	var texts []string
	for _, o := range test.LaidOutObjects(top) {
		if tx, ok := o.(*canvas.Text); ok {
			texts = append(texts, tx.Text)
		}
		if l, ok := o.(*widget.Label); ok {
			texts = append(texts, l.Text)
		}
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "other") || strings.Contains(all, "notes") {
		t.Errorf("the dialog shows %q: want other.db listed and notes.txt not", all)
	}
}
