package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"waymark/dataset"
)

func init() {
	register("merge", "merge OTHER.db…",
		"copy other annotators' databases into this one (tasks, episodes, steps, network traffic, edits, reviews, replay runs); merging twice adds nothing", runMerge)
}

func runMerge(env *Env, args []string) error {
	fs := newFlags(env, "merge")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: waymark merge OTHER.db… (the database files of the annotators to merge into %s)", errUsage, env.DBPath)
	}
	st, err := env.OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var failed []string
	for _, path := range fs.Args() {
		opts := dataset.MergeOptions{}
		if !*quiet {
			opts.Progress = func(p dataset.MergeProgress) {
				if p.TotalSteps > 0 {
					fmt.Fprintf(env.Stderr, "%s: %d of %d steps copied\n", p.Source, p.Steps, p.TotalSteps)
				}
			}
		}
		rep, err := st.Merge(ctx, path, opts)
		if err != nil {
			fmt.Fprintf(env.Stderr, "waymark merge: %v\n", err)
			failed = append(failed, path)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		fmt.Fprint(env.Stdout, rep.Summary())
	}
	if len(failed) > 0 {
		return fmt.Errorf("not merged: %s (each file is merged whole or not at all; the others are merged, and merging them again adds nothing)",
			strings.Join(failed, ", "))
	}
	return nil
}
