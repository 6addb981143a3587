package review

import (
	"context"
	"image/gif"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"waymark/ui/overlay"
)

// "Save as animated picture…" writes the open episode's GIF where the
// dialog says: one picture per action and the end picture, 800 wide and
// 600 plus the caption high, as `waymark gif` writes it. A path that cannot
// be written is said in the dialog, which stays; the database's own file
// is refused; a file that exists is replaced only when Save is pressed
// again.
func TestSaveAsAnimatedPicture(t *testing.T) {
	e := newEnv(t)
	g := &e.tab.player.gif
	if !g.item.Disabled {
		t.Error("the menu item is enabled with no episode open")
	}
	e.key(fyne.KeyN)
	if g.item.Disabled {
		t.Fatal("the menu item is disabled with an episode open")
	}
	// The steps panel's "…" button opens the menu; its item the dialog.
	test.Tap(g.btn)
	if g.menu == nil || !g.menu.Visible() || len(g.menu.Items) != 2 {
		t.Fatal("the … button opened no menu with its two items (the animated picture, black out a region)")
	}
	g.menu.Hide()
	g.item.Action()
	if g.dlg == nil {
		t.Fatal("no dialog")
	}
	if want := e.tab.player.ep.ID + ".gif"; filepath.Base(g.entry.Text) != want {
		t.Errorf("default name %q, want %q", g.entry.Text, want)
	}

	// A folder that does not exist: the error shows, the dialog stays.
	dir := t.TempDir()
	g.entry.SetText(filepath.Join(dir, "missing", "x.gif"))
	g.submit()
	if g.dlg == nil || g.msg.Importance != widget.DangerImportance || !strings.Contains(g.msg.Text, "cannot write") {
		t.Errorf("a failed write: dialog %v, message %q", g.dlg != nil, g.msg.Text)
	}
	// The database in use is never written.
	g.entry.SetText(e.s.Path())
	g.submit()
	if g.dlg == nil || !strings.Contains(g.msg.Text, "database") {
		t.Errorf("the database's file: %q", g.msg.Text)
	}

	out := filepath.Join(dir, "episode") // .gif is added
	g.entry.SetText(out)
	g.submit()
	if g.dlg != nil {
		t.Fatalf("the dialog stayed: %q", g.msg.Text)
	}
	out += ".gif"
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	pic, err := gif.DecodeAll(fh)
	fh.Close()
	if err != nil {
		t.Fatalf("the written file is no GIF: %v", err)
	}
	frames, err := overlay.EpisodeFrames(context.Background(), e.s, e.tab.player.ep.ID, overlay.GIFOptions{From: 1, Delay: gifFrameTime})
	if err != nil {
		t.Fatal(err)
	}
	if len(pic.Image) != 5 || len(frames) != 5 {
		t.Errorf("%d pictures (the CLI's code makes %d), want 4 actions and the end", len(pic.Image), len(frames))
	}
	if pic.Config.Width != 800 || pic.Config.Height != 600+overlay.CaptionHeight {
		t.Errorf("size %d×%d", pic.Config.Width, pic.Config.Height)
	}
	if pic.Delay[0] != 100 || pic.Delay[len(pic.Delay)-1] != 200 {
		t.Errorf("delays %v, want 1 s a step and 2 s at the end", pic.Delay)
	}
	if !strings.Contains(e.tab.form.status.Text, "Wrote "+out+": 5 pictures") {
		t.Errorf("status %q", e.tab.form.status.Text)
	}
	// Said where the reviewer looks, whichever side tab is shown.
	if said := dialogText(e.w); !strings.Contains(said, "Animated picture saved") || !strings.Contains(said, out) {
		t.Errorf("after saving the window shows %q, want the confirmation with the path", said)
	}

	// Again to the same file: asked first, replaced on the second Save.
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.item.Action()
	if want := filepath.Join(dir, e.tab.player.ep.ID+".gif"); g.entry.Text != want {
		t.Errorf("the dialog opens on %q, want %q (the last folder)", g.entry.Text, want)
	}
	g.entry.SetText(out)
	g.submit()
	if g.dlg == nil || !strings.Contains(g.msg.Text, "exists") {
		t.Fatalf("no question before replacing: %q", g.msg.Text)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Error("the file was replaced before the second Save")
	}
	g.submit()
	if g.dlg != nil {
		t.Errorf("the second Save did not replace: %q", g.msg.Text)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "GIF89a") {
		t.Errorf("the file after replacing starts %q", b[:min(6, len(b))])
	}
}
