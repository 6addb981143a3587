package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

const tasksCheckUsage = `waymark tasks check (ID | --all) [--display xvfb|headless]
       waymark tasks example-manifest  (prints the practice sites' example manifest)`

// grader is an engine that can run a task's validate and cheat scripts
// outside a step (the local browser).
type grader interface {
	engine.Engine
	Validate(ctx context.Context, v action.Validator) (action.Validation, error)
	RunCheat(ctx context.Context, script string) error
}

// checkVerdict is one task's grader check.
type checkVerdict struct {
	Task          dataset.Task
	Before, After *action.Validation
	// Broken says why the grader is broken ("" when it works); Skipped why
	// it could not be checked.
	Broken, Skipped string
}

// runTasksCheck verifies manifest tasks' graders: in a fresh page the
// validate script must fail, then after the cheat script it must pass.
func runTasksCheck(env *Env, args []string) error {
	fs := newFlags(env, "tasks check")
	all := fs.Bool("all", false, "check every task imported from a manifest")
	display := fs.String("display", "headless", "browser display: xvfb or headless")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(pos) == 1) || len(pos) > 1 {
		return fmt.Errorf("%w: give one task id (or a manifest's taskId), or --all: %s", errUsage, tasksCheckUsage)
	}
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return err
	}
	if settings.Display, err = engine.ParseDisplay(*display); err != nil {
		return fmt.Errorf("%w: --display: %v", errUsage, err)
	}
	st, err := env.OpenStore()
	if err != nil {
		return err
	}
	var tasks []dataset.Task
	if *all {
		tasks, err = st.ManifestTasks(context.Background())
	} else {
		var t dataset.Task
		if t, err = st.FindTaskRef(context.Background(), pos[0]); err == nil {
			tasks = []dataset.Task{t}
		}
	}
	st.Close()
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		fmt.Fprintln(env.Stdout, "No task was imported from a manifest: import one with waymark tasks import task-manifest.json")
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng, closeEngine, err := replayEngine(ctx, settings, false)
	if err != nil {
		return err
	}
	defer closeEngine()
	g, ok := engine.As[grader](eng)
	if !ok {
		return errors.New("this engine cannot run a task's scripts outside a step; use the local browser")
	}
	broken := 0
	for _, t := range tasks {
		v := checkTask(ctx, g, t)
		writeVerdict(env.Stdout, v)
		if v.Broken != "" {
			broken++
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if broken > 0 {
		return fmt.Errorf("%d of %d task graders are broken (see above)", broken, len(tasks))
	}
	return nil
}

// checkTask opens the task's start page, runs its validate script (it must
// not pass), its cheat script, and the validate script again (it must pass).
func checkTask(ctx context.Context, g grader, t dataset.Task) checkVerdict {
	out := checkVerdict{Task: t}
	val := dataset.TaskValidator(t)
	switch {
	case val == nil:
		out.Skipped = "the task has no validateScript"
		return out
	case t.Manifest.CheatScript == "":
		out.Skipped = "the task has no cheatScript to check its validateScript with"
		return out
	}
	opts := engine.ResetOptions{StartURL: t.StartURL}
	dataset.TaskResetOptions(t, &opts)
	obs, err := g.Reset(ctx, opts)
	switch {
	case err != nil:
		out.Broken = fmt.Sprintf("the start page %s could not be opened: %v", t.StartURL, err)
		return out
	case obs.Done || obs.Error != "":
		out.Broken = fmt.Sprintf("the start page %s did not load (%s)", t.StartURL, obs.Error)
		return out
	}
	before, err := g.Validate(ctx, *val)
	if err != nil {
		out.Broken = "the validate script could not run: " + err.Error()
		return out
	}
	out.Before = &before
	switch {
	case before.Error != "":
		out.Broken = "before the cheat: " + before.Error
		return out
	case before.Reward > 0:
		out.Broken = fmt.Sprintf("the validate script gives reward %g on the untouched start page (it must give 0 before the task is done)", before.Reward)
		return out
	}
	if err := g.RunCheat(ctx, t.Manifest.CheatScript); err != nil {
		out.Broken = err.Error() + " (fix the cheatScript, or the page it expects)"
		return out
	}
	after, err := g.Validate(ctx, *val)
	if err != nil {
		out.Broken = "the validate script could not run after the cheat: " + err.Error()
		return out
	}
	out.After = &after
	switch {
	case after.Error != "":
		out.Broken = "after the cheat: " + after.Error
	case !after.Passed():
		msg := ""
		if after.Message != "" {
			msg = fmt.Sprintf(" (its message: %q)", after.Message)
		}
		out.Broken = fmt.Sprintf("the validate script gives reward %g after the cheat script did the task (it must give 1)%s", after.Reward, msg)
	}
	return out
}

func writeVerdict(w io.Writer, v checkVerdict) {
	name := v.Task.SourceID
	if name == "" {
		name = v.Task.ID
	}
	switch {
	case v.Skipped != "":
		fmt.Fprintf(w, "SKIPPED  %s: %s\n", name, v.Skipped)
	case v.Broken != "":
		fmt.Fprintf(w, "BROKEN   %s: %s\n", name, v.Broken)
	default:
		fmt.Fprintf(w, "OK       %s: reward %g before the cheat, %g after\n", name, v.Before.Reward, v.After.Reward)
	}
	if v.Broken != "" || v.Skipped != "" {
		fmt.Fprintf(w, "         task %s, start %s\n", v.Task.ID, strings.TrimSpace(v.Task.StartURL))
	}
}

// writeManifestTasks lists a manifest import's tasks: category and where
// it came from, and which scripts each has.
func writeManifestTasks(w io.Writer, rep dataset.ImportReport) {
	if rep.Format != "manifest" || len(rep.Tasks) == 0 {
		return
	}
	fmt.Fprintln(w, "Tasks:")
	for _, t := range rep.Tasks {
		m := t.Manifest
		if m == nil {
			continue
		}
		var has []string
		if m.ValidateScript != "" {
			s := "validateScript"
			if m.ValidateEachStep {
				s += " (each step)"
			}
			has = append(has, s)
		}
		if m.CheatScript != "" {
			has = append(has, "cheatScript")
		}
		if len(has) == 0 {
			has = append(has, "no scripts")
		}
		if note := m.ViewportNote(); note != "" {
			has = append(has, note)
		}
		from := map[string]string{"category": "its category", "tags": "from its tags", "default": "the default category", "inferred": "inferred"}[m.CategoryFrom]
		fmt.Fprintf(w, "  %s: %s (%s), %s, %s\n", t.SourceID, t.Category, from, strings.Join(has, ", "), clip(t.StartURL, 60))
	}
}
