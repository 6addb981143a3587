package app

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/action"
)

func init() {
	register("play", "play (--start-url URL [--explore [--as NAME] [--db FILE]] | --restore EPISODE:K [--db FILE] | --server URL --attach SESSION_ID [--as NAME]) [--server URL | --browser-provider VALUE] [--shots DIR] [--display xvfb|headless] [--max-steps N] [--action-set S] [--recover-observation] [--obs waymark|browsergym [--goal TEXT] [--dom]]",
		"run one browser episode from action JSON lines on stdin; print one JSON line per observation. --obs browsergym reads BrowserGym action strings (click('a51'), fill('a12', 'text'), mouse_click(312, 188), ...) and prints BrowserGym observations. --restore first replays a stored episode's steps 1..K, checked like waymark replay (exit 1 on a divergence)", runPlay)
}

// playLine is one line of play's output.
type playLine struct {
	Step       int      `json:"step"`
	URL        string   `json:"url"`
	Title      string   `json:"title"`
	Error      string   `json:"error"`
	Done       bool     `json:"done"`
	EndReason  string   `json:"end_reason,omitempty"`
	Answer     string   `json:"answer,omitempty"`
	Reward     *float64 `json:"reward,omitempty"`
	Screenshot string   `json:"screenshot"`
	MS         int64    `json:"ms"`
	// Restored marks the observations of the steps --restore replayed.
	Restored bool `json:"restored,omitempty"`
}

// playRefusal answers a line that is not a valid action.
type playRefusal struct {
	Line   int                 `json:"line"`
	Error  string              `json:"error"`
	Errors []action.FieldError `json:"errors,omitempty"`
}

func runPlay(env *Env, args []string) error {
	fs := newFlags(env, "play")
	startURL := fs.String("start-url", "", "the page the episode starts on (http or https)")
	shots := fs.String("shots", "", "folder to save each observation's PNG screenshot in (created if missing)")
	display := fs.String("display", "", "browser display: xvfb or headless (default: $WAYMARK_DISPLAY, else Xvfb when installed)")
	maxSteps := fs.Int("max-steps", 0, "step limit, 1–200 (default: $BROWSER_MAX_STEPS or 20)")
	setName := fs.String("action-set", "default", "action vocabulary: default (the reference's), extended or browsergym (the default with --obs browsergym)")
	server := fs.String("server", "", "play on the OpenEnv browser server at this URL (e.g. http://127.0.0.1:8000) instead of a local browser")
	providerFlag := fs.String("browser-provider", "", browserProviderHelp)
	recoverObs := fs.Bool("recover-observation", false, "re-read an observation that shows no visible content (after DOMContentLoaded, at most 3 times; never repeats the action); a page still blank ends the episode")
	restore := fs.String("restore", "", "EPISODE:K: start where a stored episode was after its step K — its start page, clock, action set and steps 1..K, replayed in a fresh browser and checked as waymark replay checks them; then read actions")
	redactPolicy := addRedactFlag(fs)
	var offline offlineFlag
	fs.Var(&offline, "offline", "with --restore: the restored episode's page is served from its recorded traffic, never the network, and so is every request after it (=fallback: fetch what the recording lacks)")
	gym := addGymFlags(fs)
	attach := fs.String("attach", "", "with --server: take over this live session of a waymark serve (GET /sessions lists them) with the actions on stdin, stored as human:NAME; control goes back to the agent at the end of input")
	as := fs.String("as", os.Getenv("USER"), "with --attach or --explore: your name for the steps you take")
	explore := fs.Bool("explore", false, "record the episode into the store (--db) as an exploration, without a goal, its network traffic kept for offline replay; name tasks in it afterwards with waymark cut or on the Record screen")
	if pos, err := parseArgs(fs, args); err != nil || len(pos) > 0 {
		return cmp.Or(err, noArgs(pos))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	gymOn, err := gym.mode(given)
	if err != nil {
		return err
	}
	if given["attach"] {
		if !given["server"] {
			return fmt.Errorf("%w: --attach needs --server URL, the waymark serve the session runs on", errUsage)
		}
		return runPlayAttach(env, *server, *attach, *as, *shots)
	}
	var target restoreTarget
	switch {
	case given["restore"]:
		var err error
		if target, err = parseRestore(*restore); err != nil {
			return err
		}
		for _, name := range []string{"start-url", "action-set", "server", "browser-provider", "explore"} {
			if given[name] {
				return fmt.Errorf("%w: --%s cannot go with --restore: the restored episode gives its start page and action set, and is replayed in a local browser", errUsage, name)
			}
		}
	case *explore && gymOn:
		return fmt.Errorf("%w: --explore records Waymark's own actions: it cannot go with --obs browsergym", errUsage)
	case given["db"] && !*explore:
		return fmt.Errorf("%w: --db is only for --restore and --explore", errUsage)
	case offline != "":
		return fmt.Errorf("%w: --offline is only for --restore EPISODE:K (the recorded traffic is that episode's)", errUsage)
	case *startURL == "":
		return fmt.Errorf("%w: --start-url is required (or --restore EPISODE:K), e.g. --start-url https://example.com", errUsage)
	default:
		if err := action.CheckURL(*startURL); err != nil {
			return fmt.Errorf("%w: --start-url: %v", errUsage, err)
		}
	}
	if given["server"] && given["browser-provider"] {
		return fmt.Errorf("%w: --server and --browser-provider cannot go together: an OpenEnv server runs its own browsers; give one of them", errUsage)
	}
	prov, err := parseBrowserProvider(*providerFlag)
	if err != nil {
		return fmt.Errorf("%w: --browser-provider: %v", errUsage, err)
	}
	// The provider is play's own: the engine closes it (and its connections
	// to the farm) with itself; until then a parse or setup error closes it.
	ownProv := prov
	defer func() {
		if ownProv != nil {
			closeProvider(ownProv)
		}
	}()
	settings, err := engine.SettingsFromEnv()
	if err != nil {
		return err
	}
	if given["max-steps"] {
		if *maxSteps < 1 || *maxSteps > engine.MaxMaxSteps {
			return fmt.Errorf("%w: --max-steps must be from 1 to %d", errUsage, engine.MaxMaxSteps)
		}
		settings.MaxSteps = *maxSteps
	}
	if settings.ActionSet, err = action.ParseSet(*setName); err != nil {
		return fmt.Errorf("%w: --action-set: %v", errUsage, err)
	}
	settings.RecoverObservation = *recoverObs
	settings.Redact = redactPolicy.policy()
	if *display != "" {
		if settings.Display, err = engine.ParseDisplay(*display); err != nil {
			return fmt.Errorf("%w: --display: %v", errUsage, err)
		}
	}
	if *shots != "" {
		if err := mkdirOwnerOnly(*shots); err != nil {
			return fmt.Errorf("cannot create the screenshot folder: %w", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if gymOn {
		ownProv = nil
		return runPlayGym(ctx, env, gym, given, settings, prov, *startURL, *shots)
	}
	var eng engine.Engine
	var rec *replay.Recording
	if target.episode != "" {
		if rec, err = loadRecording(ctx, env, target.episode); err != nil {
			return err
		}
		if last := rec.Steps[len(rec.Steps)-1].Index; target.k > last {
			return fmt.Errorf("%w: --restore %s: episode %s has no step %d (its steps are 0–%d)", errUsage, *restore, rec.Episode.ID, target.k, last)
		}
		limit := settings.MaxSteps
		settings = rec.Settings(settings)
		if given["max-steps"] {
			settings.MaxSteps = limit
		}
		kept := 0 // the actions the restore replays
		for _, st := range rec.Steps {
			if st.Index > 0 && st.Index <= target.k && !st.Removed {
				kept++
			}
		}
		if settings.MaxSteps <= kept {
			return fmt.Errorf("%w: a step limit of %d leaves no step after the %d restored ones; give a larger --max-steps", errUsage, settings.MaxSteps, kept)
		}
		if offline != "" {
			st, err := env.OpenExistingStore()
			if err != nil {
				return err
			}
			defer st.Close()
			if target.archive, err = st.EpisodeArchive(ctx, rec.Episode.ID); err != nil {
				return err
			}
			target.fallback = offline == "fallback"
		}
		e, closeEngine, err := replayEngine(ctx, settings, offline == "strict")
		if err != nil {
			return err
		}
		defer closeEngine()
		eng = e
	} else {
		// --server: a remote OpenEnv browser server (e.g. `waymark serve`
		// or helium); else a browser from --browser-provider (a farm), or a
		// local Chromium.
		ownProv = nil
		if *explore {
			harSettings(&settings, true, false, os.Getenv)
		}
		e, err := newEngine(ctx, engineSpec{Settings: settings, Server: *server, Provider: prov, OwnsProvider: true,
			Metadata: map[string]string{"client": "waymark play"}, LeaseLost: playWarn(env)})
		if err != nil {
			return err
		}
		defer e.Close()
		eng = e
		if *explore {
			r, st, err := exploreRecorder(env, e, *startURL, *as)
			if err != nil {
				return err
			}
			defer st.Close()
			defer func() {
				r.Close()
				fmt.Fprintf(env.Stderr, "waymark play: exploration %s recorded; name tasks in it with waymark cut %[1]s --from K --to K …\n", r.EpisodeID())
			}()
			eng = r
		}
	}

	out := json.NewEncoder(env.Stdout)
	restored := false
	emit := func(obs action.Observation) error {
		line := playLine{Step: obs.Step, URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done,
			EndReason: string(obs.EndReason), Answer: obs.Answer, Reward: obs.Reward, MS: obs.Timings.TotalMS, Restored: restored}
		if *shots != "" && len(obs.Screenshot) > 0 {
			p := filepath.Join(*shots, fmt.Sprintf("step-%03d.png", obs.Step))
			if err := writeOwnerOnly(p, obs.Screenshot); err != nil {
				return fmt.Errorf("cannot save the screenshot: %w", err)
			}
			line.Screenshot = p
		}
		return out.Encode(line)
	}

	var obs action.Observation
	if rec != nil {
		if obs, err = restoreSteps(ctx, env, eng, rec, target, func(o action.Observation, ok bool) error { restored = ok; return emit(o) }); err != nil {
			return err
		}
		restored = false
		if obs.Done {
			return nil
		}
	} else {
		obs, err = eng.Reset(ctx, engine.ResetOptions{StartURL: *startURL})
		if err != nil {
			return fmt.Errorf("could not open %s: %w", *startURL, err)
		}
		if err := emit(obs); err != nil || obs.Done {
			return err
		}
	}
	refuse := func(ref playRefusal) error { return out.Encode(ref) }
	err = readActionLines(env.Stdin, maxPlayLine, func(n int, line []byte, size int) error {
		if line == nil {
			return refuse(playRefusal{Line: n, Error: fmt.Sprintf("line %d has %d bytes, more than the %d a line may have (an action is one JSON object of a few kilobytes); it was skipped", n, size, maxPlayLine)})
		}
		// Every line read is answered, a blank or comment line too: an
		// agent that waits for one reply per line never hangs.
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			return refuse(playRefusal{Line: n, Error: fmt.Sprintf(`line %d is empty: nothing was done (write one JSON action per line; {"op":"wait"} observes the page again)`, n)})
		}
		if text[0] == '#' {
			return refuse(playRefusal{Line: n, Error: fmt.Sprintf("line %d is a comment: nothing was done", n)})
		}
		a, err := action.Parse(text, settings.ActionSet)
		if err != nil {
			ref := playRefusal{Line: n, Error: err.Error()}
			var ve *action.ValidationError
			if errors.As(err, &ve) {
				ref.Errors = ve.Errors
			}
			return refuse(ref)
		}
		obs, err := eng.Step(ctx, a)
		if err != nil {
			return err
		}
		if err := emit(obs); err != nil {
			return err
		}
		if obs.Done {
			return errPlayDone
		}
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return nil
	})
	if errors.Is(err, errPlayDone) {
		return nil
	}
	return err
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

// restoreSteps resets eng to rec's start page and clock and replays rec's
// kept steps 1..t.k, each checked against the stored one; emit gets each
// observation and whether it matched the stored step. A divergence is an
// error that says where and why.
func restoreSteps(ctx context.Context, env *Env, eng engine.Engine, rec *replay.Recording, t restoreTarget, emit func(o action.Observation, ok bool) error) (action.Observation, error) {
	if w := rec.SiteWarning(practice.Hosts); w != "" {
		fmt.Fprintf(env.Stderr, "waymark play: warning: %s\n", w)
	}
	ro := rec.Clock
	ro.StartURL = rec.StartURL
	if t.archive != nil {
		rec.Offline(&ro, t.archive, t.fallback)
	}
	obs, err := eng.Reset(ctx, ro)
	if ctx.Err() != nil {
		return obs, errors.New("interrupted")
	}
	if err != nil {
		return obs, fmt.Errorf("could not open %s: %w", rec.StartURL, err)
	}
	// The start page's line goes first, once it is known to match (Prefix
	// compares it before the first step).
	var emitErr error
	started := false
	start := func(ok bool) {
		if !started {
			started = true
			emitErr = emit(obs, ok)
		}
	}
	last, results, err := replay.Prefix(ctx, eng, rec, t.k, replay.PrefixOptions{Start: &obs}, func(p replay.PrefixProgress) {
		start(true)
		if p.Result != nil && emitErr == nil {
			emitErr = emit(p.Obs, p.Result.Verdict == dataset.VerdictMatch)
		}
	})
	start(len(results) > 0 && results[0].Verdict == dataset.VerdictMatch)
	if emitErr != nil {
		return last, emitErr
	}
	if ctx.Err() != nil {
		return last, errors.New("interrupted")
	}
	if err != nil {
		return last, fmt.Errorf("cannot restore episode %s at step %d: %w; nothing was read from standard input", rec.Episode.ID, t.k, err)
	}
	fmt.Fprintf(env.Stderr, "waymark play: episode %s restored at step %d (every replayed step matched); reading actions from standard input\n", rec.Episode.ID, t.k)
	return last, nil
}

// maxPlayLine bounds one line of play's input. Longer lines are refused one
// by one; the episode goes on.
const maxPlayLine = 1 << 20

var errPlayDone = errors.New("episode done")

// readActionLines calls fn for each line of r, numbered from 1, without its
// line ending. A line longer than max bytes is read through without being
// kept: fn gets nil and the line's size. fn's error stops the reading.
func readActionLines(r io.Reader, max int, fn func(n int, line []byte, size int) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		size, over := 0, false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			size += len(chunk)
			if !over {
				if ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'; size-1 > max || (size > max && !ended) {
					over = true
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading actions: %w", err)
		}
		if size == 0 && err == io.EOF {
			return nil
		}
		var line []byte
		if !over {
			line = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
			if line == nil {
				line = []byte{}
			}
		} else if size > 0 && err == nil {
			size-- // the line ending
		}
		if ferr := fn(n, line, size); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
	}
}

// playWarn prints a warning (a lost browser lease) on play's standard error.
func playWarn(env *Env) func(error) {
	return func(err error) { fmt.Fprintf(env.Stderr, "waymark play: warning: %v\n", err) }
}
