package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDialogsComeFromTheKit: Fyne's ready-made dialogs with buttons (form,
// confirm, information, custom with an OK) have buttons that, once tabbed
// to, take neither Enter nor Escape, and a form that confirms with a field
// wrong. Every dialog of the app is made by the kit (ShowForm, NewQuestion,
// ShowConfirm, ShowInformation) or as a dialog without buttons whose own
// are DialogButton. Each .go file of the module (tests aside) is read, and a
// call of another of Fyne's dialog makers is named by file and line.
func TestDialogsComeFromTheKit(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"NewCustomWithoutButtons": true, "NewFileOpen": true, "NewFolderOpen": true}
	call := regexp.MustCompile(`\bdialog\.((?:New|Show)\w*)\(`)
	var found []string
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range call.FindAllStringSubmatch(line, -1) {
				if !allowed[m[1]] {
					rel, _ := filepath.Rel(root, path)
					found = append(found, rel+":"+strconv.Itoa(i+1)+" dialog."+m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read only %d files under %s", files, root)
	}
	if len(found) > 0 {
		t.Errorf("dialogs not made by the kit (their buttons take no Enter or Escape once focused): make them with ui.ShowForm, ui.NewQuestion, "+
			"ui.ShowConfirm or ui.ShowInformation, or with dialog.NewCustomWithoutButtons and ui.DialogButton buttons given to ui.WithKeys:\n%s", strings.Join(found, "\n"))
	}
}
