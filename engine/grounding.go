package engine

import "fmt"

// Grounding is how much element grounding a step adds to its observation
// (Settings.Grounding): BrowserGym's bid marking, the action's target
// element and the observation extras (accessibility tree and its text,
// element properties, focused element, open pages, last action).
type Grounding string

// Grounding levels.
const (
	GroundingOff Grounding = ""    // nothing (the default)
	GroundingOn  Grounding = "on"  // bids, target and extras without the DOM snapshot
	GroundingDOM Grounding = "dom" // as GroundingOn, plus dom_object (a DOMSnapshot: large)
)

// On reports whether steps read targets and extras.
func (g Grounding) On() bool { return g == GroundingOn || g == GroundingDOM }

// ParseGrounding reads "off" (or ""), "on" or "dom".
func ParseGrounding(s string) (Grounding, error) {
	switch s {
	case "", "off":
		return GroundingOff, nil
	case "on":
		return GroundingOn, nil
	case "dom", "on+dom":
		return GroundingDOM, nil
	}
	return GroundingOff, fmt.Errorf("unknown grounding %q: use off, on or dom (on with the DOM snapshot)", s)
}
