package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
)

// Explore first, name the tasks after: play --explore records a free
// episode (no goal) into the store, and waymark cut names spans of it as
// tasks, each checked by replaying it from its start state.

func init() {
	register("cut", "cut EXPLORATION --from K --to K --instruction TEXT --category C [--answer TEXT] [--key-point TEXT]... [--as NAME] [--offline[=fallback]] [--no-check] [--db FILE] | cut --check CUT [--offline] | cut --list EXPLORATION",
		"name a span of an exploration's steps as a task: the task and an episode of its own (its steps the span's, its start page the one the step before the span led to), replayed from that start state and checked (offline from the exploration's traffic with --offline), its key points (\"url: …\", \"text: …\") checked against the span's last page", runCut)
}

// exploreRecorder wraps eng in a recorder of an exploration of startURL by
// name, in env's store (made when missing). The caller closes the
// recorder (which closes eng) and then the store.
func exploreRecorder(env *Env, eng engine.Engine, startURL, name string) (*dataset.Recorder, *dataset.Store, error) {
	if strings.TrimSpace(name) == "" {
		return nil, nil, fmt.Errorf("%w: --explore records under a name: give --as NAME (or set $USER)", errUsage)
	}
	st, err := env.OpenStore()
	if err != nil {
		return nil, nil, err
	}
	t, err := st.ExploreTask(context.Background(), startURL)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return dataset.NewRecorder(st, eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: name}), st, nil
}

// keyPoints is a repeatable --key-point.
type keyPoints []string

func (k *keyPoints) String() string     { return strings.Join(*k, "; ") }
func (k *keyPoints) Set(v string) error { *k = append(*k, v); return nil }

func runCut(env *Env, args []string) error {
	fs := newFlags(env, "cut")
	from := fs.Int("from", 0, "the exploration's first step of the span (1 or more)")
	to := fs.Int("to", 0, "its last step")
	instruction := fs.String("instruction", "", "what the span accomplished, as a task someone could be given")
	category := fs.String("category", "", "information, navigation or interaction")
	answer := fs.String("answer", "", "the answer (required for an information task)")
	var kps keyPoints
	fs.Var(&kps, "key-point", `a fact or state that shows success; "url: TEXT" and "text: TEXT" are checked against the span's last page (repeatable)`)
	as := fs.String("as", os.Getenv("USER"), "your name: the cut's finish step is yours")
	var offline offlineFlag
	fs.Var(&offline, "offline", "replay the cut from the exploration's recorded traffic, never the network (=fallback: fetch what it lacks)")
	noCheck := fs.Bool("no-check", false, "cut without replaying it (it is shown as not replayed yet)")
	checkID := fs.String("check", "", "replay an existing cut from its start state again and keep the result")
	list := fs.String("list", "", "list the tasks cut from this exploration, with what was checked")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := env.OpenExistingStore()
	if err != nil {
		return err
	}
	defer st.Close()
	switch {
	case *list != "":
		cuts, err := st.Cuts(ctx, *list)
		if err != nil {
			return err
		}
		for _, c := range cuts {
			h, err := st.HindsightCheckOf(ctx, c.ID)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s\tsteps %d–%d\t%s\t%s\t%s\n", c.ID, c.SpanFrom, c.SpanTo, c.Category, c.Goal, h.Summary())
		}
		return nil
	case *checkID != "":
		return checkCutCmd(ctx, env, st, *checkID, offline)
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one exploration's episode id, e.g. waymark cut 3f2c… --from 2 --to 5 --instruction … --category navigation (got %d arguments)", errUsage, len(pos))
	}
	cut, err := st.CutSpan(ctx, dataset.CutSpec{ExplorationID: pos[0], From: *from, To: *to, Instruction: *instruction, Category: *category,
		KeyPoints: kps, Answer: *answer, Editor: *as})
	if cut.ID == "" && err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "task %s\nepisode %s (steps %d–%d of exploration %s)\n", cut.TaskID, cut.ID, cut.SpanFrom, cut.SpanTo, cut.ExplorationID)
	if err != nil {
		fmt.Fprintf(env.Stderr, "waymark cut: warning: %v\n", err)
	}
	if *noCheck {
		h, _ := st.HindsightCheckOf(ctx, cut.ID)
		fmt.Fprintln(env.Stdout, h.Summary())
		return nil
	}
	return checkCutCmd(ctx, env, st, cut.ID, offline)
}

// errNotReplayable is cut's exit when the cut does not replay (exit 1).
var errNotReplayable = errors.New("the cut does not replay from its start state")

// checkCutCmd replays a cut from its start state in a fresh browser and
// prints what was checked; a cut that does not replay exits 1.
func checkCutCmd(ctx context.Context, env *Env, st *dataset.Store, id string, offline offlineFlag) error {
	cut, err := st.GetEpisode(ctx, id)
	if err != nil {
		return err
	}
	rec, err := replay.Load(ctx, st, cut.ExplorationID)
	if err != nil {
		return err
	}
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return err
	}
	opts := replay.CutCheckOptions{Fallback: offline == "fallback"}
	if offline != "" {
		if opts.Archive, err = st.EpisodeArchive(ctx, rec.Episode.ID); err != nil {
			return err
		}
	}
	eng, closeEngine, err := replayEngine(ctx, replay.CutSettings(rec, settings), offline == "strict")
	if err != nil {
		return err
	}
	defer closeEngine()
	h, err := replay.CheckCut(ctx, st, eng, id, opts)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, h.Summary())
	if !h.Replayable() {
		return errNotReplayable
	}
	return nil
}
