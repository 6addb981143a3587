package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

// FileDialogSize is the size every file dialog opens at.
var FileDialogSize = fyne.NewSize(900, 620)

// BrowseFile opens Fyne's file dialog on the folder of start (or the home
// folder) listing only files ending in one of exts (none: every file), and
// gives the chosen file's path to onPath. The file itself is not kept open.
// The open database can be chosen too (its path is all that is taken).
func BrowseFile(w fyne.Window, title string, exts []string, start string, onPath func(string)) {
	fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		var se *StoreFileError
		switch {
		case errors.As(err, &se):
			onPath(se.Path)
		case err != nil:
			ShowError(err, w)
		case rc != nil:
			rc.Close()
			onPath(rc.URI().Path())
		}
	}, w)
	if len(exts) > 0 {
		fd.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	showFileDialog(w, fd, title, start)
}

// BrowseFolder opens Fyne's folder dialog on start (or the nearest folder
// above it that exists) and gives the chosen folder's path to onPath.
func BrowseFolder(w fyne.Window, title string, start string, onPath func(string)) {
	fd := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			ShowError(err, w)
			return
		}
		if u != nil {
			onPath(u.Path())
		}
	}, w)
	showFileDialog(w, fd, title, start)
}

// showFileDialog titles a file or folder dialog, opens it on start's folder
// and shows it at the kit's size. It has the keys while it is up: Escape
// closes it (not a dialog behind it), Enter does nothing (its Open button
// chooses).
func showFileDialog(w fyne.Window, fd *dialog.FileDialog, title, start string) {
	if title != "" {
		fd.SetTitleText(title)
	}
	if loc := startFolder(start); loc != nil {
		fd.SetLocation(loc)
	}
	fd.Resize(FileDialogSize)
	fd.Show()
	WithKeys(w, fd, func() {})
}

// startFolder is the folder a file dialog opens on for a path: the path
// itself when it is a folder, else the nearest existing folder above it;
// nil when there is none (the dialog then opens on the home folder).
func startFolder(path string) fyne.ListableURI {
	path = ExpandHome(strings.TrimSpace(path))
	if path == "" {
		return nil
	}
	path, _ = filepath.Abs(path)
	for dir := path; ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			l, err := storage.ListerForURI(storage.NewFileURI(dir))
			if err != nil {
				return nil
			}
			return l
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

// ExpandHome turns a leading ~ into the home folder.
func ExpandHome(path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, path[1:])
		}
	}
	return path
}

// ShowOpenPath asks for a file to open: a path can be typed or pasted
// (Enter opens it, ~ is the home folder), or Browse… picks it in the file
// dialog, which lists only files ending in one of exts. onPath gets an
// absolute path of a file that exists; a wrong path is said under the
// entry and the dialog stays.
func ShowOpenPath(w fyne.Window, title, confirm string, exts []string, start string, onPath func(string)) {
	entry := NewDialogEntry()
	entry.SetPlaceHolder("type or paste a path, or Browse…")
	entry.SetText(start)
	entry.CursorColumn = len([]rune(start)) // a file name typed goes after the folder
	msg := widget.NewLabel("")
	msg.Wrapping = fyne.TextWrapWord
	if len(exts) > 0 {
		msg.SetText("Files ending in " + strings.Join(exts, " "))
	}
	check := func(raw string) (string, error) {
		p := ExpandHome(strings.TrimSpace(raw))
		if p == "" {
			return "", errors.New("type the file's path, or press Browse…")
		}
		p, _ = filepath.Abs(p)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("there is no file %s", p)
		case fi.IsDir():
			return "", fmt.Errorf("%s is a folder: choose a file in it (Browse… opens there)", p)
		}
		return p, nil
	}
	var d *dialog.CustomDialog
	submit := func() {
		p, err := check(entry.Text)
		if err != nil {
			msg.Importance = widget.DangerImportance
			msg.SetText(err.Error())
			return
		}
		d.Hide()
		onPath(p)
	}
	browse := NewDialogButton("Browse…", nil, func() {
		BrowseFile(w, title, exts, entry.Text, func(p string) {
			entry.SetText(p)
			submit()
		})
	})
	open := NewDialogButton(confirm, nil, submit)
	open.Importance = widget.HighImportance
	cancel := NewDialogButton("Cancel", nil, func() { d.Hide() })
	body := container.NewVBox(container.NewBorder(nil, nil, nil, browse, entry), msg)
	d = dialog.NewCustomWithoutButtons(title, body, w)
	d.SetButtons([]fyne.CanvasObject{cancel, open})
	d.Resize(fyne.NewSize(640, 0))
	d.Show()
	WithKeys(w, d, submit, entry, browse, cancel, open)
}
