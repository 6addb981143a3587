package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The Settings' "Remote browser" row: typed into the dialog, a wrong
// address keeps Save off with the reason under the field; a DevTools
// address is saved in the preferences and read back; it does not go with
// an OpenEnv server.
func TestSettingsRemoteBrowserRow(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	cur := LoadSettings(a.Preferences())
	if cur.RemoteBrowser != "" {
		t.Fatalf("default remote browser %q, want none", cur.RemoteBrowser)
	}
	cur.Annotator = "Ada"
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(900, 800))
	items, read := settingsForm(w, cur)
	var row *widget.FormItem
	for i, it := range items {
		if it.Text == "Remote browser" {
			row = it
			if items[i-1].Text != "OpenEnv server" {
				t.Errorf("the Remote browser row follows %q, want the OpenEnv server's", items[i-1].Text)
			}
		}
	}
	if row == nil {
		t.Fatal("no \"Remote browser\" row in the Settings form")
	}
	if !strings.Contains(row.HintText, "http://host:9222") {
		t.Errorf("hint %q does not show an address", row.HintText)
	}
	e := row.Widget.(*DialogEntry)
	if e.PlaceHolder != "empty: Chromium on this machine" {
		t.Errorf("placeholder %q", e.PlaceHolder)
	}
	d := dialog.NewForm("Settings", "Save", "Cancel", items, func(bool) {}, w)
	d.Show()
	var save *widget.Button
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if b, ok := asButton(o); ok && b.Text == "Save" {
			save = b
		}
	}
	if save == nil {
		t.Fatal("no Save button in the dialog")
	}

	test.Type(e, "farm:9222")
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "http://127.0.0.1:9222") {
		t.Fatalf("the field's check of %q: %v", e.Text, err)
	}
	if !save.Disabled() {
		t.Error("Save is enabled while the remote browser address is wrong")
	}
	if _, err := read(); err == nil || !strings.Contains(err.Error(), `got "farm:9222"`) {
		t.Fatalf("a wrong address was read without an error: %v", err)
	}

	for _, good := range []string{"http://127.0.0.1:9222", "ws://10.0.0.7:3000/devtools/browser/3f2c?token=x"} {
		e.SetText("")
		test.Type(e, good)
		if err := e.Validate(); err != nil {
			t.Fatalf("%s refused: %v", good, err)
		}
		if save.Disabled() {
			t.Errorf("Save is off for %s", good)
		}
		got, err := read()
		if err != nil || got.RemoteBrowser != good {
			t.Fatalf("read %q, %v; want %s", got.RemoteBrowser, err, good)
		}
		got.Save(a.Preferences())
		if back := LoadSettings(a.Preferences()); back.RemoteBrowser != good || a.Preferences().String("remote_browser") != good {
			t.Fatalf("saved and loaded %q, want %s", back.RemoteBrowser, good)
		}
	}

	for _, it := range items {
		if it.Text == "OpenEnv server" {
			it.Widget.(*DialogEntry).SetText("http://127.0.0.1:8000")
		}
	}
	if _, err := read(); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("an OpenEnv server and a remote browser together: %v", err)
	}
}
