package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// The recovery setting is off by default, survives a save and is read from
// its check box in the Settings form.
func TestRecoverObservationSetting(t *testing.T) {
	a := test.NewTempApp(t)
	p := a.Preferences()
	s := LoadSettings(p)
	if s.RecoverObservation {
		t.Fatal("recovery is on by default")
	}
	s.Annotator, s.RecoverObservation = "Ada", true
	s.Save(p)
	if got := LoadSettings(p); !got.RecoverObservation {
		t.Fatal("recovery lost in the round trip")
	}
	items, read := settingsForm(nil, s)
	var box *DialogCheck
	for _, it := range items {
		if c, ok := it.Widget.(*DialogCheck); ok {
			box = c
		}
	}
	if box == nil || !box.Checked {
		t.Fatal("no checked recovery box in the form")
	}
	box.SetChecked(false)
	if got, err := read(); err != nil || got.RecoverObservation {
		t.Fatalf("form read: %v, recover %v", err, got.RecoverObservation)
	}
}
