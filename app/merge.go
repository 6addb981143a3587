package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	flags := newFlags(env, "merge")
	quiet := flags.Bool("quiet", false, "no progress lines")
	files, err := parseArgs(flags, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%w: waymark merge OTHER.db… (the database files of the annotators to merge into %s)", errUsage, env.DBPath)
	}
	if _, err := os.Stat(env.DBPath); errors.Is(err, fs.ErrNotExist) && !env.DBNamed {
		return fmt.Errorf("%w: there is no Waymark database at %s to merge into: name the one to merge into with --db FILE (it is made if it does not exist)", errUsage, env.DBPath)
	}
	fmt.Fprintf(env.Stderr, "merging into %s\n", env.DBPath)
	st, err := env.OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var failed []string
	for _, path := range files {
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
