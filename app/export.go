package app

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"waymark/dataset"
	"waymark/dataset/benchexport"
	"waymark/dataset/hfexport"
)

func init() {
	register("export", "export --out DIR --license ID [options] | export --format agentrewardbench|online-mind2web|webarena-verified --out DIR [options]",
		"write reviewed episodes as a Hugging Face dataset (Parquet + card), or in a web-agent benchmark's layout with every reviewer's labels (--format)", runExport)
}

func runExport(env *Env, args []string) error {
	fs := newFlags(env, "export")
	var o hfexport.Options
	var cats, outcomes, annotators multiFlag
	fs.StringVar(&o.Out, "out", "", "dataset folder to create (required)")
	fs.Var(&cats, "category", "only this task category (information, navigation, interaction); repeatable")
	fs.Var(&outcomes, "outcome", "only this outcome (success, failure, not_executable, invalid_task); repeatable")
	fs.Var(&annotators, "annotator", "only episodes by this annotator; repeatable")
	fs.BoolVar(&o.IncludeUnreviewed, "include-unreviewed", false, "also export finished episodes without an outcome (outcome null)")
	fs.Float64Var(&o.TestFraction, "test-fraction", hfexport.DefaultTestFraction, "share of tasks in the test split (0–1)")
	fs.StringVar(&o.License, "license", "", "Hugging Face licence id for the card, e.g. cc-by-4.0, mit, or 'other' (required)")
	fs.StringVar(&o.Name, "name", hfexport.DefaultName, "the dataset's name (the card's pretty_name)")
	fs.BoolVar(&o.Force, "force", false, "replace a previous Waymark export in DIR (other files are never deleted)")
	fs.BoolVar(&o.HAR, "har", false, "also write har/EPISODE_ID.har, the network traffic of each episode recorded with capture (redacted unless it was captured with --no-redact)")
	fs.BoolVar(&o.NoExplorations, "no-explorations", false, "leave out the explorations (episodes recorded without a goal); the tasks cut from them are exported as usual")
	fs.BoolVar(&o.RequireRedaction, "require-redaction", false, "refuse to export when an episode chosen was recorded without a redaction policy (--redact off, or an older Waymark), naming them: for a dataset made to be shared")
	quiet := fs.Bool("quiet", false, "print no progress")
	format := fs.String("format", "hf", "hf (the Hugging Face dataset), agentrewardbench, online-mind2web or webarena-verified (the benchmark's own layout, for judge calibration and offline scoring)")
	benchmark := fs.String("benchmark", benchexport.DefaultBenchmark, "with --format agentrewardbench: the benchmark name its task ids start with")
	if pos, err := parseArgs(fs, args); err != nil || len(pos) > 0 {
		return cmp.Or(err, noArgs(pos))
	}
	if f := strings.ToLower(strings.TrimSpace(*format)); f != "hf" && f != "huggingface" && f != "hugging-face" {
		bf, err := benchexport.ParseFormat(*format)
		if err != nil {
			return fmt.Errorf("%w: --format: %s, or hf for the Hugging Face dataset", errUsage, withoutSentinel(err, benchexport.ErrBadOptions))
		}
		var hfOnly []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "license", "name", "test-fraction", "har":
				hfOnly = append(hfOnly, "--"+f.Name)
			}
		})
		if len(hfOnly) > 0 {
			return fmt.Errorf("%w: %s belong to the Hugging Face dataset (--format hf); a %s export has no card, split or HAR folder", errUsage, strings.Join(hfOnly, ", "), bf.Title())
		}
		bo := benchexport.Options{Format: bf, Out: o.Out, Categories: cats, Outcomes: outcomes, Annotators: annotators,
			IncludeUnreviewed: o.IncludeUnreviewed, Force: o.Force, Benchmark: *benchmark}
		return runBenchExport(env, bo, *quiet)
	}
	if o.Out == "" {
		return fmt.Errorf("%w: choose the dataset folder with --out DIR", errUsage)
	}
	if o.License == "" {
		return fmt.Errorf("%w: choose the dataset's licence with --license (a Hugging Face id such as cc-by-4.0, cc-by-sa-4.0, mit, or 'other')", errUsage)
	}
	if err := hfexport.CheckLicense(o.License); err != nil {
		return fmt.Errorf("%w: --license: %v", errUsage, withoutSentinel(err, hfexport.ErrBadOptions))
	}
	o.Categories, o.Outcomes, o.Annotators = cats, outcomes, annotators

	res, err := exportWithProgress(env, *quiet, hfexport.ErrBadOptions, func(ctx context.Context, s *dataset.Store, progress func(hfexport.Progress)) (hfexport.Result, error) {
		return hfexport.Export(ctx, s, o, progress)
	}, func(p hfexport.Progress) string {
		return fmt.Sprintf("%d/%d episodes, %d/%d steps, %s written", p.Episodes, p.TotalEpisodes, p.Steps, p.TotalSteps, hfexport.FormatBytes(p.Bytes))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s %s: %d episodes, %d steps, %d files, %s.\n", wroteOrReplaced(res.Replaced), res.Dir, res.Episodes, res.Steps, len(res.Files), hfexport.FormatBytes(res.Bytes))
	if res.BadImages > 0 {
		fmt.Fprintf(env.Stdout, "Note: %d stored screenshots were not PNGs; their image cells are empty (the store is unchanged).\n", res.BadImages)
	}
	if n := res.FailureStepsRemoved; n > 0 {
		fmt.Fprintf(env.Stdout, "Note: %d failure labels name a first failing step an edit removed after the review; their failure_step and failure_type are null. Review those episodes again to label the edited episode.\n", n)
	}
	if o.HAR {
		n := 0
		for _, f := range res.Files {
			if strings.HasPrefix(f, "har/") {
				n++
			}
		}
		fmt.Fprintf(env.Stdout, "HAR files: %d in %s/har (episodes recorded without network capture have none).\n", n, res.Dir)
	}
	for _, sp := range res.Splits {
		fmt.Fprintf(env.Stdout, "  %-5s %d tasks, %d episodes, %d steps\n", sp.Name, sp.Tasks, sp.Episodes, sp.Steps)
	}
	fmt.Fprintf(env.Stdout, "Load it with datasets.load_dataset(%q) (steps) or load_dataset(%q, \"episodes\").\n", res.Dir, res.Dir)
	return nil
}

// runBenchExport writes a benchmark layout (benchexport) and says what it
// wrote and how the benchmark reads it.
func runBenchExport(env *Env, o benchexport.Options, quiet bool) error {
	if o.Out == "" {
		return fmt.Errorf("%w: choose the folder to write with --out DIR", errUsage)
	}
	res, err := exportWithProgress(env, quiet, benchexport.ErrBadOptions, func(ctx context.Context, s *dataset.Store, progress func(benchexport.Progress)) (benchexport.Result, error) {
		return benchexport.Export(ctx, s, o, progress)
	}, func(p benchexport.Progress) string {
		return fmt.Sprintf("%d/%d episodes, %s written", p.Episodes, p.TotalEpisodes, hfexport.FormatBytes(p.Bytes))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s %s (%s): %d episodes (%d with a settled label), %d reviewers' labels, %d files, %s.\n",
		wroteOrReplaced(res.Replaced), res.Dir, res.Format.Title(), res.Episodes, res.Settled, res.Labels, len(res.Files), hfexport.FormatBytes(res.Bytes))
	fmt.Fprintln(env.Stdout, "labels.jsonl has every reviewer's own label (reviewer, time, guidelines version) beside each settled label; guidelines/ has the texts.")
	switch res.Format {
	case benchexport.AgentRewardBench:
		fmt.Fprintf(env.Stdout, "Judge it with AgentRewardBench's run_judge.py --base_dir %s/trajectories/cleaned; annotations.csv has one row per reviewer (primary first).\n", res.Dir)
	case benchexport.OnlineMind2Web:
		fmt.Fprintf(env.Stdout, "Judge an agent's folder with Online-Mind2Web's src/run.py --trajectories_dir %s/AGENT; human_label.json has the settled labels (0 failure, 1 success, 2 not executable).\n", res.Dir)
		if res.KeyPoints > 0 {
			fmt.Fprintf(env.Stdout, "%d episodes carry their task's key points.\n", res.KeyPoints)
		}
	case benchexport.WebArenaVerified:
		fmt.Fprintf(env.Stdout, "Score an agent's folder with webarena-verified's evaluator (--output-dir %s/AGENT); only folders named by a WebArena task number are scored.\n", res.Dir)
		if n := len(res.NoTraffic); n > 0 {
			fmt.Fprintf(env.Stdout, "Note: %d episodes have no network.har (recorded without network capture, or nothing was captured); record with capture on to score them.\n", n)
		}
	}
	fmt.Fprintln(env.Stdout, "Measure a judge against the reviewers with: waymark review stats --judge RESULTS")
	return nil
}

// exportWithProgress runs export on the store until it ends or Ctrl-C
// cancels it, with a progress line on stderr (line's text, at most every
// half second; none when quiet) that it clears at the end. An error
// wrapping badOptions is a usage error.
func exportWithProgress[P, R any](env *Env, quiet bool, badOptions error, export func(context.Context, *dataset.Store, func(P)) (R, error), line func(P) string) (R, error) {
	s, err := env.OpenExistingStore()
	if err != nil {
		var none R
		return none, err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var last time.Time
	res, err := export(ctx, s, func(p P) {
		if quiet || time.Since(last) < 500*time.Millisecond {
			return
		}
		last = time.Now()
		fmt.Fprint(env.Stderr, "\r"+line(p)+" ")
	})
	if !quiet {
		fmt.Fprint(env.Stderr, "\r"+strings.Repeat(" ", 70)+"\r")
	}
	if errors.Is(err, badOptions) {
		return res, fmt.Errorf("%w: %v", errUsage, err)
	}
	return res, err
}

// withoutSentinel is err's message without the sentinel's words in front
// ("invalid export options: "), for a message that names the flag instead.
func withoutSentinel(err, sentinel error) string {
	return strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
}

// wroteOrReplaced is the verb of an export's summary line.
func wroteOrReplaced(replaced bool) string {
	if replaced {
		return "Replaced"
	}
	return "Wrote"
}
