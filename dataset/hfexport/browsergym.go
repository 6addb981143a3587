package hfexport

import "waymark/engine/action"

// WaitMS is how long a Waymark "wait" waits, written as BrowserGym's noop.
const WaitMS = action.BrowserGymWaitMS

// BrowserGymAction writes a in BrowserGym's coordinate action vocabulary
// (see action.BrowserGym).
func BrowserGymAction(a action.Action) string { return action.BrowserGym(a) }
