package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"waymark/dataset"
)

// writeCheckAgreement prints how well the automatic checks agree with
// people's outcomes (dataset.CheckAgreement): per category and overall, then
// the tasks whose check disagrees most.
func writeCheckAgreement(w io.Writer, c dataset.CheckAgreement) {
	fmt.Fprintf(w, "\nAutomatic checks against people (episodes with a check result and an outcome: %d", c.Overall.N)
	if c.Skipped > 0 {
		fmt.Fprintf(w, "; %d labelled invalid task left out", c.Skipped)
	}
	fmt.Fprintln(w, ")")
	if c.Overall.N == 0 {
		fmt.Fprintln(w, "  nothing to compare yet: label episodes of tasks that have an automatic check")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  category\tepisodes\tpassed·success\tpassed·not\tfailed·success\tfailed·not\tagreement\tprecision\trecall\tkappa\tAC1\t")
	row := func(name string, f dataset.CheckFigures) {
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", name, f.N, f.TP, f.FP, f.FN, f.TN,
			dataset.FormatPercent(f.Agreement), dataset.FormatFigure(f.Precision), dataset.FormatFigure(f.Recall),
			dataset.FormatFigure(f.Kappa), dataset.FormatFigure(f.AC1))
	}
	for _, cat := range dataset.Categories {
		if f, ok := c.ByCategory[cat]; ok {
			row(cat, f)
		}
	}
	row("all", c.Overall)
	tw.Flush()
	fmt.Fprintln(w, "  precision: of the passed checks, the share people call a success; recall: of the successes, the share the check passed;")
	fmt.Fprintln(w, "  kappa collapses when nearly every outcome is the same, AC1 does not")
	worst := c.Disagreeing(10)
	if len(worst) == 0 {
		fmt.Fprintln(w, "  every task's check agrees with people on every episode")
		return
	}
	fmt.Fprintln(w, "  tasks whose check disagrees most (candidates for a broken check):")
	for _, t := range worst {
		fmt.Fprintf(w, "    %d of %d disagree (passed %d not successful, failed %d successful)  %s  %q [%s]\n",
			t.Disagree(), t.N, t.FP, t.FN, t.TaskID, t.Goal, t.Category)
	}
}
