package app

import (
	"cmp"
	"context"
	"fmt"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/openenv"
)

// An agent evaluated from a human's prefix: serve --restore EPISODE:K
// starts every session's episode where a stored episode was after its
// step K (its start page, clock and steps 1..K replayed in a fresh browser
// context and each checked as waymark replay checks it), then the agent
// goes on. With --record the episode is a branch of the stored one at K:
// its first K steps are the replayed ones, stored with their original
// actors, then the agent's.

// restoreServing loads the episode to continue and wraps opts' episodes so
// each reset replays it. It is called by newServing before the server is
// built; the recording is read once.
func restoreServing(env *Env, sv *serving, cfg serveConfig, opts *openenv.Options, settings engine.Settings) error {
	t, err := parseRestore(cfg.Restore)
	if err != nil {
		return err
	}
	rec, err := loadRecording(context.Background(), env, t.episode)
	if err != nil {
		return err
	}
	if last := rec.Steps[len(rec.Steps)-1].Index; t.k > last {
		return fmt.Errorf("%w: --restore %s: episode %s has no step %d (its steps are 0–%d)", errUsage, cfg.Restore, rec.Episode.ID, t.k, last)
	}
	kept := 0
	for _, st := range rec.Steps {
		if st.Index > 0 && st.Index <= t.k && !st.Removed {
			kept++
		}
	}
	if settings.MaxSteps <= kept {
		return fmt.Errorf("%w: a step limit of %d leaves the agent no step after the %d restored ones; raise BROWSER_MAX_STEPS", errUsage, settings.MaxSteps, kept)
	}
	arch, err := archiveLoader(env, sv, cfg, rec)
	if err != nil {
		return err
	}
	opts.DefaultStartURL = rec.StartURL
	opts.WrapEpisode = func(base engine.Engine, ep openenv.EpisodeStart) (engine.Engine, error) {
		return continueFrom(sv, cfg, base, ep, rec, t.k, arch), nil
	}
	return nil
}

// continueFrom is one session's episode that starts from rec's step k,
// recorded as its branch with --record, served offline when arch is set.
func continueFrom(sv *serving, cfg serveConfig, base engine.Engine, ep openenv.EpisodeStart, rec *replay.Recording, k int, arch func(context.Context) (*dataset.Archive, error)) *continued {
	c := &continued{Engine: base, from: rec, k: k, arch: arch, fallback: cfg.Offline == "fallback"}
	if sv.store != nil && cfg.Record {
		c.rec = dataset.NewRecorder(sv.store, base, dataset.RecorderOptions{TaskID: rec.Episode.TaskID, Annotator: "agent:" + ep.Agent})
		c.Engine = c.rec
	}
	return c
}

// archiveLoader is how each reset of a restored episode gets a fresh copy
// of rec's archive (nil without --offline), read from the store, which
// stays open while serve runs.
func archiveLoader(env *Env, sv *serving, cfg serveConfig, rec *replay.Recording) (func(context.Context) (*dataset.Archive, error), error) {
	if cfg.Offline == "" {
		return nil, nil
	}
	if sv.store == nil {
		st, err := env.OpenExistingStore()
		if err != nil {
			return nil, err
		}
		sv.store = st
	}
	st := sv.store
	if ok, err := st.HasArchive(context.Background(), rec.Episode.ID); err != nil || !ok {
		return nil, cmp.Or(err, fmt.Errorf("--offline: episode %s: %w", rec.Episode.ID, dataset.ErrNoArchive))
	}
	return func(ctx context.Context) (*dataset.Archive, error) { return st.EpisodeArchive(ctx, rec.Episode.ID) }, nil
}

// continued is one episode that starts from a stored episode's step k.
type continued struct {
	engine.Engine                   // the recorder, or the session's engine
	rec           *dataset.Recorder // nil without --record
	from          *replay.Recording
	k             int
	// arch, when set, gives each reset a fresh archive of from: the
	// episode is served offline (fallback: what it lacks goes to the
	// network).
	arch     func(context.Context) (*dataset.Archive, error)
	fallback bool
}

// Recorder is the episode's recorder (nil without --record).
func (c *continued) Recorder() *dataset.Recorder { return c.rec }

// Reset opens the stored episode's start page and replays its kept steps
// 1..k, each checked; a step that does not replay as recorded fails the
// reset (a recorded branch is then discarded).
func (c *continued) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	ro := c.from.Clock
	ro.StartURL, ro.EpisodeID = c.from.StartURL, opts.EpisodeID
	if c.arch != nil {
		a, err := c.arch(ctx)
		if err != nil {
			return engine.Observation{}, fmt.Errorf("cannot serve episode %s offline: %w", c.from.Episode.ID, err)
		}
		c.from.Offline(&ro, a, c.fallback)
	}
	var obs engine.Observation
	var err error
	if c.rec != nil {
		obs, err = c.rec.ResetBranch(ctx, ro, c.from.Episode.ID, c.k)
	} else {
		obs, err = c.Engine.Reset(ctx, ro)
	}
	if err != nil {
		return obs, err
	}
	actor := ""
	last, _, err := replay.Prefix(ctx, actorStepper{c, &actor}, c.from, c.k, replay.PrefixOptions{Start: &obs}, func(p replay.PrefixProgress) {
		if p.Result == nil && p.Step < len(c.from.Steps) {
			actor = c.from.Steps[p.Step].Actor
			if actor == "" {
				actor = dataset.ActorOf(c.from.Episode.Annotator)
			}
		}
	})
	if err != nil {
		if c.rec != nil {
			_ = c.rec.Discard()
		}
		return engine.Observation{}, fmt.Errorf("cannot continue episode %s from step %d: %w", c.from.Episode.ID, c.k, err)
	}
	return last, nil
}

// StepAs is the recorder's (a person who took over), else Step.
func (c *continued) StepAs(ctx context.Context, a engine.Action, actor string) (engine.Observation, error) {
	if c.rec != nil {
		return c.rec.StepAs(ctx, a, actor)
	}
	return c.Engine.Step(ctx, a)
}

// actorStepper replays the stored steps under their own actors.
type actorStepper struct {
	c     *continued
	actor *string
}

func (s actorStepper) Reset(ctx context.Context, o engine.ResetOptions) (engine.Observation, error) {
	return s.c.Engine.Reset(ctx, o)
}
func (s actorStepper) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	return s.c.StepAs(ctx, a, *s.actor)
}
func (s actorStepper) State() engine.State { return s.c.Engine.State() }
func (s actorStepper) Info() engine.Info   { return s.c.Engine.Info() }
func (s actorStepper) Close() error        { return nil }
