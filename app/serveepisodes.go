package app

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/openenv"
)

// Every demonstration as an environment: serve --episodes FILE|all offers
// stored episodes as tasks. reset(task_id="EPISODE") starts on the
// episode's start page, reset(task_id="EPISODE:K") where the person was
// after its step K (the start page and steps 1..K replayed and each
// checked, as --restore does); with --offline the pages come from the
// episode's recorded traffic and so does every request after them, a
// request off the recorded path refused and counted in the observation's
// metadata.off_archive. The recorded human trajectory (waymark replay,
// Review) is the reference to compare the agent's with.

// episodesServing offers the stored episodes cfg.Episodes names as tasks.
func episodesServing(env *Env, sv *serving, cfg serveConfig, opts *openenv.Options, settings engine.Settings) error {
	if sv.store == nil {
		st, err := env.OpenExistingStore()
		if err != nil {
			return err
		}
		sv.store = st
	}
	st := sv.store
	ids, err := servedEpisodeIDs(st, cfg.Episodes)
	if err != nil {
		return err
	}
	recs := map[string]*replay.Recording{}
	var list []string
	for _, id := range ids {
		rec, err := replay.Load(context.Background(), st, id)
		if err != nil {
			return fmt.Errorf("--episodes: %w", err)
		}
		if cfg.Offline != "" {
			if ok, err := st.HasArchive(context.Background(), id); err != nil || !ok {
				if cfg.Episodes == "all" {
					continue // only those that replay offline
				}
				return fmt.Errorf("--episodes --offline: episode %s: %w", id, cmpErr(err, dataset.ErrNoArchive))
			}
		}
		recs[rec.Episode.ID] = rec
		list = append(list, rec.Episode.ID)
	}
	if len(list) == 0 {
		return fmt.Errorf("--episodes %s: no stored episode to serve (with --offline, only episodes recorded with network capture replay offline)", cfg.Episodes)
	}
	lookup := func(key string) (*replay.Recording, int, bool) {
		id, k := key, 0
		if i := strings.LastIndexByte(key, ':'); i > 0 {
			n, err := strconv.Atoi(key[i+1:])
			if err != nil || n < 0 {
				return nil, 0, false
			}
			id, k = key[:i], n
		}
		rec := recs[id]
		if rec == nil || k > rec.Steps[len(rec.Steps)-1].Index {
			return nil, 0, false
		}
		return rec, k, true
	}
	practiceTask := opts.Task
	opts.Task = func(key string) (openenv.Task, bool) {
		if rec, _, ok := lookup(key); ok {
			return openenv.Task{ID: key, Goal: rec.Episode.Goal, Category: rec.Episode.Category, StartURL: rec.StartURL}, true
		}
		if practiceTask != nil {
			return practiceTask(key)
		}
		return openenv.Task{}, false
	}
	practiceIDs := opts.TaskIDs
	opts.TaskIDs = func() []string {
		out := append([]string(nil), list...)
		if practiceIDs != nil {
			out = append(out, practiceIDs()...)
		}
		return out
	}
	record := opts.WrapEpisode
	opts.WrapEpisode = func(base engine.Engine, ep openenv.EpisodeStart) (engine.Engine, error) {
		if ep.Task != nil {
			if rec, k, ok := lookup(ep.Task.ID); ok {
				kept := 0
				for _, s := range rec.Steps {
					if s.Index > 0 && s.Index <= k && !s.Removed {
						kept++
					}
				}
				if settings.MaxSteps <= kept {
					return nil, fmt.Errorf("a step limit of %d leaves the agent no step after the %d restored ones; raise BROWSER_MAX_STEPS", settings.MaxSteps, kept)
				}
				arch, err := archiveLoader(env, sv, cfg, rec)
				if err != nil {
					return nil, err
				}
				return continueFrom(sv, cfg, base, ep, rec, k, arch), nil
			}
		}
		if record != nil {
			return record(base, ep)
		}
		return base, nil
	}
	if cfg.Logf != nil {
		cfg.Logf("serve: %d stored episodes offered as tasks (reset(task_id=\"EPISODE\") or \"EPISODE:K\")", len(list))
	}
	return nil
}

// servedEpisodeIDs reads --episodes: "all" (every stored episode that
// ended, newest first) or a file of episode ids, one a line (blank lines
// and # comments skipped).
func servedEpisodeIDs(st *dataset.Store, which string) ([]string, error) {
	if which == "all" {
		eps, err := st.ListEpisodes(context.Background(), dataset.EpisodeFilter{Status: dataset.StatusFinished})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(eps))
		for i, e := range eps {
			ids[i] = e.ID
		}
		return ids, nil
	}
	f, err := os.Open(which)
	if err != nil {
		return nil, fmt.Errorf("%w: --episodes: %v (give a file of episode ids, one a line, or all)", errUsage, err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ids = append(ids, line)
	}
	return ids, sc.Err()
}

func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
