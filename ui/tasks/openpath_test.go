package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/ui"
	"waymark/ui/uitest"
)

// Import file… takes a typed (or pasted) path: Enter on a missing file
// says so and waits; Enter on a task file opens its preview.
func TestImportTakesATypedPath(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	path := filepath.Join(t.TempDir(), "more.csv")
	if err := os.WriteFile(path, []byte("goal,url\nFind the tent,http://shop.test/\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	test.Tap(tab.importBtn)
	e, ok := w.Canvas().Focused().(*ui.DialogEntry)
	if !ok {
		t.Fatalf("Import file… focuses %T, not a path entry", w.Canvas().Focused())
	}
	test.Type(e, path+".nope")
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if !overlaySays(w, "there is no file") {
		t.Fatalf("a missing file: %q", overlayTexts(w))
	}
	e.SetText(path)
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	tab.work.Wait()
	loop.Run()
	if !overlaySays(w, "Import more.csv") {
		t.Fatalf("the typed file's preview is not shown: %q", overlayTexts(w))
	}
}

// The path entry opens on the last import's folder with the cursor after
// it, so typing a file name completes the path.
func TestImportStartsInTheLastFolder(t *testing.T) {
	tab, _, _, loop := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	dir := t.TempDir()
	for _, n := range []string{"a.csv", "b.csv"} {
		os.WriteFile(filepath.Join(dir, n), []byte("goal,url\nFind the tent,http://shop.test/\n"), 0o600)
	}
	test.Tap(tab.importBtn)
	e := w.Canvas().Focused().(*ui.DialogEntry)
	e.SetText(filepath.Join(dir, "a.csv"))
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	tab.work.Wait()
	loop.Run()
	w.Canvas().Overlays().Top().Hide()
	test.Tap(tab.importBtn)
	e = w.Canvas().Focused().(*ui.DialogEntry)
	test.Type(e, "b.csv")
	if want := filepath.Join(dir, "b.csv"); e.Text != want {
		t.Fatalf("typed into %q, want %q", e.Text, want)
	}
}

// Escape in the path entry closes the dialog, as Cancel does.
func TestImportPathEscapeCancels(t *testing.T) {
	tab, _, _, _ := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	test.Tap(tab.importBtn)
	f := w.Canvas().Focused()
	if f == nil {
		t.Fatal("no path entry focused")
	}
	f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Fatalf("Escape left the dialog open: %q", overlayTexts(w))
	}
}

// Escape in the file picker opened by Browse… closes the picker only: the
// Import dialog behind it stays, with its path.
func TestImportPickerEscapeClosesOnlyThePicker(t *testing.T) {
	tab, _, _, _ := newTasksFixtureLoop(t)
	w := tab.ctx.Window
	w.Resize(fyne.NewSize(1200, 800))
	test.Tap(tab.importBtn)
	e, ok := w.Canvas().Focused().(*ui.DialogEntry)
	if !ok {
		t.Fatal("no path entry focused")
	}
	e.SetText(t.TempDir() + "/")
	var browse *widget.Button
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if b, ok := uitest.AsButton(o); ok && b.Text == "Browse…" {
			browse = b
		}
	}
	if browse == nil {
		t.Fatal("no Browse… button")
	}
	pathDialog := w.Canvas().Overlays().Top()
	test.Tap(browse)
	if n := len(w.Canvas().Overlays().List()); n != 2 {
		t.Fatalf("Browse… left %d overlays, want the picker over the Import dialog", n)
	}
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if top := w.Canvas().Overlays().Top(); top != pathDialog || !top.Visible() {
		t.Fatalf("after Escape in the picker: %d overlays, the Import dialog on top %v", len(w.Canvas().Overlays().List()), top == pathDialog)
	}
	// Escape again closes the Import dialog.
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if top := w.Canvas().Overlays().Top(); top != nil && top.Visible() {
		t.Fatal("the second Escape did not close the Import dialog")
	}
}
