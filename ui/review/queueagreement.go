package review

import (
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/ui"
)

// The queue's agreement: percent and Cohen's κ between reviewers on the
// outcome and on step labels, under the list.

func (q *queuePanel) reloadAgreement() {
	ag, err := q.t.store.Agreement(q.t.life)
	if err != nil {
		q.agreement.SetText("Cannot compute agreement: " + err.Error())
		return
	}
	text := agreementText(ag)
	if sa, err := q.t.store.StepAgreement(q.t.life); err == nil {
		text += "\n" + stepAgreementText(sa)
	}
	if ca, err := q.t.store.CheckAgreement(q.t.life); err == nil {
		text += "\n" + checkAgreementText(ca)
	}
	q.agreement.SetText(text)
}

// agreementText summarises agreement figures for the panel.
func agreementText(ag dataset.Agreement) string {
	if ag.Episodes == 0 {
		return "No episode has two reviews yet: agreement needs a second reviewer."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d episodes with ≥2 reviews: %s agree, Cohen's κ %s (Fleiss %s)",
		ag.Episodes, dataset.FormatPercent(ag.PercentAgreement), dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
	for i, p := range ag.Pairs {
		if i == 4 {
			fmt.Fprintf(&b, "\n… %d more pairs (waymark review stats)", len(ag.Pairs)-4)
			break
		}
		fmt.Fprintf(&b, "\n%s–%s: %s, κ %s (n=%d)", p.A, p.B, dataset.FormatPercent(p.PercentAgreement), dataset.FormatFigure(p.Kappa), p.N)
	}
	return b.String()
}

// stepAgreementText summarises the agreement on step labels.
func stepAgreementText(ag dataset.Agreement) string {
	if ag.Episodes == 0 {
		return "No step has two labels yet (C/W/X on a step): step agreement needs a second reviewer."
	}
	return fmt.Sprintf("%s with ≥2 labels: %s agree, Cohen's κ %s (Fleiss %s)",
		ui.Plural(ag.Episodes, "step"), dataset.FormatPercent(ag.PercentAgreement), dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
}
