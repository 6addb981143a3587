package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"waymark/dataset"
	"waymark/dataset/benchexport"
)

// runJudgeStats prints a judge's agreement with the reviewers (review
// stats --judge): the verdicts are read from AgentRewardBench's or
// Online-Mind2Web's result layout (benchexport.ReadVerdicts) and measured
// against the episodes' settled labels.
func runJudgeStats(env *Env, s *dataset.Store, path string) error {
	vs, problems, err := benchexport.ReadVerdicts(path)
	if err != nil {
		return err
	}
	ja, err := benchexport.Agree(context.Background(), s, vs)
	if err != nil {
		return err
	}
	writeJudgeAgreement(env.Stdout, path, ja, problems)
	return nil
}

func writeJudgeAgreement(w io.Writer, path string, ja benchexport.JudgeAgreement, problems []string) {
	fmt.Fprintf(w, "Judge verdicts in %s: %d read, %d on episodes people labelled", path, ja.Verdicts, ja.Matched)
	var left []string
	if n := len(ja.Unknown); n > 0 {
		ex := ja.Unknown
		if len(ex) > 3 {
			ex = append(ex[:3:3], "…")
		}
		left = append(left, fmt.Sprintf("%d on episodes this store does not have (%s: export from this store, or merge the store they came from)", n, strings.Join(ex, ", ")))
	}
	if ja.NoOutcome > 0 {
		left = append(left, fmt.Sprintf("%d on episodes without a settled label (review or settle them)", ja.NoOutcome))
	}
	if ja.InvalidTask > 0 {
		left = append(left, fmt.Sprintf("%d on episodes labelled invalid task", ja.InvalidTask))
	}
	if ja.Duplicates > 0 {
		left = append(left, fmt.Sprintf("%d repeated (the first verdict on an episode counts)", ja.Duplicates))
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "; left out: %s", strings.Join(left, "; "))
	}
	fmt.Fprintln(w)
	if len(problems) > 0 {
		fmt.Fprintf(w, "  %d could not be read, e.g. %s\n", len(problems), problems[0])
	}
	for _, q := range ja.Questions {
		c := q.Agreement
		fmt.Fprintf(w, "\n%s: the judge against people's settled labels (episodes: %d)\n", strings.ToUpper(q.Name[:1])+q.Name[1:], c.Overall.N)
		if c.Overall.N == 0 {
			fmt.Fprintln(w, "  nothing to compare: no verdict on an episode people labelled")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  category\tepisodes\tyes·yes\tyes·no\tno·yes\tno·no\tagreement\tprecision\trecall\tF1\tNPV\tTNR\tkappa\tAC1\t")
		row := func(name string, cf dataset.CheckFigures) {
			f := benchexport.Extend(cf)
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, f.N, f.TP, f.FP, f.FN, f.TN,
				dataset.FormatPercent(f.Agreement), dataset.FormatFigure(f.Precision), dataset.FormatFigure(f.Recall), dataset.FormatFigure(f.F1),
				dataset.FormatFigure(f.NPV), dataset.FormatFigure(f.TNR), dataset.FormatFigure(f.Kappa), dataset.FormatFigure(f.AC1))
		}
		for _, cat := range dataset.Categories {
			if f, ok := c.ByCategory[cat]; ok {
				row(cat, f)
			}
		}
		row("all", c.Overall)
		tw.Flush()
		fmt.Fprintln(w, "  columns: judge·people (yes·no: the judge said yes, people no)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  per task\tepisodes\tdisagree\tprecision\trecall\tF1\tNPV\tTNR\tkappa\tAC1\tgoal")
		for _, t := range c.ByTask {
			f := benchexport.Extend(t.CheckFigures)
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%q\n", t.TaskID, f.N, f.Disagree(), dataset.FormatFigure(f.Precision),
				dataset.FormatFigure(f.Recall), dataset.FormatFigure(f.F1), dataset.FormatFigure(f.NPV), dataset.FormatFigure(f.TNR),
				dataset.FormatFigure(f.Kappa), dataset.FormatFigure(f.AC1), t.Goal)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nyes for success is people's success (failure and not executable are no); precision: of the judge's yes, the share people call yes;")
	fmt.Fprintln(w, "NPV: of its no, the share people call no; TNR: of people's no, the share it calls no; kappa collapses when nearly every label is the same, AC1 does not")
}
