package review

import (
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/ui"
)

// What the label form says: the outcomes' names (keys 1–4), the failure
// types' and the other reviews of an episode being settled.

// outcomeLabels are the radio options, in dataset.Outcomes order (keys
// 1–4), in the words of ui.OutcomeName ("3  Not executable").
var outcomeLabels = func() []string {
	var l []string
	for i, o := range dataset.Outcomes {
		w := ui.OutcomeName(o)
		l = append(l, fmt.Sprintf("%d  %s", i+1, strings.ToUpper(w[:1])+w[1:]))
	}
	return l
}()

func failureTypeName(ft string) string { return strings.ReplaceAll(ft, "_", " ") }

// othersText lists the current reviews of an episode being settled.
func othersText(rs []dataset.Review) string {
	var lines []string
	for _, r := range rs {
		s := fmt.Sprintf("%s: %s", r.Reviewer, ui.OutcomeName(r.Outcome))
		if r.Settles {
			s = "Settling label by " + s
		}
		if r.FailureStep != nil {
			s += fmt.Sprintf(" at step %d (%s)", *r.FailureStep, failureTypeName(r.FailureType))
		}
		if l := labelsText(r.StepLabels); l != "" {
			s += "; " + l
		}
		if r.Reason != "" {
			s += " — " + r.Reason
		}
		lines = append(lines, s)
	}
	if len(lines) == 0 {
		return ""
	}
	return "Current reviews:\n" + strings.Join(lines, "\n")
}
