package record

import (
	"fmt"
	"math"
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
	msgBox                          *fyne.Container // errLbl's room, hidden while it is empty
}

// build makes the status bar.
func (s *statusBar) build() fyne.CanvasObject {
	s.engineLbl = widget.NewLabel("")
	s.engineLbl.SizeName = theme.SizeNameCaptionText
	s.stepLbl = widget.NewLabel("")
	s.stepLbl.TextStyle = fyne.TextStyle{Bold: true}
	s.urlLbl = widget.NewLabel("")
	s.urlLbl.Truncation = fyne.TextTruncateEllipsis
	s.urlLbl.TextStyle = fyne.TextStyle{Monospace: true}
	s.errLbl = widget.NewLabel("")
	s.errLbl.Importance = widget.DangerImportance
	// A message says what to do: shown in full, on more lines if need be.
	s.errLbl.Wrapping = fyne.TextWrapWord
	s.latLbl = widget.NewLabel("")
	s.msgBox = container.New(twoLines{}, s.errLbl)
	s.msgBox.Hide()
	// The message gets most of the width (the address is cut with "…"),
	// so that a long one takes few lines in a window just tall enough.
	return container.NewBorder(nil, nil, container.NewHBox(s.stepLbl, widget.NewSeparator()), container.NewHBox(widget.NewSeparator(), s.latLbl, widget.NewSeparator(), s.engineLbl),
		container.New(shareRow{first: 0.3}, s.urlLbl, s.msgBox))
}

// shareRow lays two objects side by side, the first taking the share
// first of the width, the second the rest; the first takes all of it
// while the second is hidden.
type shareRow struct{ first float32 }

func (r shareRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if !objs[1].Visible() {
		objs[0].Move(fyne.NewPos(0, 0))
		objs[0].Resize(size)
		return
	}
	gap := theme.Padding()
	w0 := float32(math.Floor(float64((size.Width - gap) * r.first)))
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(w0, size.Height))
	objs[1].Move(fyne.NewPos(w0+gap, 0))
	objs[1].Resize(fyne.NewSize(size.Width-w0-gap, size.Height))
}

func (r shareRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m0, m1 := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(m0.Width+m1.Width+theme.Padding(), max(m0.Height, m1.Height))
}

// showEpisode shows where the episode is (the step count) and the page's
// address.
func (s *statusBar) showEpisode(st recState, steps, maxSteps int, url string) {
	switch st {
	case stIdle:
		s.stepLbl.SetText("No episode")
	case stStarting:
		s.stepLbl.SetText("Starting…")
	case stRecording:
		s.stepLbl.SetText(fmt.Sprintf("Step %d / %d", steps, maxSteps))
	case stEnded:
		s.stepLbl.SetText(fmt.Sprintf("Ended after %d / %d", steps, maxSteps))
	}
	s.urlLbl.SetText(url)
}

// setEngine says where the episode runs, or where the next one will.
func (s *statusBar) setEngine(text string) { s.engineLbl.SetText(text) }

// setLatency shows how long the last step took ("" clears it).
func (s *statusBar) setLatency(text string) { s.latLbl.SetText(text) }

// setError shows the last error (or refusal) in words; "" clears it.
func (s *statusBar) setError(msg string) {
	s.errLbl.Importance = widget.DangerImportance
	s.setMessage(msg)
}

// setStatus shows a neutral message where errors go.
func (s *statusBar) setStatus(msg string) {
	s.errLbl.Importance = widget.MediumImportance
	s.setMessage(msg)
}

// setMessage shows msg beside the address, which has the bar's width
// while there is none.
func (s *statusBar) setMessage(msg string) {
	s.errLbl.SetText(msg)
	if msg == "" {
		s.msgBox.Hide()
	} else {
		s.msgBox.Show()
	}
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
