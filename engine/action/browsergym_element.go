package action

import (
	"strings"
)

// BrowserGymElement writes a in BrowserGym's element action vocabulary
// (the bid, nav and chat subsets of its HighLevelActionSet), aimed at t, the
// element the action was aimed at: click('a51'), dblclick('a51'),
// hover('a51') for a move, fill('a12', 'red shoes') for text typed into
// the focused element, press('a12', 'Enter') for a key, scroll(0, 300),
// go_back(), goto('https://…'), noop(3000), send_msg_to_user('42').
// Strings are Python literals in single quotes, as BrowserGym's own
// examples write them.
//
// It returns "" when the action needs an element and t has no bid (the
// pointer was over nothing marked, or no element had the focus), and for a
// drag, whose drop element one target cannot name (see
// BrowserGymDragAndDrop).
//
// fill replaces the field's value while Waymark's type adds keystrokes to
// it: the two agree when the field was empty, as it usually is.
func BrowserGymElement(a Action, t *Target) string {
	bid := ""
	if t != nil {
		bid = t.Bid
	}
	if s, ok := browserGymNav(a, pyQuoteSingle); ok {
		return s
	}
	if bid == "" {
		return ""
	}
	b := pyQuoteSingle(bid)
	switch a.Op {
	case Click:
		return "click(" + b + ")"
	case DoubleClick:
		return "dblclick(" + b + ")"
	case Move:
		return "hover(" + b + ")"
	case Type:
		return "fill(" + b + ", " + pyQuoteSingle(a.Text) + ")"
	case Key:
		k, ok := browserGymKeys[a.Text]
		if !ok {
			k = a.Text
		}
		return "press(" + b + ", " + pyQuoteSingle(k) + ")"
	case SetValue:
		return "fill(" + b + ", " + pyQuoteSingle(a.Text) + ")"
	case Select:
		if len(a.Values) == 1 {
			return "select_option(" + b + ", " + pyQuoteSingle(a.Values[0]) + ")"
		}
		q := make([]string, len(a.Values))
		for i, v := range a.Values {
			q[i] = pyQuoteSingle(v)
		}
		return "select_option(" + b + ", [" + strings.Join(q, ", ") + "])"
	}
	return ""
}

// BrowserGymDragAndDrop writes a drag from one element onto another as
// drag_and_drop('a1', 'a2'); "" unless both have a bid.
func BrowserGymDragAndDrop(from, to *Target) string {
	if from == nil || to == nil || from.Bid == "" || to.Bid == "" {
		return ""
	}
	return "drag_and_drop(" + pyQuoteSingle(from.Bid) + ", " + pyQuoteSingle(to.Bid) + ")"
}
