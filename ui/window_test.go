package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

// probeTab records what the window routes to it.
type probeTab struct {
	title     string
	content   fyne.CanvasObject
	keys      []fyne.KeyName
	shortcuts []string
	closed    bool
}

func (p *probeTab) Title() string              { return p.title }
func (p *probeTab) Content() fyne.CanvasObject { return p.content }
func (p *probeTab) TypedKey(e *fyne.KeyEvent) bool {
	p.keys = append(p.keys, e.Name)
	return true
}
func (p *probeTab) TypedShortcut(s fyne.Shortcut) bool {
	p.shortcuts = append(p.shortcuts, s.ShortcutName())
	return true
}
func (p *probeTab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}}
}
func (p *probeTab) Close() { p.closed = true }

func TestMainWindowRoutesKeysToTheShownTab(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	wide := canvas.NewRectangle(nil)
	wide.SetMinSize(fyne.NewSize(2000, 100))
	a := &probeTab{title: "A", content: wide}
	b := &probeTab{title: "B", content: canvas.NewRectangle(nil)}
	mw := NewMainWindow(&Context{Window: w}, a, nil, NewPlaceholderTab("Export", "Export will be here."), b)
	if n := len(mw.Tabs.Items); n != 3 {
		t.Fatalf("%d tabs, want 3 (nil skipped)", n)
	}
	if _, ok := mw.Tabs.Items[0].Content.(*container.Scroll); !ok {
		t.Fatal("a tab wider than MaxTabWidth must scroll, not widen the window")
	}
	c := w.Canvas()
	c.(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyN})
	mw.Select("B")
	c.(test.WindowlessCanvas).OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyLeft})
	ctrlS := &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}
	c.(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(ctrlS)
	if len(a.keys) != 1 || a.keys[0] != fyne.KeyN || len(b.keys) != 1 || b.keys[0] != fyne.KeyLeft {
		t.Fatalf("keys a=%v b=%v", a.keys, b.keys)
	}
	if len(a.shortcuts) != 0 || len(b.shortcuts) != 1 {
		t.Fatalf("shortcuts a=%v b=%v (only the shown tab gets them)", a.shortcuts, b.shortcuts)
	}
	mw.Close()
	if !a.closed || !b.closed {
		t.Fatal("Close must reach every Closer")
	}
}
