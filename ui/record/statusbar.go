package record

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/ui"
)

// statusBar is the line under the screen: the step count, the page's
// address, the last error, the last step's latency and where the episode
// runs.
type statusBar struct {
	stepLbl, urlLbl, errLbl, latLbl *widget.Label
	engineLbl                       *widget.Label
}

// buildStatusBar makes the status bar.
func (r *Tab) buildStatusBar() fyne.CanvasObject {
	r.engineLbl = widget.NewLabel("")
	r.engineLbl.SizeName = theme.SizeNameCaptionText
	r.stepLbl = widget.NewLabel("")
	r.stepLbl.TextStyle = fyne.TextStyle{Bold: true}
	r.urlLbl = widget.NewLabel("")
	r.urlLbl.Truncation = fyne.TextTruncateEllipsis
	r.urlLbl.TextStyle = fyne.TextStyle{Monospace: true}
	r.errLbl = widget.NewLabel("")
	r.errLbl.Importance = widget.DangerImportance
	// A message says what to do: shown in full, on more lines if need be.
	r.errLbl.Wrapping = fyne.TextWrapWord
	r.latLbl = widget.NewLabel("")
	return container.NewBorder(nil, nil, container.NewHBox(r.stepLbl, widget.NewSeparator()), container.NewHBox(widget.NewSeparator(), r.latLbl, widget.NewSeparator(), r.engineLbl),
		container.NewGridWithColumns(2, r.urlLbl, container.New(twoLines{}, r.errLbl)))
}

// sync enables the buttons that can act now and updates the status bar.
func (r *Tab) sync() {
	rec := r.state == stRecording
	r.foldQueue(rec || r.state == stStarting)
	// Input made while the browser starts is queued for the page; while
	// stored steps replay it is refused.
	r.view.SetRecording((rec || r.state == stStarting) && r.replaying == "")
	if !rec && r.state != stStarting && r.opts.Settings != nil {
		// Between episodes: where the next one will run (Settings applies
		// from the next episode).
		r.engineLbl.SetText(plannedEngine(r.opts.Settings()))
	}
	ui.SetEnabled(r.backBtn, rec)
	ui.SetEnabled(r.waitBtn, rec)
	ui.SetEnabled(r.finishBtn, rec)
	_, noteable := r.noteTarget()
	ui.SetEnabled(r.noteBtn, noteable)
	// goto exists only in the extended set; the default set hides it.
	if r.set.HasOp(action.Goto) || (r.state == stIdle && r.opts.Settings().ActionSet.HasOp(action.Goto)) {
		r.gotoBtn.Show()
	} else {
		r.gotoBtn.Hide()
	}
	ui.SetEnabled(r.gotoBtn, rec && r.set.HasOp(action.Goto))
	ui.SetEnabled(r.discardBtn, rec || r.state == stStarting)
	ui.SetEnabled(r.restartBtn, r.task != nil && (rec || r.state == stEnded))
	ui.SetEnabled(r.startBtn, r.task != nil && !rec && r.state != stStarting)
	steps := r.keptSteps()
	if len(r.rows) > 0 {
		r.stepsHead.SetText(stepsHeadSteps)
	} else {
		r.stepsHead.SetText(stepsHeadEmpty)
	}
	switch r.state {
	case stIdle:
		r.stepLbl.SetText("No episode")
		r.recLbl.SetText("Not recording")
		r.recDot.FillColor = color.NRGBA{0x88, 0x88, 0x88, 0xff}
	case stStarting:
		r.stepLbl.SetText("Starting…")
		r.recLbl.SetText("Starting")
		r.recDot.FillColor = color.NRGBA{0xe0, 0xa0, 0x00, 0xff}
	case stRecording:
		r.stepLbl.SetText(fmt.Sprintf("Step %d / %d", steps, r.maxSteps))
		r.recLbl.SetText("Recording")
		r.recDot.FillColor = color.NRGBA{0xe5, 0x39, 0x35, 0xff}
	case stEnded:
		r.stepLbl.SetText(fmt.Sprintf("Ended after %d / %d", steps, r.maxSteps))
		r.recLbl.SetText("Saved")
		r.recDot.FillColor = color.NRGBA{0x43, 0xa0, 0x47, 0xff}
	}
	r.recDot.Refresh()
	r.urlLbl.SetText(r.lastURL)
	r.syncContinue() // Undo and Continue from step K (continue.go)
}

// setError shows the last error (or refusal) in words; "" clears it.
func (r *Tab) setError(msg string) {
	r.errLbl.Importance = widget.DangerImportance
	r.errLbl.SetText(msg)
}

// setStatus shows a neutral message where errors go.
func (r *Tab) setStatus(msg string) {
	r.errLbl.Importance = widget.MediumImportance
	r.errLbl.SetText(msg)
}

// setTitle shows what is being recorded in the window title.
func (r *Tab) setTitle(what string) {
	if r.ctx.Window == nil {
		return
	}
	if rs := []rune(what); len(rs) > 70 {
		what = string(rs[:70]) + "…"
	}
	if what == "" {
		r.ctx.Window.SetTitle("Waymark")
		return
	}
	r.ctx.Window.SetTitle("Waymark · " + what)
}

// engineText says where the episode runs, e.g. "Chromium 156 · Xvfb ·
// default actions".
func engineText(i engine.Info) string {
	var parts []string
	switch {
	case i.Kind == "openenv":
		parts = append(parts, "OpenEnv "+i.Server)
	default:
		if f := strings.Fields(i.Browser); len(f) >= 2 {
			parts = append(parts, f[0]+" "+strings.SplitN(f[1], ".", 2)[0]) // "Chromium 156"
		}
		if i.Display != "" {
			parts = append(parts, i.Display)
		}
	}
	if i.ActionSet != "" {
		parts = append(parts, string(i.ActionSet)+" actions")
	}
	return strings.Join(parts, " · ")
}

// plannedEngine says where the next episode runs, from the settings.
func plannedEngine(s ui.Settings) string {
	where := "local browser"
	switch {
	case s.Server != "":
		where = "OpenEnv server " + s.Server
	case s.RemoteBrowser != "":
		where = "remote browser " + strings.SplitN(s.RemoteBrowser, "?", 2)[0] // a farm's token stays off the screen
	case s.Display != "":
		where += " (" + s.Display + ")"
	}
	set := s.ActionSet
	if set == "" {
		set = action.SetDefault
	}
	return "Next episode: " + where + " · " + string(set) + " actions"
}

// twoLines keeps room for two lines of a label: a message that wraps onto
// a second line does not make the screen taller (in a window just tall
// enough, the toolkit would lay that line out past the bottom edge). A
// longer one still gets its lines.
type twoLines struct{}

func (twoLines) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (twoLines) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := fyne.NewSize(0, ui.LabelsHeight(1, 2))
	for _, o := range objs {
		m = m.Max(o.MinSize())
	}
	return m
}
