// Package sessions is the Sessions screen: it connects to a waymark serve,
// lists its live sessions and shows the chosen one's live screen and
// timeline as the agent steps. A person can take over (their clicks, keys
// and wheel become actions in the same episode, mapped as in recording)
// and hand back; the banner always says who is in control.
package sessions

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/engine/openenv/control"
	"waymark/ui"
)

// DefaultServer is the address serve listens on by default.
const DefaultServer = "http://127.0.0.1:8000"

// Keys: Ctrl+Shift+T takes over, Ctrl+Shift+H hands back.
var (
	takeKey = &desktop.CustomShortcut{KeyName: fyne.KeyT, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
	backKey = &desktop.CustomShortcut{KeyName: fyne.KeyH, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}
)

// Tab is the Sessions screen. Its fields are touched on the Fyne
// goroutine only; the watch goroutine hands its events over the bridge.
type Tab struct {
	ctx *ui.Context
	// life is the screen's lifetime: the watch, the session list and the
	// take-over ask the server under it; Close ends it.
	life    context.Context
	endLife context.CancelFunc

	server     *widget.Entry
	connectBtn *widget.Button
	list       *widget.List
	items      []control.SessionSummary
	view       *ui.LiveView
	pump       *ui.FramePump
	banner     *canvas.Rectangle
	bannerTx   *widget.Label
	status     *widget.Label
	timeline   *widget.List
	steps      []control.WatchStep // screenshots dropped
	takeBtn    *widget.Button
	backBtn    *widget.Button
	content    fyne.CanvasObject

	base    string // the server connected to
	watchID string
	watch   *control.WatchConn
	stop    context.CancelFunc
	gen     int // bumps at every new watch: late events of an old one are dropped
	summary *control.SessionSummary
	ended   string
	mapper  *ui.Mapper
	sendQ   chan command // the person's actions and the hand-back, sent in order
	polling bool         // the session list is refreshed every few seconds
	closed  bool
	// autoWatch watches the first session listed (WatchFirst).
	autoWatch  bool
	placed     bool // the live view's place was logged
	placeTries int

	// Debugf, when set, gets a line at each change of control and where
	// the live view is on the screen (the end-to-end tests click there).
	Debugf func(format string, args ...any)
}

// pollEvery is how often the session list is asked for again while
// connected.
const pollEvery = 2 * time.Second

// command is one message to the session: an action, or the hand-back.
type command struct {
	a        action.Action
	handBack bool
}

// New makes the Sessions screen.
func New(ctx *ui.Context) *Tab {
	t := &Tab{ctx: ctx}
	t.life, t.endLife = context.WithCancel(context.Background())
	t.server = widget.NewEntry()
	t.server.SetText(DefaultServer)
	t.server.OnSubmitted = func(string) { t.Connect() }
	t.connectBtn = widget.NewButton("Connect", t.Connect)
	t.connectBtn.Importance = widget.HighImportance
	t.list = &widget.List{
		Length: func() int { return len(t.items) },
		CreateItem: func() fyne.CanvasObject {
			l := widget.NewLabel("session")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(t.items) {
				o.(*widget.Label).SetText(sessionLine(t.items[id]))
			}
		},
		OnSelected: func(id widget.ListItemID) {
			if id < len(t.items) && t.items[id].ID != t.watchID {
				t.WatchSession(t.items[id].ID)
			}
		},
	}
	t.list.ExtendBaseWidget(t.list)
	t.view = ui.NewLiveView(readOnly{t})
	t.view.SetHint(hintNotConnected, true)
	t.view.Schedule = ctx.UI().After
	t.view.OnShortcut = t.TypedShortcut
	t.pump = ui.NewFramePump(ctx.UI(), t.view.SetFrame)
	t.banner = canvas.NewRectangle(bannerGrey)
	t.bannerTx = widget.NewLabelWithStyle("Not connected: give the address of a waymark serve and press Connect", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.bannerTx.Wrapping = fyne.TextWrapWord
	t.status = widget.NewLabel("")
	t.status.Wrapping = fyne.TextWrapWord
	t.timeline = &widget.List{
		Length: func() int { return len(t.steps) },
		CreateItem: func() fyne.CanvasObject {
			l := widget.NewLabel("step")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(t.steps) {
				l := o.(*widget.Label)
				st := t.steps[id]
				l.SetText(stepLine(st))
				l.Importance = widget.MediumImportance
				if strings.HasPrefix(st.Actor, "human:") {
					l.Importance = widget.WarningImportance
				}
				l.Refresh()
			}
		},
	}
	t.timeline.ExtendBaseWidget(t.timeline)
	t.takeBtn = widget.NewButton("Take over (Ctrl+Shift+T)", t.TakeOver)
	t.backBtn = widget.NewButton("Hand back (Ctrl+Shift+H)", t.HandBack)
	t.build()
	t.sync()
	return t
}

var (
	bannerGrey  = color.NRGBA{0x60, 0x60, 0x60, 0xff}
	bannerAgent = color.NRGBA{0x2b, 0x5b, 0xb6, 0xff}
	bannerMe    = color.NRGBA{0xc0, 0x4a, 0x10, 0xff}
	bannerOther = color.NRGBA{0x8a, 0x3f, 0xb0, 0xff}
)

func (t *Tab) build() {
	// The live screen keeps the viewport's size on the left; the column
	// beside it has the server, its live sessions and the watched one's
	// timeline, as wide as the window leaves.
	server := container.NewBorder(nil, nil, widget.NewLabel("Server"), t.connectBtn, t.server)
	sessions := container.NewBorder(widget.NewLabelWithStyle("Live sessions", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.list)
	timeline := container.NewBorder(widget.NewLabelWithStyle("Timeline", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.timeline)
	lists := container.NewVSplit(sessions, timeline)
	lists.Offset = 0.3
	column := container.NewBorder(server, nil, nil, nil, lists)
	// The banner's words wrap, white on its colour, within the column.
	bannerBox := container.New(bannerLayout{}, t.banner, container.NewThemeOverride(t.bannerTx, bannerTheme{}))
	screen := container.NewVBox(bannerBox, container.NewCenter(t.view), container.NewHBox(t.takeBtn, t.backBtn), t.status)
	t.content = container.NewBorder(nil, nil, ui.NewFixedWidth(t.view.MinSize().Width, screen), nil, column)
}

// Title implements ui.Tab.
func (t *Tab) Title() string { return "Sessions" }

// Content implements ui.Tab.
func (t *Tab) Content() fyne.CanvasObject { return t.content }

// Shortcuts lists the keys the main window routes here.
func (t *Tab) Shortcuts() []fyne.Shortcut { return []fyne.Shortcut{takeKey, backKey} }

// TypedShortcut takes over or hands back.
func (t *Tab) TypedShortcut(s fyne.Shortcut) bool {
	switch s.ShortcutName() {
	case takeKey.ShortcutName():
		t.TakeOver()
		return true
	case backKey.ShortcutName():
		t.HandBack()
		return true
	}
	return false
}

// me is who the person acts as.
func (t *Tab) me() string {
	if t.ctx == nil || t.ctx.User == nil {
		return ""
	}
	return strings.TrimSpace(t.ctx.User())
}

// inControl reports whether the person holds the watched session.
func (t *Tab) inControl() bool {
	return t.summary != nil && t.me() != "" && t.summary.Control == "human:"+t.me()
}

// SetServer connects to a serve at url (e.g. one the app started).
func (t *Tab) SetServer(url string) {
	t.server.SetText(url)
	t.Connect()
}

// WatchFirst connects to url and watches the first live session listed
// (gui --watch URL).
func (t *Tab) WatchFirst(url string) {
	t.autoWatch = true
	t.SetServer(url)
}

// poll refreshes the session list while connected and the screen is open.
func (t *Tab) poll() {
	if t.polling || t.closed {
		return
	}
	t.polling = true
	t.ctx.UI().After(pollEvery, func() {
		t.polling = false
		if t.base != "" && !t.closed {
			t.refresh(t.base)
		}
	})
}

// Connect lists the live sessions of the server in the entry.
func (t *Tab) Connect() {
	base, err := openenv.ServerBase(t.server.Text)
	if err != nil {
		t.setStatus(err.Error(), true)
		return
	}
	t.base = base
	t.setStatus("Asking "+base+" for its live sessions…", false)
	t.refresh(base)
}

// refresh asks base for its sessions and shows them; then polls again.
func (t *Tab) refresh(base string) {
	b := t.ctx.UI()
	go func() {
		list, err := control.ListSessions(t.life, base)
		b.Do(func() {
			if base != t.base || t.closed {
				return
			}
			if err != nil {
				t.setStatus(err.Error(), true)
				return // polling stops: Connect tries again
			}
			before := len(t.items)
			t.items = list
			t.list.Refresh()
			if t.autoWatch && t.watch == nil && t.watchID == "" && len(list) > 0 {
				t.autoWatch = false
				t.list.Select(0)
			}
			if t.watch == nil && (before != len(list) || t.status.Text == "" || strings.HasPrefix(t.status.Text, "Asking")) {
				if t.watchID == "" {
					t.view.SetHint(hintChoose, false)
					if len(list) == 0 {
						t.view.SetHint(hintNoSession, false)
					}
				}
				if len(list) == 0 {
					t.setStatus("No live session on "+base+" yet: an agent's session shows here once it connects.", false)
				} else {
					t.setStatus(fmt.Sprintf("%s on %s: choose one to watch.", ui.Plural(len(list), "live session"), base), false)
				}
			}
			t.sync()
			t.poll()
		})
	}()
}

// Sessions are the listed sessions.
func (t *Tab) Sessions() []control.SessionSummary { return t.items }

// sync shows who is in control and enables the buttons.
func (t *Tab) sync() {
	text, col := "Not watching: choose a live session", bannerGrey
	s := t.summary
	switch {
	case t.base == "" && t.watchID == "":
		text = "Not connected: give the address of a waymark serve and press Connect"
	case t.ended != "":
		text = "Session ended: " + t.ended
	case s == nil && t.watchID != "":
		text = "Connecting…"
	case s == nil:
	case t.inControl():
		text, col = "YOU ARE IN CONTROL ("+s.Control+"): your clicks and keys go to the page, the agent waits. Hand back: Ctrl+Shift+H", bannerMe
	case strings.HasPrefix(s.Control, "human:"):
		text, col = s.Control+" is in control: the agent waits", bannerOther
	default:
		text, col = s.Control+" is in control — you are watching (read-only). Take over: Ctrl+Shift+T", bannerAgent
	}
	if s != nil && t.ended == "" {
		if s.AgentWaiting {
			text += " · the agent's next step is held"
		}
		if !s.AgentConnected {
			text += " · the agent has disconnected"
		}
	}
	t.bannerTx.SetText(text)
	t.banner.FillColor = col
	t.banner.Refresh()
	live := t.watch != nil && t.ended == ""
	ui.SetEnabled(t.takeBtn, live && !t.inControl() && (s == nil || !strings.HasPrefix(s.Control, "human:")))
	ui.SetEnabled(t.backBtn, live && t.inControl())
}

// Banner is the control banner's text (tests read it).
func (t *Tab) Banner() string { return t.bannerTx.Text }

// Steps are the steps seen in the watched session.
func (t *Tab) Steps() []control.WatchStep { return t.steps }

// View is the live screen.
func (t *Tab) View() *ui.LiveView { return t.view }

func (t *Tab) debugf(format string, args ...any) {
	if t.Debugf != nil {
		t.Debugf(format, args...)
	}
}

// logPlace logs where the live view is on the screen, once it is laid
// out on it (until then it tries again a little later).
func (t *Tab) logPlace() {
	if t.placed || t.Debugf == nil || t.closed {
		return
	}
	app := fyne.CurrentApp()
	if app == nil {
		return
	}
	c := app.Driver().CanvasForObject(t.view)
	if c == nil || t.view.Size() != t.view.MinSize() || !t.view.Visible() {
		if t.placeTries++; t.placeTries < 100 {
			t.ctx.UI().After(100*time.Millisecond, t.logPlace)
		}
		return
	}
	t.placed = true
	pos := app.Driver().AbsolutePositionForObject(t.view)
	t.debugf("sessions liveview at %g,%g size %gx%g scale %g", pos.X, pos.Y, t.view.Size().Width, t.view.Size().Height, c.Scale())
}

func (t *Tab) setStatus(msg string, bad bool) {
	t.status.SetText(msg)
	t.status.Importance = widget.MediumImportance
	if bad {
		t.status.Importance = widget.DangerImportance
	}
	t.status.Refresh()
}

// Close ends the watch and the polling (the window closes).
func (t *Tab) Close() {
	t.closed = true
	t.stopWatch()
	t.endLife()
}
