package app

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"waymark/dataset"
)

func init() {
	register("review", "review stats [--judge RESULTS]", "print counts per outcome and category, the reviewers' agreement (per episode and per step), and the automatic checks' agreement with people; with --judge, an LLM judge's agreement with people", runReview)
}

func runReview(env *Env, args []string) error {
	if len(args) == 0 || args[0] != "stats" {
		return fmt.Errorf("%w: waymark review stats [--judge RESULTS]", errUsage)
	}
	fs := newFlags(env, "review stats")
	judge := fs.String("judge", "", "a judge's verdicts on exported episodes: AgentRewardBench judgment files (a folder, or one file) or Online-Mind2Web auto-eval results (JSON lines); prints the judge's agreement with the reviewers' settled labels")
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: waymark review stats takes no arguments (got %q)", errUsage, pos)
	}
	s, err := env.OpenExistingStore()
	if err != nil {
		return err
	}
	defer s.Close()
	if *judge != "" {
		return runJudgeStats(env, s, *judge)
	}
	st, err := s.ReviewStats(context.Background())
	if err != nil {
		return err
	}
	ag, err := s.Agreement(context.Background())
	if err != nil {
		return err
	}
	sa, err := s.StepAgreement(context.Background())
	if err != nil {
		return err
	}
	ca, err := s.CheckAgreement(context.Background())
	if err != nil {
		return err
	}
	writeReviewStats(env.Stdout, st, ag)
	writeStepAgreement(env.Stdout, sa)
	writeCheckAgreement(env.Stdout, ca)
	return nil
}

// statColumns are the outcome columns in print order.
var statColumns = func() []string {
	var c []string
	for _, o := range dataset.Outcomes {
		c = append(c, string(o))
	}
	return append(c, dataset.StatConflict, dataset.StatUnreviewed)
}()

func writeReviewStats(w io.Writer, st dataset.ReviewStats, ag dataset.Agreement) {
	fmt.Fprintf(w, "Reviewable episodes: %d (finished or interrupted); current reviews: %d; settled conflicts: %d\n\n", st.Episodes, st.Reviews, st.Settled)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "category\t")
	for _, c := range statColumns {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprint(tw, "total\t\n")
	row := func(name string, m map[string]int) {
		fmt.Fprintf(tw, "%s\t", name)
		total := 0
		for _, c := range statColumns {
			fmt.Fprintf(tw, "%d\t", m[c])
			total += m[c]
		}
		fmt.Fprintf(tw, "%d\t\n", total)
	}
	for _, c := range dataset.Categories {
		row(c, st.ByCategory[c])
	}
	row("all", st.ByOutcome)
	tw.Flush()

	fmt.Fprintf(w, "\nAgreement on the outcome (episodes with 2 or more reviews: %d)\n", ag.Episodes)
	if ag.Episodes == 0 {
		fmt.Fprintln(w, "  nothing to compare yet: agreement needs two reviewers on the same episode")
		return
	}
	fmt.Fprintf(w, "  overall: %s agreement over %d pairwise comparisons; Cohen's kappa %s (mean over pairs weighted by shared episodes); Fleiss' kappa %s\n",
		dataset.FormatPercent(ag.PercentAgreement), ag.Comparisons, dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  reviewer A\treviewer B\tshared\tagree\tagreement\tkappa")
	for _, p := range ag.Pairs {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\n", p.A, p.B, p.N, p.Agree, dataset.FormatPercent(p.PercentAgreement), dataset.FormatFigure(p.Kappa))
	}
	tw.Flush()
	if !hasUndefinedKappa(ag) {
		return
	}
	fmt.Fprintln(w, "  kappa n/a: both reviewers gave one and the same outcome every time, so chance agreement is 1")
}

func hasUndefinedKappa(ag dataset.Agreement) bool {
	for _, p := range ag.Pairs {
		if dataset.FormatFigure(p.Kappa) == "n/a" {
			return true
		}
	}
	return false
}

// writeStepAgreement prints the reviewers' agreement on step labels: the
// steps two reviewers or more labelled, overall and per pair.
func writeStepAgreement(w io.Writer, ag dataset.Agreement) {
	fmt.Fprintf(w, "\nAgreement on step labels (correct, wrong, unnecessary; steps labelled by 2 or more reviewers: %d)\n", ag.Episodes)
	if ag.Episodes == 0 {
		fmt.Fprintln(w, "  nothing to compare yet: agreement needs two reviewers labelling the same step")
		return
	}
	fmt.Fprintf(w, "  overall: %s agreement over %d pairwise comparisons; Cohen's kappa %s (mean over pairs weighted by shared steps); Fleiss' kappa %s\n",
		dataset.FormatPercent(ag.PercentAgreement), ag.Comparisons, dataset.FormatFigure(ag.Kappa), dataset.FormatFigure(ag.FleissKappa))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  reviewer A\treviewer B\tshared steps\tagree\tagreement\tkappa")
	for _, p := range ag.Pairs {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\n", p.A, p.B, p.N, p.Agree, dataset.FormatPercent(p.PercentAgreement), dataset.FormatFigure(p.Kappa))
	}
	tw.Flush()
	if hasUndefinedKappa(ag) {
		fmt.Fprintln(w, "  kappa n/a: both reviewers gave one and the same label every time, so chance agreement is 1")
	}
}
