package review

import (
	"fmt"
	"slices"
	"strings"

	"waymark/dataset"
)

// What the label form says: the outcomes' names (keys 1–4), the failure
// types' and the other reviews of an episode being settled.

// outcomeLabels are the radio options, in dataset.Outcomes order (keys 1–4).
var outcomeLabels = []string{"1  Success", "2  Failure", "3  Not executable", "4  Invalid task"}

func outcomeName(o string) string {
	if i := slices.Index(dataset.Outcomes, o); i >= 0 {
		return strings.ToLower(strings.TrimSpace(outcomeLabels[i][1:]))
	}
	return o
}

func failureTypeName(ft string) string { return strings.ReplaceAll(ft, "_", " ") }

// othersText lists the current reviews of an episode being settled.
func othersText(rs []dataset.Review) string {
	var lines []string
	for _, r := range rs {
		s := fmt.Sprintf("%s: %s", r.Reviewer, outcomeName(r.Outcome))
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
