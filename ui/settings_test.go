package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
)

func TestSettingsRoundTripAndValidation(t *testing.T) {
	a := test.NewTempApp(t)
	p := a.Preferences()
	s := LoadSettings(p)
	if s.MaxSteps != 20 || s.ActionSet != action.SetDefault || s.Annotator != "" {
		t.Fatalf("defaults %+v", s)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "name") {
		t.Fatalf("an empty name must be refused with a reason, got %v", err)
	}
	s.Annotator, s.MaxSteps, s.ActionSet, s.Display = "Ada", 150, action.SetExtended, "headless"
	s.Save(p)
	if got := LoadSettings(p); got != s {
		t.Fatalf("round trip %+v != %+v", got, s)
	}
	p.SetInt(prefMaxSteps, 999) // out of range: back to the default
	if got := LoadSettings(p); got.MaxSteps != 20 {
		t.Fatalf("max steps %d", got.MaxSteps)
	}
	items, read := settingsForm(nil, s)
	items[3].Widget.(interface{ SetText(string) }).SetText("abc")
	if _, err := read(); err == nil {
		t.Fatal("a non-number of steps was accepted")
	}
	items[3].Widget.(interface{ SetText(string) }).SetText("50")
	got, err := read()
	if err != nil || got.MaxSteps != 50 {
		t.Fatalf("%+v %v", got, err)
	}
	items[7].Widget.(interface{ SetText(string) }).SetText("ftp://example.org")
	if _, err := read(); err == nil || !strings.Contains(err.Error(), "OpenEnv server") {
		t.Fatalf("a bad OpenEnv server address was accepted: %v", err)
	}
	items[7].Widget.(interface{ SetText(string) }).SetText("http://127.0.0.1:8000")
	if got, err := read(); err != nil || got.Server != "http://127.0.0.1:8000" {
		t.Fatalf("%+v %v", got, err)
	}
}

// A wrong value keeps the Settings dialog open with the error under the
// field (Save stays off), so no edit is lost; the server's printed
// ws://…/ws address is accepted; the database field says which file is in
// use and when a change applies.
func TestSettingsDialogKeepsEditsAndNamesTheDatabase(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	cur.DBInUse, cur.DBFromCommandLine = "/data/r/r.db", true
	items, read := settingsForm(nil, cur)
	var db, srv *widget.FormItem
	for _, it := range items {
		switch it.Text {
		case "Database file":
			db = it
		case "OpenEnv server":
			srv = it
		}
	}
	if !strings.Contains(db.HintText, "/data/r/r.db") || !strings.Contains(db.HintText, "--db") || strings.Contains(db.Widget.(*DialogEntry).PlaceHolder, "default location") {
		t.Errorf("database field: hint %q, placeholder %q", db.HintText, db.Widget.(*DialogEntry).PlaceHolder)
	}
	e := srv.Widget.(*DialogEntry)
	e.SetText("ftp://nowhere")
	if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "OpenEnv server") {
		t.Fatalf("a bad server address passes the field's check: %v", err)
	}
	w := test.NewTempWindow(t, nil)
	w.Resize(fyne.NewSize(900, 700))
	d := dialog.NewForm("Settings", "Save", "Cancel", items, func(bool) {}, w)
	d.Show()
	saved := false
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if b, ok := asButton(o); ok && b.Text == "Save" {
			saved = true
			if !b.Disabled() {
				t.Error("Save is enabled while the server address is wrong")
			}
		}
	}
	if !saved {
		t.Fatal("no Save button in the dialog")
	}
	e.SetText("ws://127.0.0.1:8000/ws")
	if err := e.Validate(); err != nil {
		t.Fatalf("the address the server prints is refused: %v", err)
	}
	got, err := read()
	if err != nil || got.Server != "http://127.0.0.1:8000" {
		t.Fatalf("ws form read as %q, %v", got.Server, err)
	}
}

// A recording keeps element grounding and the network capture unless
// Settings turn them off; the choice is saved and read back, and the form's
// "Each step keeps" row sets both.
func TestSettingsGroundingAndCapture(t *testing.T) {
	a := test.NewTempApp(t)
	p := a.Preferences()
	s := LoadSettings(p)
	if s.Grounding != "on" || !s.HAR {
		t.Fatalf("defaults: grounding %q, capture %v; want on, true", s.Grounding, s.HAR)
	}
	s.Annotator, s.Grounding, s.HAR = "Ada", "", false
	s.Save(p)
	if got := p.String("grounding"); got != "off" {
		t.Fatalf("saved grounding %q, want off", got)
	}
	if got := LoadSettings(p); got.Grounding != "" || got.HAR {
		t.Fatalf("after saving off: grounding %q, capture %v", got.Grounding, got.HAR)
	}
	p.SetString("grounding", "sideways") // unknown: back to the default
	if got := LoadSettings(p); got.Grounding != "on" {
		t.Fatalf("unknown grounding read as %q, want on", got.Grounding)
	}
	items, read := settingsForm(nil, s)
	var row *widget.FormItem
	for _, it := range items {
		if it.Text == "Each step keeps" {
			row = it
		}
	}
	if row == nil {
		t.Fatal("no \"Each step keeps\" row in the Settings form")
	}
	var sel *DialogSelect
	var check *DialogCheck
	for _, o := range row.Widget.(*fyne.Container).Objects {
		switch w := o.(type) {
		case *DialogSelect:
			sel = w
		case *DialogCheck:
			check = w
		}
	}
	if sel == nil || check == nil || sel.Selected != "No elements" || check.Checked {
		t.Fatalf("row shows %v / %v for grounding off, capture off", sel, check)
	}
	sel.SetSelected("Elements and the DOM snapshot (large)")
	check.SetChecked(true)
	got, err := read()
	if err != nil || got.Grounding != "dom" || !got.HAR {
		t.Fatalf("read %q, %v, %v; want dom, true", got.Grounding, got.HAR, err)
	}
}

// Escape closes the Settings dialog as Cancel does (nothing saved); Enter
// saves, as the Save button.
func TestSettingsDialogKeys(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	for _, c := range []struct {
		key       fyne.KeyName
		wantSaved bool
	}{{fyne.KeyEscape, false}, {fyne.KeyReturn, true}} {
		w := test.NewTempWindow(t, nil)
		w.Resize(fyne.NewSize(900, 800))
		saved := false
		ShowSettings(w, cur, func(Settings) { saved = true })
		if w.Canvas().Overlays().Top() == nil {
			t.Fatal("no Settings dialog")
		}
		w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: c.key})
		if top := w.Canvas().Overlays().Top(); top != nil {
			t.Errorf("%s: the Settings dialog is still up", c.key)
		}
		if saved != c.wantSaved {
			t.Errorf("%s: saved %v, want %v", c.key, saved, c.wantSaved)
		}
	}
}

// Enter in a field of the Settings dialog (a server URL just typed) saves,
// and Escape there cancels, as outside the fields.
func TestSettingsDialogKeysInAField(t *testing.T) {
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	for _, c := range []struct {
		key       fyne.KeyName
		wantSaved bool
	}{{fyne.KeyEscape, false}, {fyne.KeyReturn, true}} {
		w := test.NewTempWindow(t, nil)
		w.Resize(fyne.NewSize(900, 800))
		var saved *Settings
		ShowSettings(w, cur, func(s Settings) { saved = &s })
		var srv *DialogEntry
		for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
			if e, ok := o.(*DialogEntry); ok && strings.Contains(e.PlaceHolder, "the local browser") {
				srv = e
			}
		}
		if srv == nil {
			t.Fatal("no server field in the Settings dialog")
		}
		w.Canvas().Focus(srv)
		test.Type(srv, "http://127.0.0.1:8000")
		srv.TypedKey(&fyne.KeyEvent{Name: c.key})
		if top := w.Canvas().Overlays().Top(); top != nil {
			t.Errorf("%s in a field: the Settings dialog is still up", c.key)
		}
		if (saved != nil) != c.wantSaved || saved != nil && saved.Server != "http://127.0.0.1:8000" {
			t.Errorf("%s in a field: saved %+v, want saved %v", c.key, saved, c.wantSaved)
		}
	}
}
