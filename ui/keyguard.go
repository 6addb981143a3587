package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// KeyGuard keeps a shortcut's key from typing. Fyne sends a shortcut when
// its key is pressed with the modifiers held; if the person lets go of Ctrl
// and Shift first while the key is still down, the keyboard's repeats
// arrive as a plain TypedKey followed by its TypedRune (GLFW sends the key
// before its character, in the same event). Without the guard, Ctrl+Shift+S
// held a little long typed "s" into the page the start had just focused.
//
// A key that made a shortcut is held back until it is released (KeyUp) or
// pressed afresh (KeyDown, which Fyne sends only for a real press, never
// for a repeat); while held back, its TypedKey is dropped and so is the
// rune that follows it. The widget that owns the guard feeds it every key
// event; a guard is used on the Fyne goroutine only.
type KeyGuard struct {
	shortcut map[fyne.KeyName]bool // keys that made a shortcut, until released
	down     map[fyne.KeyName]bool // keys seen pressed (KeyDown) and not released
	dropRune bool                  // the next rune belongs to a held-back key
}

// KeyDown notes a real press.
func (g *KeyGuard) KeyDown(k fyne.KeyName) {
	g.dropRune = false
	if g.down == nil {
		g.down = map[fyne.KeyName]bool{}
	}
	g.down[k] = true
	delete(g.shortcut, k)
}

// KeyUp notes a release.
func (g *KeyGuard) KeyUp(k fyne.KeyName) {
	g.dropRune = false
	delete(g.down, k)
	delete(g.shortcut, k)
}

// ShortcutTyped notes that s was typed and reports whether it is the
// keyboard repeating a shortcut still held (its key seen pressed, not
// released, and already used by a shortcut): a repeat must not act again.
func (g *KeyGuard) ShortcutTyped(s fyne.Shortcut) (repeat bool) {
	k := shortcutKey(s)
	if k == "" {
		return false
	}
	g.dropRune = false
	repeat = g.shortcut[k] && g.down[k]
	if g.shortcut == nil {
		g.shortcut = map[fyne.KeyName]bool{}
	}
	g.shortcut[k] = true
	return repeat
}

// TypedKey reports whether the key may act; false for a held-back key,
// whose rune (the next one) is then dropped too.
func (g *KeyGuard) TypedKey(k fyne.KeyName) bool {
	g.dropRune = g.shortcut[k]
	return !g.dropRune
}

// TypedRune reports whether the rune may be typed.
func (g *KeyGuard) TypedRune() bool {
	if g.dropRune {
		g.dropRune = false
		return false
	}
	return true
}

// Reset forgets every key (the widget lost the keyboard: the releases go
// elsewhere).
func (g *KeyGuard) Reset() {
	g.shortcut, g.down, g.dropRune = nil, nil, false
}

// shortcutKey is the key that makes s ("" when unknown).
func shortcutKey(s fyne.Shortcut) fyne.KeyName {
	switch sc := s.(type) {
	case *desktop.CustomShortcut:
		return sc.KeyName
	case fyne.KeyboardShortcut:
		return sc.Key()
	}
	return ""
}
