package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// MaxTabWidth is the widest a tab's content may ask to be (logical units)
// before the window gives it a sideways scroll bar instead of growing.
const MaxTabWidth = 1240

// MainWindow is Waymark's one window: a tab per screen. Key events that no
// focused widget takes go to the shown tab's KeyHandler or ShortcutHandler.
type MainWindow struct {
	ctx  *Context
	Tabs *container.AppTabs
	tabs []Tab
}

// NewMainWindow fills ctx.Window with tabs, in order. Every screen is its
// own package (ui/record, ui/tasks, ui/review, ui/exporttab) and is passed
// in by the app; a nil entry is skipped.
func NewMainWindow(ctx *Context, tabs ...Tab) *MainWindow {
	m := &MainWindow{ctx: ctx}
	m.Tabs = container.NewAppTabs()
	for _, t := range tabs {
		if t == nil {
			continue
		}
		m.tabs = append(m.tabs, t)
		// A screen wider than a laptop display (or made wider by the
		// Settings' zoom, at any time) would widen the whole window past
		// the screen; it scrolls sideways instead.
		content := container.New(maxTabWidth{}, container.NewHScroll(t.Content()))
		m.Tabs.Append(container.NewTabItem(t.Title(), content))
	}
	m.Tabs.OnSelected = func(*container.TabItem) {
		if s, ok := m.Current().(Shower); ok {
			s.Shown()
		}
	}
	w := ctx.Window
	w.SetContent(m.Tabs)
	c := w.Canvas()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if h, ok := m.Current().(KeyHandler); ok {
			h.TypedKey(ev)
		}
	})
	seen := map[string]bool{}
	for _, t := range m.tabs {
		if l, ok := t.(ShortcutLister); ok {
			for _, s := range l.Shortcuts() {
				if !seen[s.ShortcutName()] {
					seen[s.ShortcutName()] = true
					c.AddShortcut(s, func(s fyne.Shortcut) { m.routeShortcut(s) })
				}
			}
		}
	}
	return m
}

func (m *MainWindow) routeShortcut(s fyne.Shortcut) {
	if h, ok := m.Current().(ShortcutHandler); ok {
		h.TypedShortcut(s)
	}
}

// AddShortcut registers a canvas shortcut routed to the shown tab (tabs
// call it for their own Ctrl combinations).
func (m *MainWindow) AddShortcut(s fyne.Shortcut) {
	m.ctx.Window.Canvas().AddShortcut(s, func(s fyne.Shortcut) { m.routeShortcut(s) })
}

// Current is the tab shown now.
func (m *MainWindow) Current() Tab {
	i := m.Tabs.SelectedIndex()
	if i < 0 || i >= len(m.tabs) {
		return nil
	}
	return m.tabs[i]
}

// Select shows the tab with the given title.
func (m *MainWindow) Select(title string) {
	for i, t := range m.tabs {
		if t.Title() == title {
			m.Tabs.SelectIndex(i)
			return
		}
	}
}

// Close tells every tab that implements Closer that the window closes.
func (m *MainWindow) Close() {
	for _, t := range m.tabs {
		if c, ok := t.(Closer); ok {
			c.Close()
		}
	}
}

// placeholder is a tab whose screen is not wired in yet.
type placeholder struct {
	title string
	box   fyne.CanvasObject
}

// NewPlaceholderTab is a tab that says what will be there.
func NewPlaceholderTab(title, text string) Tab {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Alignment = fyne.TextAlignCenter
	h := widget.NewLabelWithStyle(title, fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	icon := widget.NewIcon(theme.InfoIcon())
	box := container.NewVBox(layout.NewSpacer(), container.NewCenter(icon), h, container.NewCenter(container.New(fixedWidth(480), l)), layout.NewSpacer())
	return &placeholder{title: title, box: box}
}

func (p *placeholder) Title() string              { return p.title }
func (p *placeholder) Content() fyne.CanvasObject { return p.box }

// maxTabWidth asks for its content's minimum size, but at most MaxTabWidth
// wide; the content is a sideways scroll that shows the rest.
type maxTabWidth struct{}

func (maxTabWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (maxTabWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		if sc, ok := o.(*container.Scroll); ok {
			m.Width = sc.Content.MinSize().Width
		}
		s = s.Max(m)
	}
	s.Width = min(s.Width, MaxTabWidth)
	return s
}
