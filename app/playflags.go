package app

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
)

// playFlags are play's options. check refuses the ones that do not go
// together before anything is opened; settings turns them into the
// engine's settings.
type playFlags struct {
	startURL, shots, display, setName, server, provider string
	restore, attach, as                                 string
	maxSteps                                            int
	recoverObs, explore                                 bool
	redact                                              *redactFlag
	offline                                             offlineFlag
	gym                                                 *gymFlags
	// given holds the names of the options given on the command line.
	given map[string]bool

	// Set by check: --restore's EPISODE:K, and whether --obs browsergym
	// was asked for.
	target restoreTarget
	gymOn  bool
}

// addPlayFlags adds play's options to fs.
func addPlayFlags(fs *flag.FlagSet) *playFlags {
	f := &playFlags{}
	fs.StringVar(&f.startURL, "start-url", "", "the page the episode starts on (http or https)")
	fs.StringVar(&f.shots, "shots", "", "folder to save each observation's PNG screenshot in (created if missing)")
	fs.StringVar(&f.display, "display", "", "browser display: xvfb or headless (default: $WAYMARK_DISPLAY, else Xvfb when installed)")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "step limit, 1–200 (default: $BROWSER_MAX_STEPS or 20)")
	fs.StringVar(&f.setName, "action-set", "default", "action vocabulary: default (the reference's), extended or browsergym (the default with --obs browsergym)")
	fs.StringVar(&f.server, "server", "", "play on the OpenEnv browser server at this URL (e.g. http://127.0.0.1:8000) instead of a local browser")
	fs.StringVar(&f.provider, "browser-provider", "", browserProviderHelp)
	fs.BoolVar(&f.recoverObs, "recover-observation", false, "re-read an observation that shows no visible content (after DOMContentLoaded, at most 3 times; never repeats the action); a page still blank ends the episode")
	fs.StringVar(&f.restore, "restore", "", "EPISODE:K: start where a stored episode was after its step K — its start page, clock, action set and steps 1..K, replayed in a fresh browser and checked as waymark replay checks them; then read actions")
	f.redact = addRedactFlag(fs)
	fs.Var(&f.offline, "offline", "with --restore: the restored episode's page is served from its recorded traffic, never the network, and so is every request after it (=fallback: fetch what the recording lacks)")
	f.gym = addGymFlags(fs)
	fs.StringVar(&f.attach, "attach", "", "with --server: take over this live session of a waymark serve (GET /sessions lists them) with the actions on stdin, stored as human:NAME; control goes back to the agent at the end of input")
	fs.StringVar(&f.as, "as", os.Getenv("USER"), "with --attach or --explore: your name for the steps you take")
	fs.BoolVar(&f.explore, "explore", false, "record the episode into the store (--db) as an exploration, without a goal, its network traffic kept for offline replay; name tasks in it afterwards with waymark cut or on the Record screen")
	return f
}

// check reads --obs and --restore and refuses options that do not go
// together. With --attach it checks only --server: runPlayAttach checks
// the rest and ignores the other options.
func (f *playFlags) check() error {
	var err error
	if f.gymOn, err = f.gym.mode(f.given); err != nil {
		return err
	}
	if f.given["attach"] {
		if !f.given["server"] {
			return fmt.Errorf("%w: --attach needs --server URL, the waymark serve the session runs on", errUsage)
		}
		return nil
	}
	switch {
	case f.given["restore"]:
		if f.target, err = parseRestore(f.restore); err != nil {
			return err
		}
		for _, name := range []string{"start-url", "action-set", "server", "browser-provider", "explore"} {
			if f.given[name] {
				return fmt.Errorf("%w: --%s cannot go with --restore: the restored episode gives its start page and action set, and is replayed in a local browser", errUsage, name)
			}
		}
	case f.explore && f.gymOn:
		return fmt.Errorf("%w: --explore records Waymark's own actions: it cannot go with --obs browsergym", errUsage)
	case f.given["db"] && !f.explore:
		return fmt.Errorf("%w: --db is only for --restore and --explore", errUsage)
	case f.offline != "":
		return fmt.Errorf("%w: --offline is only for --restore EPISODE:K (the recorded traffic is that episode's)", errUsage)
	case f.startURL == "":
		return fmt.Errorf("%w: --start-url is required (or --restore EPISODE:K), e.g. --start-url https://example.com", errUsage)
	default:
		if err := action.CheckURL(f.startURL); err != nil {
			return fmt.Errorf("%w: --start-url: %v", errUsage, err)
		}
	}
	if f.given["server"] && f.given["browser-provider"] {
		return fmt.Errorf("%w: --server and --browser-provider cannot go together: an OpenEnv server runs its own browsers; give one of them", errUsage)
	}
	return nil
}

// settings are the engine settings of the environment ($BROWSER_*,
// $WAYMARK_DISPLAY) with play's options applied.
func (f *playFlags) settings() (engine.Settings, error) {
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return settings, err
	}
	if f.given["max-steps"] {
		if f.maxSteps < 1 || f.maxSteps > engine.MaxMaxSteps {
			return settings, fmt.Errorf("%w: --max-steps must be from 1 to %d", errUsage, engine.MaxMaxSteps)
		}
		settings.MaxSteps = f.maxSteps
	}
	if settings.ActionSet, err = action.ParseSet(f.setName); err != nil {
		return settings, fmt.Errorf("%w: --action-set: %v", errUsage, err)
	}
	settings.RecoverObservation = f.recoverObs
	settings.Redact = f.redact.policy()
	if f.display != "" {
		if settings.Display, err = engine.ParseDisplay(f.display); err != nil {
			return settings, fmt.Errorf("%w: --display: %v", errUsage, err)
		}
	}
	return settings, nil
}

// restoreTarget is --restore's EPISODE:K.
type restoreTarget struct {
	episode string
	k       int
	// archive, when set, serves the restored episode offline (fallback:
	// what it lacks goes to the network).
	archive  *dataset.Archive
	fallback bool
}

// parseRestore reads --restore's EPISODE:K.
func parseRestore(v string) (restoreTarget, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: --restore %q: %s; give the episode's id, a colon and the last step to replay, e.g. --restore 3f2c9a4e-…:4", errUsage, v, why)
	}
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return restoreTarget{}, bad("no colon before the step")
	}
	id, ks := strings.TrimSpace(v[:i]), strings.TrimSpace(v[i+1:])
	if id == "" {
		return restoreTarget{}, bad("no episode id")
	}
	if ks == "" {
		return restoreTarget{}, bad("no step after the colon")
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 0 {
		return restoreTarget{}, bad(fmt.Sprintf("the step %q is not a whole number from 0", ks))
	}
	return restoreTarget{episode: id, k: k}, nil
}
