package review

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/ui"
	"waymark/ui/overlay"
)

// gifSaver is the player's "Save as animated picture…": the open episode
// written as a GIF through the same code as `waymark gif` (each step's
// action drawn on its page, a caption line, one second a step). The file
// is asked for in a dialog: a path to type (the episode's id as the
// default name, in the folder of the last save) or a folder to browse to.
// The store's own files are refused, so the dialog can never overwrite
// the database in use.
type gifSaver struct {
	p    *player
	btn  *widget.Button
	item *fyne.MenuItem
	menu *widget.PopUpMenu // the "…" menu, once shown
	// dir is the folder of the last save ("" until then: the home folder).
	dir string

	// The dialog while it shows.
	dlg    *dialog.CustomDialog
	entry  *ui.DialogEntry
	msg    *widget.Label
	armed  string // a path that exists, to replace when Save is pressed again
	saving bool
}

// gifFrameTime is how long each step shows in a saved picture (the CLI's
// default).
const gifFrameTime = time.Second

// attach makes the steps panel's "…" button, whose menu holds "Save as
// animated picture…" (a menu keeps the narrow steps column narrow).
func (g *gifSaver) attach(p *player) fyne.CanvasObject {
	g.p = p
	g.item = fyne.NewMenuItem("Save as animated picture…", func() {
		g.ask()
		p.t.unfocus()
	})
	g.item.Icon = theme.DocumentSaveIcon()
	g.item.Disabled = true
	g.btn = widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), func() {
		c := p.t.canvas()
		if c == nil {
			return
		}
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(g.btn)
		items := []*fyne.MenuItem{g.item}
		if p.redaction.item != nil {
			items = append(items, p.redaction.item)
		}
		g.menu = widget.NewPopUpMenu(fyne.NewMenu("", items...), c)
		g.menu.ShowAtPosition(pos.Add(fyne.NewPos(0, g.btn.Size().Height)))
	})
	g.btn.Importance = widget.LowImportance
	return g.btn
}

// opened enables the menu item for an episode with steps to show.
func (g *gifSaver) opened() {
	g.item.Disabled = g.p.ep == nil || len(g.p.steps) < 2
}

// defaultPath is where the open episode's picture goes unless the
// reviewer says otherwise.
func (g *gifSaver) defaultPath() string {
	dir := g.dir
	if dir == "" {
		dir, _ = os.UserHomeDir()
	}
	return filepath.Join(dir, g.p.ep.ID+".gif")
}

// ask shows the save dialog for the open episode.
func (g *gifSaver) ask() {
	w := g.p.t.window()
	if g.p.ep == nil || w == nil {
		return
	}
	g.entry = ui.NewDialogEntry()
	g.entry.SetText(g.defaultPath())
	g.entry.OnChanged = func(string) { g.armed = "" }
	g.entry.OnSubmitted = func(string) { g.submit() }
	g.entry.OnEscape = g.close
	g.msg = widget.NewLabel("Each step's action drawn on its page, one second a step. The file ends in .gif.")
	g.msg.Wrapping = fyne.TextWrapWord
	g.armed = ""
	browse := ui.NewDialogButton("Folder…", nil, func() {
		ui.BrowseFolder(w, "Save the animated picture in", filepath.Dir(g.entry.Text), func(dir string) {
			g.entry.SetText(filepath.Join(dir, filepath.Base(g.entry.Text)))
		})
	})
	save := ui.NewDialogButton("Save", nil, g.submit)
	save.Importance = widget.HighImportance
	cancel := ui.NewDialogButton("Cancel", nil, g.close)
	body := container.NewVBox(container.NewBorder(nil, nil, nil, browse, g.entry), g.msg)
	g.dlg = dialog.NewCustomWithoutButtons("Save episode as an animated picture", body, w)
	g.dlg.SetButtons([]fyne.CanvasObject{cancel, save})
	g.dlg.Resize(fyne.NewSize(640, 0))
	g.dlg.Show()
	ui.WithKeys(w, g.dlg, g.submit, g.entry, browse, cancel, save)
}

func (g *gifSaver) close() {
	if g.dlg != nil {
		g.dlg.Hide()
		g.dlg = nil
	}
}

// submit writes the picture to the path in the dialog; a problem is said
// in the dialog, which stays.
func (g *gifSaver) submit() {
	if g.dlg == nil || g.saving {
		return
	}
	path, err := g.checkPath(g.entry.Text)
	if err == nil {
		g.msg.SetText("Writing " + path + "…")
		g.saving = true
		var n, size int
		n, size, err = g.write(path)
		g.saving = false
		if err == nil {
			g.close()
			g.dir = filepath.Dir(path)
			msg := fmt.Sprintf("Wrote %s: %d pictures, %s.", path, n, gifSize(size))
			g.p.t.form.setStatus(msg, false)
			// The status line is on the Label tab, which may not be the
			// one shown: the confirmation and the path in a dialog too.
			if w := g.p.t.window(); w != nil {
				ui.ShowInformation(w, "Animated picture saved", msg)
			}
			return
		}
	}
	var exists *gifExistsError
	if errors.As(err, &exists) {
		g.armed = exists.path
		g.msg.Importance = widget.WarningImportance
	} else {
		g.msg.Importance = widget.DangerImportance
	}
	g.msg.SetText(err.Error())
}

// gifExistsError: the file exists; Save again replaces it.
type gifExistsError struct{ path string }

func (e *gifExistsError) Error() string {
	return e.path + " exists: press Save again to replace it."
}

// checkPath makes the dialog's text an absolute path ending in .gif and
// refuses a folder, the store's own files, and (once) a file that exists.
func (g *gifSaver) checkPath(raw string) (string, error) {
	p := ui.ExpandHome(strings.TrimSpace(raw))
	if p == "" {
		return "", errors.New("type the file's path")
	}
	p, _ = filepath.Abs(p)
	if db := g.p.t.store.Path(); db != "" {
		for _, f := range []string{db, db + "-wal", db + "-shm", db + "-journal"} {
			if a, _ := filepath.Abs(f); a == p {
				return "", fmt.Errorf("%s is a file of the database in use: choose another name", p)
			}
		}
	}
	if !strings.EqualFold(filepath.Ext(p), ".gif") {
		p += ".gif"
	}
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		return "", fmt.Errorf("%s is a folder: add a file name", p)
	case err == nil && g.armed != p:
		return "", &gifExistsError{path: p}
	}
	return p, nil
}

// write renders the open episode and writes it to path; it returns the
// number of pictures and the file's size.
func (g *gifSaver) write(path string) (int, int, error) {
	var buf bytes.Buffer
	n, err := overlay.WriteEpisodeGIF(g.p.t.life, &buf, g.p.t.store, g.p.ep.ID, overlay.GIFOptions{From: 1, Delay: gifFrameTime})
	if err != nil {
		return 0, 0, fmt.Errorf("cannot make the animated picture: %w", err)
	}
	// It holds every step's screenshot: its owner's only, like the store (a
	// file replaced keeps its mode unless told).
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return 0, 0, fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return 0, 0, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return n, buf.Len(), nil
}

func gifSize(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
