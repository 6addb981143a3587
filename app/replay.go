package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
)

func init() {
	register("replay", "replay EPISODE [--db FILE] [--offline[=fallback]] [--display xvfb|headless] [--until K] [--continue] [--report FILE.json]",
		"run a stored episode's actions again in a fresh browser and compare every step with the stored one (exit 0 only when all match); --offline serves every request from the episode's own recorded traffic and reports how faithful that was; the result is kept beside the episode, which is never changed", runReplay)
}

// offlineFlag is --offline (strict: what the archive cannot answer is
// refused) or --offline=fallback (it goes to the network, said loudly).
type offlineFlag string

func (o *offlineFlag) String() string   { return string(*o) }
func (o *offlineFlag) IsBoolFlag() bool { return true }
func (o *offlineFlag) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "strict", "1":
		*o = "strict"
	case "false", "0", "":
		*o = ""
	case "fallback":
		*o = "fallback"
	default:
		return fmt.Errorf("--offline takes no value (refuse what the recording lacks) or =fallback (fetch it from the network), not %q", v)
	}
	return nil
}

func runReplay(env *Env, args []string) error {
	fs := newFlags(env, "replay")
	display := fs.String("display", "", "browser display: xvfb or headless (default: $WAYMARK_DISPLAY, else the mode the episode was recorded in, else Xvfb when installed)")
	until := fs.Int("until", 0, "stop after step K (default: the last stored step)")
	cont := fs.Bool("continue", false, "go on after a divergence or a secret step instead of stopping there")
	reportPath := fs.String("report", "", "write the report as JSON to this file")
	var offline offlineFlag
	fs.Var(&offline, "offline", "serve every request from the episode's recorded traffic, never the network (=fallback: fetch what the recording lacks, and say so)")
	// The episode may come before, between or after the options.
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one episode id, e.g. waymark replay 3f2c… (got %d arguments: %q)", errUsage, len(pos), pos)
	}
	if *until < 0 {
		return fmt.Errorf("%w: --until must be a step number from 1", errUsage)
	}
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return err
	}
	if *display != "" {
		if settings.Display, err = engine.ParseDisplay(*display); err != nil {
			return fmt.Errorf("%w: --display: %v", errUsage, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rec, err := loadRecording(ctx, env, pos[0])
	if err != nil {
		return err
	}
	if last := len(rec.Steps) - 1; *until > last {
		return fmt.Errorf("%w: --until %d: episode %s has %d steps after the start page", errUsage, *until, rec.Episode.ID, last)
	}

	set := rec.Settings(settings)
	if settings.Display == engine.DisplayAuto && set.Display == engine.DisplayXvfb {
		// The recorded mode, on a machine without Xvfb: headless, and the
		// report warns that the modes differ.
		if _, err := exec.LookPath("Xvfb"); err != nil {
			set.Display = engine.DisplayHeadless
		}
	}
	opts := replay.Options{Until: *until, Continue: *cont, PracticeHosts: practice.Hosts}
	if offline != "" {
		// The bodies are read as the replay asks for them.
		st, err := env.OpenExistingStore()
		if err != nil {
			return err
		}
		defer st.Close()
		arch, err := st.EpisodeArchive(ctx, rec.Episode.ID)
		if err != nil {
			return err
		}
		opts.Archive, opts.Fallback = arch, offline == "fallback"
		if opts.Fallback {
			fmt.Fprintln(env.Stderr, "waymark replay: --offline=fallback: what the recording lacks is fetched from the live network; the report counts each such request as refused")
		}
	}
	eng, closeEngine, err := replayEngine(ctx, set, offline == "strict")
	if err != nil {
		return err
	}
	defer closeEngine()

	rep, runErr := replay.Run(ctx, eng, rec, opts)
	run := rep.StoredRun(eng.Info(), runErr)
	if runErr != nil {
		for _, m := range rep.Warnings {
			fmt.Fprintf(env.Stdout, "Warning: %s\n", m)
		}
		if ctx.Err() != nil {
			if len(rep.Steps) == 0 {
				return errors.New("interrupted before the start page opened; nothing was stored")
			}
			runErr = fmt.Errorf("interrupted after step %d (the steps so far are stored)", rep.Steps[len(rep.Steps)-1].Step)
		}
		if _, err := saveReplayRun(env, run); err != nil {
			return fmt.Errorf("%w (and its record could not be stored: %v)", runErr, err)
		}
		return runErr
	}
	writeReplay(env.Stdout, rep)
	saved, saveErr := saveReplayRun(env, run)
	if saveErr != nil {
		fmt.Fprintf(env.Stderr, "waymark replay: the result could not be stored beside the episode: %v\n", saveErr)
	} else {
		fmt.Fprintf(env.Stdout, "Stored as replay run %s (the episode itself is unchanged).\n", saved.ID)
	}
	if *reportPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := writeOwnerOnly(*reportPath, append(b, '\n')); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
	}
	if !rep.OK {
		return fmt.Errorf("the replay of episode %s did not match (see the table)", rep.EpisodeID)
	}
	if saveErr != nil {
		return fmt.Errorf("every step matched, but the result could not be stored: %w", saveErr)
	}
	return nil
}

// loadRecording reads an episode to replay and closes the store again: the
// replay only reads it, and a long replay must not hold it open.
func loadRecording(ctx context.Context, env *Env, id string) (*replay.Recording, error) {
	st, err := env.OpenExistingStore()
	if err != nil {
		return nil, err
	}
	rec, err := replay.Load(ctx, st, id)
	st.Close()
	if errors.Is(err, dataset.ErrNotFound) {
		return nil, fmt.Errorf("%w: no episode %q in %s", errUsage, id, env.DBPath)
	}
	return rec, err
}

// replayEngine starts a fresh local browser with settings (a recording's:
// see replay.Recording.Settings), with the practice sites running so their
// host names resolve as when recording (stored URLs name the hosts, never
// the port, so they compare as they are). The returned func closes both.
func replayEngine(ctx context.Context, settings engine.Settings, offline bool) (engine.Engine, func(), error) {
	if offline {
		// Served from the archive: no site is started, nothing is sent.
		eng, err := newEngine(ctx, engineSpec{Settings: settings})
		return eng, func() {
			if eng != nil {
				eng.Close()
			}
		}, err
	}
	sites, err := practice.Start()
	if err != nil {
		return nil, nil, err
	}
	eng, err := newEngine(ctx, engineSpec{Settings: settings, HostRules: sites.HostRules()})
	if err != nil {
		sites.Close()
		return nil, nil, err
	}
	return eng, func() { eng.Close(); sites.Close() }, nil
}

// saveReplayRun keeps a replay's result beside its episode.
func saveReplayRun(env *Env, run dataset.ReplayRun) (dataset.ReplayRun, error) {
	st, err := env.OpenExistingStore()
	if err != nil {
		return run, err
	}
	defer st.Close()
	return st.SaveReplayRun(context.Background(), run)
}

// writeReplay prints the warnings, the table and the summary line.
func writeReplay(w io.Writer, rep *replay.Report) {
	fmt.Fprintf(w, "Replaying episode %s (%d actions) from %s\n", rep.EpisodeID, rep.StoredSteps, rep.StartURL)
	for _, m := range rep.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", m)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if rep.Fidelity != nil {
		fmt.Fprintln(tw, "step\taction\tverdict\tscore\tserved\trefused\twhy")
	} else {
		fmt.Fprintln(tw, "step\taction\tverdict\tscore\twhy")
	}
	for _, r := range rep.Steps {
		score := "—"
		if r.Score != nil {
			score = strconv.FormatFloat(*r.Score, 'f', 5, 64)
		}
		why := r.Why
		if q := r.Requests; q != nil {
			for _, s := range []string{q.FirstRefusal, strings.Join(q.NotHermetic, "; ")} {
				if s != "" {
					why = strings.TrimPrefix(why+"; "+s, "; ")
				}
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\n", r.Step, oneLine(r.Action, 40), r.Verdict.Sentence(), score, q.Served, q.Refused, why)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.Step, oneLine(r.Action, 40), r.Verdict.Sentence(), score, why)
	}
	tw.Flush()
	if rep.Hermetic != "" {
		fmt.Fprintln(w, rep.Hermetic+".")
	}
	if rep.OK {
		fmt.Fprintf(w, "OK: all %d steps matched (%.1f s).\n", rep.Compared, float64(rep.ElapsedMS)/1000)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "NOT REPLAYED FAITHFULLY: %d of %d compared steps matched", rep.Matched, rep.Compared)
	if rep.FirstDivergence != nil {
		fmt.Fprintf(&b, "; first divergence at step %d", *rep.FirstDivergence)
	}
	if rep.Stopped != "" {
		fmt.Fprintf(&b, "; stopped: %s", rep.Stopped)
	}
	fmt.Fprintf(&b, " (%.1f s).", float64(rep.ElapsedMS)/1000)
	fmt.Fprintln(w, b.String())
}

// oneLine shortens s to n runes on one line, for the table.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
