package action

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PWKey is one key of Playwright's US keyboard layout, the key names
// BrowserGym's press, keyboard_press, keyboard_down and keyboard_up take.
type PWKey struct {
	Key     string // KeyboardEvent.key, e.g. "a", "Enter", "Shift"
	Code    string // KeyboardEvent.code, e.g. "KeyA"
	KeyCode int64  // the Windows virtual key code
	Text    string // what the key types, "" for none
	// ShiftKey and ShiftText are Key and Text with Shift held ("" when
	// the same).
	ShiftKey, ShiftText string
	// Modifier is the key's modifier bit (Alt 1, Control 2, Meta 4,
	// Shift 8), 0 for other keys.
	Modifier int64
}

// pwLayout lists the keys by code: code, key, key code, shifted key.
var pwLayout = []struct {
	code, key string
	kc        int64
	shift     string
}{
	{"Escape", "Escape", 27, ""}, {"Backquote", "`", 192, "~"}, {"Minus", "-", 189, "_"},
	{"Equal", "=", 187, "+"}, {"Backslash", "\\", 220, "|"}, {"Backspace", "Backspace", 8, ""},
	{"Tab", "Tab", 9, ""}, {"BracketLeft", "[", 219, "{"}, {"BracketRight", "]", 221, "}"},
	{"CapsLock", "CapsLock", 20, ""}, {"Semicolon", ";", 186, ":"}, {"Quote", "'", 222, "\""},
	{"Enter", "Enter", 13, ""}, {"Comma", ",", 188, "<"}, {"Period", ".", 190, ">"},
	{"Slash", "/", 191, "?"}, {"Space", " ", 32, ""}, {"ContextMenu", "ContextMenu", 93, ""},
	{"ShiftLeft", "Shift", 16, ""}, {"ControlLeft", "Control", 17, ""}, {"AltLeft", "Alt", 18, ""},
	{"MetaLeft", "Meta", 91, ""}, {"ShiftRight", "Shift", 16, ""}, {"ControlRight", "Control", 17, ""},
	{"AltRight", "Alt", 18, ""}, {"MetaRight", "Meta", 92, ""},
	{"PrintScreen", "PrintScreen", 44, ""}, {"ScrollLock", "ScrollLock", 145, ""}, {"Pause", "Pause", 19, ""},
	{"PageUp", "PageUp", 33, ""}, {"PageDown", "PageDown", 34, ""}, {"Insert", "Insert", 45, ""},
	{"Delete", "Delete", 46, ""}, {"Home", "Home", 36, ""}, {"End", "End", 35, ""},
	{"ArrowLeft", "ArrowLeft", 37, ""}, {"ArrowUp", "ArrowUp", 38, ""}, {"ArrowRight", "ArrowRight", 39, ""},
	{"ArrowDown", "ArrowDown", 40, ""}, {"NumLock", "NumLock", 144, ""},
}

// pwKeys maps every name Playwright accepts for a key (its code, its key
// and its shifted key) to the key.
var pwKeys = func() map[string]PWKey {
	m := map[string]PWKey{}
	add := func(k PWKey) {
		if k.Text == "" && utf8.RuneCountInString(k.Key) == 1 {
			k.Text = k.Key
		}
		if k.ShiftKey != "" && k.ShiftText == "" && utf8.RuneCountInString(k.ShiftKey) == 1 {
			k.ShiftText = k.ShiftKey
		}
		if k.Key == "Enter" {
			k.Text = "\r"
		}
		switch k.Key {
		case "Alt":
			k.Modifier = 1
		case "Control":
			k.Modifier = 2
		case "Meta":
			k.Modifier = 4
		case "Shift":
			k.Modifier = 8
		}
		m[k.Code] = k
		if _, ok := m[k.Key]; !ok {
			m[k.Key] = k
		}
		if k.ShiftKey != "" {
			if _, ok := m[k.ShiftKey]; !ok {
				s := k
				s.Key, s.Text, s.ShiftKey, s.ShiftText = k.ShiftKey, k.ShiftText, "", ""
				m[k.ShiftKey] = s
			}
		}
	}
	for _, k := range pwLayout {
		add(PWKey{Key: k.key, Code: k.code, KeyCode: k.kc, ShiftKey: k.shift})
	}
	for i := range 10 {
		d := strconv.Itoa(i)
		add(PWKey{Key: d, Code: "Digit" + d, KeyCode: int64(48 + i), ShiftKey: string(")!@#$%^&*("[i])})
		add(PWKey{Key: d, Code: "Numpad" + d, KeyCode: int64(96 + i)})
	}
	for c := 'a'; c <= 'z'; c++ {
		add(PWKey{Key: string(c), Code: "Key" + strings.ToUpper(string(c)), KeyCode: int64(c - 'a' + 65), ShiftKey: strings.ToUpper(string(c))})
	}
	for i := 1; i <= 24; i++ {
		add(PWKey{Key: "F" + strconv.Itoa(i), Code: "F" + strconv.Itoa(i), KeyCode: int64(111 + i)})
	}
	// ControlOrMeta is Control on Linux and Windows, as Playwright has it.
	m["ControlOrMeta"] = m["Control"]
	return m
}()

// LookupPWKey finds a key by one of its Playwright names ("Enter", "KeyA",
// "a", "A", "Shift", "ControlOrMeta", "F5"). A single character that is not
// on the layout is a key that types it (Playwright types such characters
// with insertText; Waymark sends it as the key's text).
func LookupPWKey(name string) (PWKey, bool) {
	if k, ok := pwKeys[name]; ok {
		return k, true
	}
	if r, n := utf8.DecodeRuneInString(name); n == len(name) && n > 0 && r != utf8.RuneError {
		return PWKey{Key: name, Text: name}, true
	}
	return PWKey{}, false
}

// SplitKeyCombo splits a Playwright key combination ("Control+Shift+a",
// "Shift++") into its keys, the modifiers first, as Playwright's press
// does, and checks each. The keys before the last are held while the last
// is pressed.
func SplitKeyCombo(s string) ([]PWKey, error) {
	var parts []string
	var b strings.Builder
	for _, r := range s {
		if r == '+' && b.Len() > 0 {
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteRune(r)
	}
	parts = append(parts, b.String())
	keys := make([]PWKey, len(parts))
	for i, p := range parts {
		k, ok := LookupPWKey(p)
		if !ok {
			return nil, fmt.Errorf("Unknown key: %s", strconv.Quote(p))
		}
		keys[i] = k
	}
	return keys, nil
}
