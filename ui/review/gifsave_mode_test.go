package review

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"fyne.io/fyne/v2"
)

// The animated picture "Save as animated picture…" writes holds every
// step's screenshot: it is its owner's only (0600) under umask 022, a file
// it replaces too. Before, it was 0644, and a replaced file kept its mode.
func TestSavedAnimatedPictureIsOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	e := newEnv(t)
	g := &e.tab.player.gif
	e.key(fyne.KeyN)
	dir := t.TempDir()
	fresh, replaced := filepath.Join(dir, "new.gif"), filepath.Join(dir, "old.gif")
	if err := os.WriteFile(replaced, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fresh, replaced} {
		g.item.Action()
		if g.dlg == nil {
			t.Fatal("no dialog")
		}
		g.entry.SetText(path)
		g.submit()
		if path == replaced {
			g.submit() // a file that exists is replaced when Save is pressed again
		}
		if g.dlg != nil {
			t.Fatalf("%s: the dialog stayed: %q", path, g.msg.Text)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() < 100 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %04o, want a GIF of mode 0600", path, fi.Size(), fi.Mode().Perm())
		}
	}
}
