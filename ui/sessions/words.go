package sessions

import (
	"fmt"
	"image/color"
	"math"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"waymark/engine/action"
	"waymark/engine/openenv/control"
	"waymark/ui"
)

// sessionLine is one row of the session list.
func sessionLine(s control.SessionSummary) string {
	where := s.URL
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		where = u.Host + u.Path
	}
	parts := []string{s.Control, ui.Plural(s.Steps, "step"), where}
	if !s.AgentConnected {
		parts = append(parts, "agent gone")
	}
	return strings.Join(parts, " · ")
}

// stepLine is one row of the timeline.
func stepLine(st control.WatchStep) string {
	what := "start"
	if len(st.Action) > 0 && string(st.Action) != "null" {
		if a, err := action.Parse(st.Action, action.SetExtended); err == nil {
			what = a.String()
		}
	}
	line := fmt.Sprintf("%d · %s · %s", st.Step, st.Actor, what)
	if st.Error != "" {
		line += " · " + st.Error
	}
	return line
}

// Words of the live view when it has no picture.
const (
	hintNotConnected = "Connect to a waymark serve, then choose a live session to watch"
	hintChoose       = "Choose a live session on the left to watch it"
	hintNoSession    = "No live session yet: an agent's session shows on the left once it connects"
	hintConnecting   = "Connecting to the session…"
)

// watchingText is the line under the view while the person watches.
func watchingText() string {
	return "Watching, read-only. Take over (Ctrl+Shift+T) to act on the page yourself."
}

// controlText is the line under the view while the person is in control.
func controlText(me string) string {
	return "You act as human:" + me + ": each click, key and scroll is a step. Hand back: Ctrl+Shift+H."
}

// bannerTheme writes the control banner's words white on its colour,
// whatever the app's theme.
type bannerTheme struct{}

func (bannerTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNameForeground {
		return color.White
	}
	return fyne.CurrentApp().Settings().Theme().Color(n, v)
}

func (bannerTheme) Font(s fyne.TextStyle) fyne.Resource {
	return fyne.CurrentApp().Settings().Theme().Font(s)
}

func (bannerTheme) Icon(n fyne.ThemeIconName) fyne.Resource {
	return fyne.CurrentApp().Settings().Theme().Icon(n)
}

func (bannerTheme) Size(n fyne.ThemeSizeName) float32 {
	return fyne.CurrentApp().Settings().Theme().Size(n)
}

// bannerLayout lays the control banner's text over its colour: as wide as
// the column, asking for no width, so a long text never moves the live
// view.
type bannerLayout struct{}

const bannerPad = 6

func (bannerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
	objs[1].Move(fyne.NewPos(bannerPad, bannerPad))
	objs[1].Resize(fyne.NewSize(size.Width-2*bannerPad, size.Height-2*bannerPad))
}

func (bannerLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	// A whole number of units, so the live view below sits on whole pixels.
	return fyne.NewSize(0, float32(math.Ceil(float64(objs[1].MinSize().Height)))+2*bannerPad)
}
