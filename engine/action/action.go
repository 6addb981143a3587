// Package action defines Waymark's action vocabulary and the observation that
// answers it. It is a leaf package: it imports only the standard library (and
// its own pyrepr, itself standard-library only), so the
// store, the UI and the OpenEnv server share one definition of what an action is
// without pulling in a browser.
//
// The default action set ("helium") is exactly the reference browser
// environment's: op, x, y, text, dy and an accepted-and-ignored metadata object,
// with the same limits and validation messages. The extended set adds
// operations a person needs that the default lacks.
package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Viewport size in CSS pixels at device scale 1. Every x,y lives in this space.
const (
	ViewportWidth  = 800
	ViewportHeight = 600
	MaxTextLen     = 2000
	MaxScroll      = 1200
)

// Op names an operation. It is written as its string.
type Op string

// The default (reference) operations.
const (
	Click  Op = "click"
	Type   Op = "type"
	Key    Op = "key"
	Scroll Op = "scroll"
	Back   Op = "back"
	Wait   Op = "wait"
	Finish Op = "finish"
)

// The extended operations.
const (
	Goto        Op = "goto"
	DoubleClick Op = "double_click"
	Move        Op = "move"
	Drag        Op = "drag"
)

// The BrowserGym operations: what BrowserGym's actions do that a person's
// clicks and keys do not express. Only the browsergym set has them.
const (
	// SetValue sets the value of the input at x,y as Playwright's fill
	// does for date, time, datetime-local, month, week, color and range
	// inputs (the value set, then input and change events).
	SetValue Op = "set_value"
	// Select selects the options of the <select> at x,y whose value or
	// label is one of Values (several for a multiple select).
	Select Op = "select"
	// MouseDown moves the pointer to x,y and presses the left button;
	// MouseUp moves it there and releases the button.
	MouseDown Op = "mouse_down"
	MouseUp   Op = "mouse_up"
	// KeyDown and KeyUp press and release one key (Playwright's key name
	// in Text) without the other half.
	KeyDown Op = "key_down"
	KeyUp   Op = "key_up"
	// InsertText inserts Text in the focused element with input events
	// only, no key events.
	InsertText Op = "insert_text"
	// Forward goes one entry forward in the tab's history.
	Forward Op = "forward"
	// NewTab opens a blank tab and makes it the active one; TabFocus makes
	// the open tab at Index the active one; TabClose closes the active tab
	// (the newest one left becomes active, a blank one opens when none is).
	NewTab   Op = "new_tab"
	TabFocus Op = "tab_focus"
	TabClose Op = "tab_close"
)

// Set names an action set. An engine is opened with one set and refuses the others.
type Set string

const (
	// SetDefault is the reference environment's vocabulary.
	SetDefault Set = "default"
	// SetExtended adds goto, double_click, move, drag and more keys.
	SetExtended Set = "extended"
	// SetBrowserGym adds to the extended set the BrowserGym operations and
	// Playwright key combinations (key "Control+c"). play and serve with
	// --obs browsergym use it.
	SetBrowserGym Set = "browsergym"
)

// ParseSet turns a set name into a Set ("" means the default).
func ParseSet(s string) (Set, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default", "helium":
		return SetDefault, nil
	case "extended":
		return SetExtended, nil
	case "browsergym":
		return SetBrowserGym, nil
	}
	return "", fmt.Errorf("unknown action set %q: use \"default\", \"extended\" or \"browsergym\"", s)
}

var defaultOps = []Op{Click, Type, Key, Scroll, Back, Wait, Finish}
var extendedOps = []Op{Goto, DoubleClick, Move, Drag}
var gymOps = []Op{SetValue, Select, MouseDown, MouseUp, KeyDown, KeyUp, InsertText, Forward, NewTab, TabFocus, TabClose}

// extended reports whether the set has the extended operations and fields.
func (s Set) extended() bool { return s == SetExtended || s == SetBrowserGym }

// DefaultKeys are the keys of the reference environment, in its order.
var DefaultKeys = []string{"ENTER", "TAB", "ESCAPE", "BACKSPACE", "CTRL+A", "UP", "DOWN", "LEFT", "RIGHT"}

// ExtendedKeys are the keys the extended set adds.
var ExtendedKeys = []string{"PAGE_UP", "PAGE_DOWN", "HOME", "END", "DELETE", "SPACE", "SHIFT+TAB"}

// Ops lists the operations of a set.
func (s Set) Ops() []Op {
	switch s {
	case SetExtended:
		return append(slices.Clone(defaultOps), extendedOps...)
	case SetBrowserGym:
		return slices.Concat(defaultOps, extendedOps, gymOps)
	}
	return slices.Clone(defaultOps)
}

// Keys lists the key names of a set.
func (s Set) Keys() []string {
	if s.extended() {
		return append(slices.Clone(DefaultKeys), ExtendedKeys...)
	}
	return slices.Clone(DefaultKeys)
}

// HasOp reports whether op belongs to the set.
func (s Set) HasOp(op Op) bool { return slices.Contains(s.Ops(), op) }

// HasKey reports whether key belongs to the set.
func (s Set) HasKey(key string) bool { return slices.Contains(s.Keys(), key) }

// Action is one typed action. X and Y are pointers because the reference sends
// null for "not given"; 0 is a valid coordinate.
type Action struct {
	Op   Op     `json:"op"`
	X    *int   `json:"x"`
	Y    *int   `json:"y"`
	Text string `json:"text"`
	DY   int    `json:"dy"`
	// Extended fields: the end point of a drag and the URL of goto.
	X2  *int   `json:"x2,omitempty"`
	Y2  *int   `json:"y2,omitempty"`
	URL string `json:"url,omitempty"`
	// BrowserGym fields: the options of select and the tab of tab_focus.
	Values []string `json:"values,omitempty"`
	Index  *int     `json:"index,omitempty"`
	// Metadata is accepted and ignored by the engine (the reference inherits it
	// from OpenEnv's Action). Agents may put hints in it.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Int returns a pointer to v, for building actions.
func Int(v int) *int { return &v }

// ClickAt, TypeText and the like build common actions.
func ClickAt(x, y int) Action      { return Action{Op: Click, X: Int(x), Y: Int(y)} }
func TypeText(text string) Action  { return Action{Op: Type, Text: text} }
func PressKey(key string) Action   { return Action{Op: Key, Text: key} }
func ScrollBy(dy int) Action       { return Action{Op: Scroll, DY: dy} }
func FinishWith(ans string) Action { return Action{Op: Finish, Text: ans} }

// RedactedText stands for the text of a type action that went into a
// password or payment field (Observation.Redacted) wherever Waymark stores,
// shows or exports the action.
const RedactedText = "[redacted]"

// Redact returns a with the text of a type or insert_text action (and of
// the browsergym set's key_down, key_up and key combinations, whose key may
// be a character) replaced by RedactedText; other actions are returned as
// they are (a named key such as ENTER names a key, never a secret's
// characters).
func (a Action) Redact() Action {
	switch a.Op {
	case Type, InsertText, KeyDown, KeyUp:
		a.Text = RedactedText
	case Key:
		if !SetExtended.HasKey(a.Text) {
			a.Text = RedactedText
		}
	}
	return a
}

// IsRedacted reports whether a is an action whose text was redacted.
func (a Action) IsRedacted() bool {
	switch a.Op {
	case Type, InsertText, Key, KeyDown, KeyUp:
		return a.Text == RedactedText
	}
	return false
}

// String renders the action the way people read it in a timeline:
// `click 312,188`, `type "red shoes"`, `key ENTER`, `scroll 300`.
func (a Action) String() string {
	xy := func(x, y *int) string {
		if x == nil || y == nil {
			return "?,?"
		}
		return fmt.Sprintf("%d,%d", *x, *y)
	}
	switch a.Op {
	case Click, DoubleClick, Move:
		return string(a.Op) + " " + xy(a.X, a.Y)
	case Drag:
		return "drag " + xy(a.X, a.Y) + "→" + xy(a.X2, a.Y2)
	case Type:
		return "type " + strconv.Quote(a.Text)
	case Key:
		return "key " + a.Text
	case Scroll:
		return "scroll " + strconv.Itoa(a.DY)
	case Goto:
		return "goto " + a.URL
	case SetValue:
		return "set_value " + xy(a.X, a.Y) + " " + strconv.Quote(a.Text)
	case Select:
		q := make([]string, len(a.Values))
		for i, v := range a.Values {
			q[i] = strconv.Quote(v)
		}
		return "select " + xy(a.X, a.Y) + " [" + strings.Join(q, ", ") + "]"
	case MouseDown, MouseUp:
		return string(a.Op) + " " + xy(a.X, a.Y)
	case KeyDown, KeyUp:
		return string(a.Op) + " " + a.Text
	case InsertText:
		return "insert_text " + strconv.Quote(a.Text)
	case TabFocus:
		return "tab_focus " + intOrNull(a.Index)
	case Finish:
		if a.Text == "" {
			return "finish"
		}
		return "finish " + strconv.Quote(a.Text)
	}
	return string(a.Op)
}

// MarshalJSON writes the reference's shape for default actions (all of
// metadata, op, x, y, text, dy, as pydantic's model_dump does) and adds the
// extended fields only when they are set.
func (a Action) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	md := a.Metadata
	if md == nil {
		md = map[string]any{}
	}
	m, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	op, _ := json.Marshal(a.Op)
	text, _ := json.Marshal(a.Text)
	b.WriteString(`{"metadata":`)
	b.Write(m)
	b.WriteString(`,"op":`)
	b.Write(op)
	b.WriteString(`,"x":` + intOrNull(a.X) + `,"y":` + intOrNull(a.Y) + `,"text":`)
	b.Write(text)
	b.WriteString(`,"dy":` + strconv.Itoa(a.DY))
	if a.X2 != nil {
		b.WriteString(`,"x2":` + intOrNull(a.X2))
	}
	if a.Y2 != nil {
		b.WriteString(`,"y2":` + intOrNull(a.Y2))
	}
	if a.URL != "" {
		u, _ := json.Marshal(a.URL)
		b.WriteString(`,"url":`)
		b.Write(u)
	}
	if a.Values != nil || a.Op == Select {
		v, _ := json.Marshal(a.Values)
		if a.Values == nil {
			v = []byte("[]")
		}
		b.WriteString(`,"values":`)
		b.Write(v)
	}
	if a.Index != nil {
		b.WriteString(`,"index":` + intOrNull(a.Index))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func intOrNull(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}
