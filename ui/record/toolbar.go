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

// toolbar is the row over the live view: the actions, Undo, Note, Restart
// and Discard, the recording light and the Settings button. Its buttons
// call the Tab, which asks the part that acts.
type toolbar struct {
	t                                                   *Tab
	backBtn, waitBtn, finishBtn, discardBtn, restartBtn *widget.Button
	gotoBtn, undoBtn, noteBtn                           *widget.Button
	recDot                                              *canvas.Circle
	recLbl                                              *widget.Label
	// gotoLogged is whether Go to…'s place was logged (--debug).
	gotoLogged bool
}

// build makes the toolbar.
func (b *toolbar) build() fyne.CanvasObject {
	r := b.t
	b.backBtn = &widget.Button{Text: "Back", Icon: theme.NavigateBackIcon(), OnTapped: func() { r.life.act(action.Action{Op: action.Back}) }}
	b.waitBtn = &widget.Button{Text: "Wait", Icon: theme.HistoryIcon(), OnTapped: func() { r.life.act(action.Action{Op: action.Wait}) }}
	b.finishBtn = &widget.Button{Text: "Finish…", Icon: theme.ConfirmIcon(), Importance: widget.HighImportance, OnTapped: r.askFinish}
	b.discardBtn = &widget.Button{Text: "Discard", Icon: theme.DeleteIcon(), Importance: widget.DangerImportance, OnTapped: r.askDiscard}
	b.restartBtn = &widget.Button{Text: "Restart", Icon: theme.ViewRefreshIcon(), OnTapped: r.askRestart}
	b.gotoBtn = &widget.Button{Text: "Go to…", Icon: theme.SearchIcon(), OnTapped: r.askGoto}
	b.undoBtn = &widget.Button{Text: "Undo", Icon: theme.ContentUndoIcon(), OnTapped: r.life.undo}
	b.noteBtn = &widget.Button{Text: "Note…", Icon: theme.DocumentCreateIcon(), OnTapped: func() { r.notes.ask(false) }}
	settingsBtn := &widget.Button{Icon: theme.SettingsIcon(), Importance: widget.LowImportance, OnTapped: func() {
		if r.opts.ShowSettings != nil {
			r.opts.ShowSettings()
		}
	}}
	b.recDot = &canvas.Circle{FillColor: color.NRGBA{0x88, 0x88, 0x88, 0xff}}
	b.recLbl = widget.NewLabel("Not recording")
	return container.NewHBox(b.backBtn, b.waitBtn, b.gotoBtn, b.finishBtn, widget.NewSeparator(), b.undoBtn, b.noteBtn, b.restartBtn, b.discardBtn,
		layout.NewSpacer(), container.NewCenter(container.New(&ui.FixedSize{S: fyne.NewSize(12, 12)}, b.recDot)), b.recLbl, settingsBtn)
}

// toolbarState is what the toolbar shows besides the episode's state.
type toolbarState struct {
	hasTask  bool // a task is chosen (Restart)
	noteable bool // a step can take a note
	showGoto bool // the action set has goto
	canGoto  bool
	// ended is how the last episode ended; started, whether it got its
	// start page (the light says what became of it).
	ended   action.EndReason
	started bool
}

// sync enables the buttons that can act now and sets the recording light.
func (b *toolbar) sync(st recState, s toolbarState) {
	rec := st == stRecording
	ui.SetEnabled(b.backBtn, rec)
	ui.SetEnabled(b.waitBtn, rec)
	ui.SetEnabled(b.finishBtn, rec)
	ui.SetEnabled(b.noteBtn, s.noteable)
	if s.showGoto {
		b.gotoBtn.Show()
	} else {
		b.gotoBtn.Hide()
	}
	ui.SetEnabled(b.gotoBtn, s.canGoto)
	ui.SetEnabled(b.discardBtn, rec || st == stStarting)
	ui.SetEnabled(b.restartBtn, s.hasTask && (rec || st == stEnded))
	switch st {
	case stIdle:
		b.recLbl.SetText("Not recording")
		b.recDot.FillColor = color.NRGBA{0x88, 0x88, 0x88, 0xff}
	case stStarting:
		b.recLbl.SetText("Starting")
		b.recDot.FillColor = color.NRGBA{0xe0, 0xa0, 0x00, 0xff}
	case stRecording:
		b.recLbl.SetText("Recording")
		b.recDot.FillColor = color.NRGBA{0xe5, 0x39, 0x35, 0xff}
	case stEnded:
		switch {
		case s.ended == action.EndDiscarded:
			b.recLbl.SetText("Discarded")
			b.recDot.FillColor = color.NRGBA{0x88, 0x88, 0x88, 0xff}
		case !s.started:
			b.recLbl.SetText("Not started")
			b.recDot.FillColor = color.NRGBA{0x88, 0x88, 0x88, 0xff}
		case s.ended == "" || s.ended == action.EndInterrupted:
			b.recLbl.SetText("Saved, interrupted")
			b.recDot.FillColor = color.NRGBA{0xe0, 0xa0, 0x00, 0xff}
		default:
			b.recLbl.SetText("Saved")
			b.recDot.FillColor = color.NRGBA{0x43, 0xa0, 0x47, 0xff}
		}
	}
	b.recDot.Refresh()
}

// syncUndo enables Undo (while recording, nothing replaying).
func (b *toolbar) syncUndo(ok bool) {
	if b.undoBtn != nil {
		ui.SetEnabled(b.undoBtn, ok)
	}
}

// Shortcuts are the toolbar's keyboard shortcuts (ShortcutLister).
func (r *Tab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{ShortcutBack, shortcutAltLeft, ShortcutWait, ShortcutFinish, ShortcutDiscard, ShortcutRestart, ShortcutStart, ShortcutNext, ShortcutNote, ShortcutUndo, ShortcutCut}
}

// TypedShortcut runs the toolbar's keyboard shortcuts.
func (r *Tab) TypedShortcut(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return false
	}
	if !r.live.view.Focused() {
		// The window took it (the view gets its own first when it has the
		// keyboard): its key, still down, must not type into the page
		// should the shortcut give the view the keyboard.
		r.live.view.HoldShortcutKey(s)
	}
	switch cs.ShortcutName() {
	case ShortcutBack.ShortcutName(), shortcutAltLeft.ShortcutName():
		r.life.act(action.Action{Op: action.Back})
	case ShortcutWait.ShortcutName():
		r.life.act(action.Action{Op: action.Wait})
	case ShortcutFinish.ShortcutName():
		r.askFinish()
	case ShortcutDiscard.ShortcutName():
		r.askDiscard()
	case ShortcutRestart.ShortcutName():
		r.askRestart()
	case ShortcutStart.ShortcutName():
		if !r.life.busy() {
			r.startChosen()
		}
	case ShortcutNote.ShortcutName():
		r.notes.ask(true)
	case ShortcutUndo.ShortcutName():
		r.life.undo()
	case ShortcutCut.ShortcutName():
		r.cuts.askByKey()
	case ShortcutNext.ShortcutName():
		if !r.life.busy() {
			if t := r.panel.next(); t != nil {
				r.StartTask(*t)
			}
		}
	default:
		return false
	}
	return true
}
