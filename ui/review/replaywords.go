package review

import (
	"fmt"
	"strings"

	"waymark/dataset"
)

// What the Replay panel says: a run in one line and a step's verdict in a
// word or two.

// ui1 makes a message start with a capital letter.
func ui1(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runSummary is one line about a run.
func runSummary(run dataset.ReplayRun) string {
	var b strings.Builder
	switch {
	case run.OK():
		fmt.Fprintf(&b, "Every step matched (%d of %d).", run.Matched, run.Compared)
	default:
		fmt.Fprintf(&b, "%d of %d compared steps matched", run.Matched, run.Compared)
		if run.FirstDiverged != nil {
			fmt.Fprintf(&b, "; the first divergence is at step %d", *run.FirstDiverged)
		}
		b.WriteString(".")
	}
	if run.Error != "" {
		fmt.Fprintf(&b, " Stopped: %s.", strings.TrimSuffix(run.Error, "."))
	}
	if f := run.Fidelity; f != nil {
		fmt.Fprintf(&b, " Offline: %s.", f.Line(run.Matched, run.Compared))
	}
	return b.String()
}

// requestsWords says what an offline replay's step was served.
func requestsWords(s dataset.StepFidelity) string {
	w := fmt.Sprintf("%d requests served from the recording, %d refused", s.Served, s.Refused)
	if len(s.NotHermetic) > 0 {
		w += ", not hermetic"
	}
	return w
}
