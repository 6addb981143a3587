package review

import (
	"fmt"
	"strings"

	"waymark/dataset"
)

// checkAgreementText summarises the automatic checks' agreement with
// people's outcomes for the queue panel, in two lines under the list: the
// figures over all episodes and the task whose check disagrees most
// (waymark review stats gives them per category and lists more tasks).
func checkAgreementText(c dataset.CheckAgreement) string {
	o := c.Overall
	if o.N == 0 {
		return "Automatic checks: no episode with a check result has an outcome yet."
	}
	var b strings.Builder
	fig := func(f dataset.CheckFigures) string {
		return fmt.Sprintf("%s agree, precision %s, recall %s, κ %s, AC1 %s (n=%d)", dataset.FormatPercent(f.Agreement),
			dataset.FormatFigure(f.Precision), dataset.FormatFigure(f.Recall), dataset.FormatFigure(f.Kappa), dataset.FormatFigure(f.AC1), f.N)
	}
	fmt.Fprintf(&b, "Automatic checks vs people: %s", fig(o))
	if w := c.Disagreeing(1); len(w) > 0 {
		fmt.Fprintf(&b, "\nCheck to look at: %q, %d of %d episodes disagree", w[0].Goal, w[0].Disagree(), w[0].N)
	}
	return b.String()
}
