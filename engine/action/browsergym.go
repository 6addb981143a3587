package action

import (
	"fmt"

	"waymark/engine/action/pyrepr"
)

// browserGymKeys maps Waymark key names to Playwright key names, the syntax
// BrowserGym's keyboard_press takes.
var browserGymKeys = map[string]string{
	"ENTER":     "Enter",
	"TAB":       "Tab",
	"ESCAPE":    "Escape",
	"BACKSPACE": "Backspace",
	"CTRL+A":    "ControlOrMeta+a",
	"UP":        "ArrowUp",
	"DOWN":      "ArrowDown",
	"LEFT":      "ArrowLeft",
	"RIGHT":     "ArrowRight",
	"PAGE_UP":   "PageUp",
	"PAGE_DOWN": "PageDown",
	"HOME":      "Home",
	"END":       "End",
	"DELETE":    "Delete",
	"SPACE":     "Space",
	"SHIFT+TAB": "Shift+Tab",
}

// BrowserGymWaitMS is how long a Waymark "wait" waits, written as
// BrowserGym's noop.
const BrowserGymWaitMS = 3000

// BrowserGym writes a in BrowserGym's coordinate action vocabulary
// (the coord, nav and chat subsets of its HighLevelActionSet):
// mouse_click(312, 188), keyboard_type("red shoes"), keyboard_press("Enter"),
// scroll(0, 300), go_back(), noop(3000), send_msg_to_user("42"). Strings are
// Python literals. It returns "" for an action it cannot express (an unknown
// operation or a click without coordinates).
func BrowserGym(a Action) string {
	xy := func(x, y *int) (string, bool) {
		if x == nil || y == nil {
			return "", false
		}
		return fmt.Sprintf("%d, %d", *x, *y), true
	}
	switch a.Op {
	case Click:
		if p, ok := xy(a.X, a.Y); ok {
			return "mouse_click(" + p + ")"
		}
	case DoubleClick:
		if p, ok := xy(a.X, a.Y); ok {
			return "mouse_dblclick(" + p + ")"
		}
	case Move:
		if p, ok := xy(a.X, a.Y); ok {
			return "mouse_move(" + p + ")"
		}
	case Drag:
		p, ok1 := xy(a.X, a.Y)
		q, ok2 := xy(a.X2, a.Y2)
		if ok1 && ok2 {
			return "mouse_drag_and_drop(" + p + ", " + q + ")"
		}
	case Type:
		return "keyboard_type(" + pyString(a.Text) + ")"
	case Key:
		k, ok := browserGymKeys[a.Text]
		if !ok {
			k = a.Text
		}
		return "keyboard_press(" + pyString(k) + ")"
	case MouseDown, MouseUp:
		if p, ok := xy(a.X, a.Y); ok {
			return string(a.Op) + "(" + p + ")"
		}
	}
	s, _ := browserGymNav(a, pyString)
	return s
}

// browserGymNav writes the actions that aim at no element or coordinate,
// the same in both of BrowserGym's vocabularies but for how strings are
// quoted (quote): scroll(0, 300), go_back(), noop(3000), goto(…),
// send_msg_to_user(…), go_forward(), the tab actions and the keyboard's
// keyboard_down, keyboard_up and keyboard_insert_text. ok is false for any
// other operation.
func browserGymNav(a Action, quote func(string) string) (s string, ok bool) {
	switch a.Op {
	case Scroll:
		return fmt.Sprintf("scroll(0, %d)", a.DY), true
	case Back:
		return "go_back()", true
	case Wait:
		return fmt.Sprintf("noop(%d)", BrowserGymWaitMS), true
	case Goto:
		return "goto(" + quote(a.URL) + ")", true
	case Finish:
		return "send_msg_to_user(" + quote(a.Text) + ")", true
	case Forward:
		return "go_forward()", true
	case NewTab:
		return "new_tab()", true
	case TabClose:
		return "tab_close()", true
	case TabFocus:
		if a.Index != nil {
			return fmt.Sprintf("tab_focus(%d)", *a.Index), true
		}
	case KeyDown:
		return "keyboard_down(" + quote(a.Text) + ")", true
	case KeyUp:
		return "keyboard_up(" + quote(a.Text) + ")", true
	case InsertText:
		return "keyboard_insert_text(" + quote(a.Text) + ")", true
	}
	return "", false
}

// pyString writes s as a double-quoted Python string literal (Python's
// escapes), as BrowserGym's coordinate actions are written.
func pyString(s string) string { return pyrepr.Quote(s, '"') }

// pyQuoteSingle writes s as a single-quoted Python string literal that
// Python's ast.literal_eval (which BrowserGym's action parser applies to
// every string) reads back as s.
func pyQuoteSingle(s string) string { return pyrepr.Quote(s, '\'') }
