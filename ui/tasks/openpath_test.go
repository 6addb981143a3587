package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
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
	e, ok := w.Canvas().Focused().(*widget.Entry)
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
