package ui

import (
	"errors"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

func press(c fyne.Canvas, k fyne.KeyName) {
	if h := c.OnTypedKey(); h != nil {
		h(&fyne.KeyEvent{Name: k})
	}
}

// A dialog opened from another dialog's button keeps Enter and Escape:
// Fyne runs the first dialog's callback before its closed handler, which
// used to put the window's own key handler back over the second dialog's.
func TestDialogOpenedFromADialogKeepsItsKeys(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("keys")
	w.Resize(fyne.NewSize(600, 400))
	var base []fyne.KeyName
	w.Canvas().SetOnTypedKey(func(e *fyne.KeyEvent) { base = append(base, e.Name) })

	var second dialog.Dialog
	secondAnswer := ""
	first := dialog.NewCustomConfirm("First", "Go on", "Cancel", widget.NewLabel("one"), func(ok bool) {
		if !ok {
			return
		}
		second = dialog.NewCustomConfirm("Second", "Yes", "No", widget.NewLabel("two"), func(ok bool) {
			if ok {
				secondAnswer = "yes"
			} else {
				secondAnswer = "no"
			}
		}, w)
		second.Show()
		WithKeys(w, second, second.(*dialog.ConfirmDialog).Confirm)
	}, w)
	first.Show()
	WithKeys(w, first, first.Confirm)
	w.Show()

	press(w.Canvas(), fyne.KeyReturn) // confirms the first, which opens the second
	if second == nil {
		t.Fatal("Enter did not confirm the first dialog")
	}
	press(w.Canvas(), fyne.KeyEscape)
	if secondAnswer != "no" {
		t.Fatalf("Escape in the second dialog: answer %q, window got %v; want the second dialog cancelled", secondAnswer, base)
	}
	if len(base) != 0 {
		t.Fatalf("the window got %v while a dialog was up", base)
	}
	press(w.Canvas(), fyne.KeyF5)
	if len(base) != 1 || base[0] != fyne.KeyF5 {
		t.Fatalf("after both dialogs closed the window got %v, want [F5]", base)
	}
}

// key delivers a key as the desktop driver does: Tab moves the focus on
// unless the focused widget takes tabs; other keys go to the focused
// widget, else to the window's key handler.
func key(c fyne.Canvas, k fyne.KeyName) {
	if t, ok := c.Focused().(fyne.Tabbable); k == fyne.KeyTab && (!ok || !t.AcceptsTab()) {
		c.FocusNext()
		return
	}
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: k})
		return
	}
	press(c, k)
}

// typeText delivers runes as the desktop driver does: to the focused
// widget, else to the window (where a dialog's typing would be lost).
func typeText(c fyne.Canvas, s string) {
	for _, r := range s {
		if f := c.Focused(); f != nil {
			f.TypedRune(r)
		} else if h := c.OnTypedRune(); h != nil {
			h(r)
		}
	}
}

// A form shown with ShowForm has the keys from the start: typing goes to
// its first field, Enter in a field submits (only when every field is
// right), and Escape cancels, in a field and outside one.
func TestShowFormKeys(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("form")
	w.Resize(fyne.NewSize(800, 600))
	var lost []rune
	w.Canvas().SetOnTypedRune(func(r rune) { lost = append(lost, r) })
	w.Show()
	open := func() (*DialogEntry, *DialogEntry, *[]bool) {
		name, other := NewDialogEntry(), NewDialogWrapEntry(2)
		other.Validator = func(s string) error {
			if s == "" {
				return errors.New("write something")
			}
			return nil
		}
		var answers []bool
		ShowForm(w, "Form", "Save", "Cancel", []*widget.FormItem{
			{Text: "Name", Widget: name},
			{Text: "Other", Widget: container.NewStack(other)},
		}, func(ok bool) { answers = append(answers, ok) }, 400)
		return name, other, &answers
	}
	c := w.Canvas()

	name, _, answers := open()
	if c.Focused() != name {
		t.Fatalf("focus on %T, want the first field", c.Focused())
	}
	typeText(c, "Ada")
	if name.Text != "Ada" || len(lost) != 0 {
		t.Fatalf("typed %q, lost %q", name.Text, string(lost))
	}
	key(c, fyne.KeyEscape)
	if fmt.Sprint(*answers) != "[false]" || c.Overlays().Top() != nil {
		t.Fatalf("Escape in the field: answers %v, dialog up %v", *answers, c.Overlays().Top() != nil)
	}

	_, _, answers = open()
	c.Unfocus()
	key(c, fyne.KeyEscape)
	if fmt.Sprint(*answers) != "[false]" || c.Overlays().Top() != nil {
		t.Fatalf("Escape outside the fields: answers %v", *answers)
	}

	name, other, answers := open()
	typeText(c, "Ada")
	key(c, fyne.KeyTab)
	if c.Focused() != other {
		t.Fatalf("Tab moved the focus to %T, want the next field", c.Focused())
	}
	key(c, fyne.KeyTab) // from the multi-line field too
	if c.Focused() == other || other.Text != "" {
		t.Fatalf("Tab in the multi-line field typed %q and kept the focus", other.Text)
	}
	c.Focus(name)
	key(c, fyne.KeyReturn)
	if len(*answers) != 0 || c.Overlays().Top() == nil {
		t.Fatalf("Enter with a field wrong submitted: %v", *answers)
	}
	if c.Focused() != other {
		t.Fatalf("focus on %T after a refused Enter, want the wrong field", c.Focused())
	}
	typeText(c, "x")
	key(c, fyne.KeyReturn)
	if fmt.Sprint(*answers) != "[true]" || c.Overlays().Top() != nil || name.Text != "Ada" || other.Text != "x" {
		t.Fatalf("Enter with every field right: answers %v, fields %q %q", *answers, name.Text, other.Text)
	}
}

// asButton is o as a button: a widget.Button or a DialogButton.
func asButton(o fyne.CanvasObject) (*widget.Button, bool) {
	switch b := o.(type) {
	case *widget.Button:
		return b, true
	case *DialogButton:
		return &b.Button, true
	}
	return nil, false
}

// A person who tabbed from the fields to a choice or to the dialog's
// buttons still has Escape (cancel) and Enter (on a field's choice: submit;
// on a button: that button): Fyne's focused select and button took every
// key and answered neither.
func TestDialogButtonsAndChoicesTakeTheKeys(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("form")
	w.Resize(fyne.NewSize(800, 600))
	w.Show()
	c := w.Canvas()
	open := func() (*DialogSelect, *[]bool) {
		name := NewDialogEntry()
		kind := NewDialogSelect([]string{"a", "b"}, nil)
		kind.SetSelected("a")
		var answers []bool
		ShowForm(w, "Form", "Save", "Cancel", []*widget.FormItem{{Text: "Name", Widget: name}, {Text: "Kind", Widget: kind}},
			func(ok bool) { answers = append(answers, ok) }, 400)
		return kind, &answers
	}
	buttons := func() (cancel, save fyne.Focusable) {
		for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
			if b, ok := o.(*DialogButton); ok {
				switch b.Text {
				case "Cancel":
					cancel = b
				case "Save":
					save = b
				}
			}
		}
		if cancel == nil || save == nil {
			t.Fatal("the form has no Cancel and Save buttons of its own")
		}
		return
	}

	kind, answers := open()
	c.Focus(kind)
	key(c, fyne.KeyEscape)
	if fmt.Sprint(*answers) != "[false]" || c.Overlays().Top() != nil {
		t.Fatalf("Escape on a focused choice: answers %v", *answers)
	}
	kind, answers = open()
	c.Focus(kind)
	key(c, fyne.KeyReturn)
	if fmt.Sprint(*answers) != "[true]" {
		t.Fatalf("Enter on a focused choice: answers %v", *answers)
	}
	_, answers = open()
	_, save := buttons()
	c.Focus(save)
	key(c, fyne.KeyEscape)
	if fmt.Sprint(*answers) != "[false]" || c.Overlays().Top() != nil {
		t.Fatalf("Escape on the focused Save button: answers %v", *answers)
	}
	_, answers = open()
	cancel, _ := buttons()
	c.Focus(cancel)
	key(c, fyne.KeyReturn)
	if fmt.Sprint(*answers) != "[false]" || c.Overlays().Top() != nil {
		t.Fatalf("Enter on the focused Cancel button: answers %v", *answers)
	}
	_, answers = open()
	_, save = buttons()
	c.Focus(save)
	key(c, fyne.KeyReturn)
	if fmt.Sprint(*answers) != "[true]" {
		t.Fatalf("Enter on the focused Save button: answers %v", *answers)
	}

	// A question's buttons likewise.
	var said []bool
	ShowConfirm(w, "Sure?", "Really?", func(ok bool) { said = append(said, ok) })
	yes, no := fyne.Focusable(nil), fyne.Focusable(nil)
	for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
		if b, ok := o.(*DialogButton); ok {
			if b.Text == "Yes" {
				yes = b
			} else {
				no = b
			}
		}
	}
	if yes == nil || no == nil {
		t.Fatal("the question has no buttons of its own")
	}
	c.Focus(yes)
	key(c, fyne.KeyEscape)
	if fmt.Sprint(said) != "[false]" {
		t.Fatalf("Escape on the question's focused Yes: %v", said)
	}
}

// The Settings form fits a window of the default size: it ran past the
// bottom of an 800-high window, its buttons drawn over its last field. Its
// fields scroll; the buttons stay below them, inside the window.
func TestSettingsFitTheDefaultWindow(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	w := a.NewWindow("settings")
	w.SetContent(widget.NewLabel(""))
	w.Resize(DefaultWindowSize)
	w.Show()
	ShowSettings(w, DefaultSettings(), func(Settings) {})
	c := w.Canvas()
	d := fyne.CurrentApp().Driver()
	var save fyne.CanvasObject
	var scroll *container.Scroll
	for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
		if b, ok := o.(*DialogButton); ok && b.Text == "Save" {
			save = b
		}
		if s, ok := o.(*container.Scroll); ok && scroll == nil {
			scroll = s
		}
	}
	if save == nil || scroll == nil {
		t.Fatalf("no Save button (%v) or scrolled form (%v)", save != nil, scroll != nil)
	}
	bottom := d.AbsolutePositionForObject(save).Y + save.Size().Height
	if room := c.Size().Height; bottom > room {
		t.Errorf("Save ends at %.0f, below the %.0f-high window", bottom, room)
	}
	if formBottom := d.AbsolutePositionForObject(scroll).Y + scroll.Size().Height; formBottom > d.AbsolutePositionForObject(save).Y {
		t.Errorf("the form ends at %.0f, under the buttons (from %.0f)", formBottom, d.AbsolutePositionForObject(save).Y)
	}
}

// Every hint of the Settings form shows whole under its field (the remote
// browser's ran past the scrolled form's edge).
func TestSettingsHintsFitTheirFields(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DefaultTheme())
	w := a.NewWindow("settings")
	w.SetContent(widget.NewLabel(""))
	w.Resize(DefaultWindowSize)
	w.Show()
	items, _ := settingsForm(w, DefaultSettings())
	ShowSettings(w, DefaultSettings(), func(Settings) {})
	var form *widget.Form
	for _, o := range test.LaidOutObjects(w.Canvas().Overlays().Top()) {
		if f, ok := o.(*widget.Form); ok {
			form = f
		}
	}
	if form == nil {
		t.Fatal("no form in the Settings dialog")
	}
	for _, it := range form.Items {
		need := fyne.MeasureText(it.HintText, theme.CaptionTextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
		if have := it.Widget.Size().Width; need > have+0.5 {
			t.Errorf("%s: the hint needs %.0f, the field is %.0f wide: %q", it.Text, need, have, it.HintText)
		}
	}
	_ = items
}

// In Settings a focused tick box or choice takes Escape (cancel) and Enter
// (save) as its fields do: after Tab onto "Re-read blank observations" or
// the action set, Escape did nothing.
func TestSettingsTickBoxesAndChoicesTakeTheKeys(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("settings")
	w.SetContent(widget.NewLabel(""))
	w.Resize(DefaultWindowSize)
	w.Show()
	c := w.Canvas()
	find := func() (box *DialogCheck, set *DialogSelect) {
		for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
			switch v := o.(type) {
			case *DialogCheck:
				if v.Text == "Re-read blank observations" {
					box = v
				}
			case *DialogSelect:
				if len(v.Options) == 2 && v.Options[1] == "extended" {
					set = v
				}
			}
		}
		if box == nil || set == nil {
			t.Fatal("no recovery tick box or action set choice in Settings")
		}
		return
	}
	cur := DefaultSettings()
	cur.Annotator = "Ada"
	saved := 0
	ShowSettings(w, cur, func(Settings) { saved++ })
	box, _ := find()
	c.Focus(box)
	key(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil || saved != 0 {
		t.Fatalf("Escape on the focused tick box: dialog up %v, saved %d", c.Overlays().Top() != nil, saved)
	}
	ShowSettings(w, cur, func(Settings) { saved++ })
	_, set := find()
	c.Focus(set)
	key(c, fyne.KeyReturn)
	if c.Overlays().Top() != nil || saved != 1 {
		t.Fatalf("Enter on the focused action set: dialog up %v, saved %d", c.Overlays().Top() != nil, saved)
	}
}
