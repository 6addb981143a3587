package record

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
	"waymark/ui"
)

// Record-tab keyboard shortcuts (toolbar actions). They use Ctrl+Shift so
// they never collide with keys meant for the page.
var (
	ShortcutBack    = &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutWait    = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutFinish  = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutDiscard = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutRestart = &desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutStart   = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	ShortcutNext    = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
)

// shortcutAltLeft is the browsers' Back key, accepted as well.
var shortcutAltLeft = &desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}

// toolbarWidgets are the toolbar's buttons and the recording light.
type toolbarWidgets struct {
	backBtn, waitBtn, finishBtn, discardBtn, restartBtn *widget.Button
	gotoBtn                                             *widget.Button
	recDot                                              *canvas.Circle
	recLbl                                              *widget.Label
	noteState                                           // the Note button and field (note.go)
}

// buildToolbar makes the toolbar: the actions over the live view, the
// recording light and the Settings button.
func (r *Tab) buildToolbar() fyne.CanvasObject {
	r.backBtn = &widget.Button{Text: "Back", Icon: theme.NavigateBackIcon(), OnTapped: func() { r.act(action.Action{Op: action.Back}) }}
	r.waitBtn = &widget.Button{Text: "Wait", Icon: theme.HistoryIcon(), OnTapped: func() { r.act(action.Action{Op: action.Wait}) }}
	r.finishBtn = &widget.Button{Text: "Finish…", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, OnTapped: r.askFinish}
	r.discardBtn = &widget.Button{Text: "Discard", Icon: theme.DeleteIcon(), Importance: widget.DangerImportance, OnTapped: r.askDiscard}
	r.restartBtn = &widget.Button{Text: "Restart", Icon: theme.ViewRefreshIcon(), OnTapped: r.askRestart}
	r.gotoBtn = &widget.Button{Text: "Go to…", Icon: theme.SearchIcon(), OnTapped: r.askGoto}
	r.noteBtn = &widget.Button{Text: "Note…", Icon: theme.DocumentCreateIcon(), OnTapped: func() { r.askNote(false) }}
	settingsBtn := &widget.Button{Icon: theme.SettingsIcon(), Importance: widget.LowImportance, OnTapped: func() {
		if r.opts.ShowSettings != nil {
			r.opts.ShowSettings()
		}
	}}
	r.recDot = &canvas.Circle{FillColor: color.NRGBA{0x88, 0x88, 0x88, 0xff}}
	r.recLbl = widget.NewLabel("Not recording")
	return container.NewHBox(r.backBtn, r.waitBtn, r.gotoBtn, r.finishBtn, widget.NewSeparator(), r.buildUndoButton(), r.noteBtn, r.restartBtn, r.discardBtn,
		layout.NewSpacer(), container.NewCenter(container.New(&ui.FixedSize{S: fyne.NewSize(12, 12)}, r.recDot)), r.recLbl, settingsBtn)
}

// Shortcuts are the toolbar's keyboard shortcuts (ShortcutLister).
func (r *Tab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{ShortcutBack, shortcutAltLeft, ShortcutWait, ShortcutFinish, ShortcutDiscard, ShortcutRestart, ShortcutStart, ShortcutNext, ShortcutNote, ShortcutUndo}
}

// TypedShortcut runs the toolbar's keyboard shortcuts.
func (r *Tab) TypedShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return false
	}
	if !r.view.Focused() {
		// The window took it (the view gets its own first when it has the
		// keyboard): its key, still down, must not type into the page
		// should the shortcut give the view the keyboard.
		r.view.HoldShortcutKey(s)
	}
	switch cs.ShortcutName() {
	case ShortcutBack.ShortcutName(), shortcutAltLeft.ShortcutName():
		r.act(action.Action{Op: action.Back})
	case ShortcutWait.ShortcutName():
		r.act(action.Action{Op: action.Wait})
	case ShortcutFinish.ShortcutName():
		r.askFinish()
	case ShortcutDiscard.ShortcutName():
		r.askDiscard()
	case ShortcutRestart.ShortcutName():
		r.askRestart()
	case ShortcutStart.ShortcutName():
		if r.state == stIdle || r.state == stEnded {
			r.startChosen()
		}
	case ShortcutNote.ShortcutName():
		r.askNote(true)
	case ShortcutUndo.ShortcutName():
		r.undo()
	case ShortcutNext.ShortcutName():
		if r.state == stIdle || r.state == stEnded {
			if t := r.nextTask(); t != nil {
				r.StartTask(*t)
			}
		}
	default:
		return false
	}
	return true
}

// focusView gives the keyboard back to the page after a toolbar action.
func (r *Tab) focusView() {
	if r.ctx.Window != nil {
		r.ctx.Window.Canvas().Focus(r.view)
	}
}
