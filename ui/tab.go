// Package ui is the kit Waymark's screens share: the Context, the tab
// interfaces, the bridge to the UI thread, the main window, Settings, the
// words for errors and layouts. It talks to engine and dataset only through
// their exported Go APIs. Each screen is its own package (ui/record,
// ui/review, ui/tasks, ui/exporttab) that imports this one; this package
// never imports them — app wires them in.
package ui

import (
	"fyne.io/fyne/v2"

	"waymark/dataset"
)

// Context is what every screen gets.
type Context struct {
	App    fyne.App
	Window fyne.Window
	Store  *dataset.Store
	// User is the annotator/reviewer name from Settings.
	User func() string
	// Notify sends a desktop notification when the window is not focused
	// (nil-safe: screens call ctx.Notifyf).
	Notify func(title, body string)
	// Bridge is the one door from other goroutines to the UI thread for
	// every screen; it is closed once, at shutdown. Nil in widget tests
	// that build a bare Context: Do and After then run through fyne.Do.
	Bridge *Bridge
	// Branch starts, in the Record screen, a new episode that continues the
	// stored episode from its step k: steps 1..k are replayed and checked,
	// then the annotator goes on by hand. Nil when there is no Record screen
	// (screens call ctx.ContinueFrom).
	Branch func(episodeID string, k int)
	// AgentContinue starts a serve on this machine whose sessions begin
	// where the stored episode was after its step k, so an agent goes on
	// from there, and returns its URL. Nil when the app cannot (screens
	// check for nil).
	AgentContinue func(episodeID string, k int) (string, error)
}

// ContinueFrom asks the Record screen to branch episodeID at step k; it
// reports whether a Record screen took the request.
func (c *Context) ContinueFrom(episodeID string, k int) bool {
	if c == nil || c.Branch == nil {
		return false
	}
	c.Branch(episodeID, k)
	return true
}

// UI returns the screens' bridge. A context without one gets a new open
// Bridge on each call, so no caller can close a bridge others share.
func (c *Context) UI() *Bridge {
	if c == nil || c.Bridge == nil {
		return &Bridge{}
	}
	return c.Bridge
}

// Notifyf sends a notification if the context has a notifier.
func (c *Context) Notifyf(title, body string) {
	if c != nil && c.Notify != nil {
		c.Notify(title, body)
	}
}

// Tab is a screen of the main window.
type Tab interface {
	Title() string
	Content() fyne.CanvasObject
}

// Optional interfaces a Tab may implement. The main window routes key
// events to the tab that is showing when no widget inside has taken them.
type (
	// KeyHandler gets keys typed while the tab shows; it returns true when it
	// used the key.
	KeyHandler interface {
		TypedKey(*fyne.KeyEvent) bool
	}
	// ShortcutHandler gets Ctrl combinations while the tab shows.
	ShortcutHandler interface {
		TypedShortcut(fyne.Shortcut) bool
	}
	// Shower is told when its tab becomes visible (e.g. to refresh a queue).
	Shower interface {
		Shown()
	}
	// Closer is told when the window closes.
	Closer interface {
		Close()
	}
	// ShortcutLister names the canvas shortcuts (e.g. Ctrl+S) the main
	// window registers and routes to the tab's ShortcutHandler while it
	// shows.
	ShortcutLister interface {
		Shortcuts() []fyne.Shortcut
	}
)
