package app

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
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

// runPlay is waymark play: check the options, open the engine the mode
// asks for, then answer standard input line by line.
func runPlay(env *Env, args []string) error {
	fs := newFlags(env, "play")
	f := addPlayFlags(fs)
	if pos, err := parseArgs(fs, args); err != nil || len(pos) > 0 {
		return cmp.Or(err, noArgs(pos))
	}
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if err := f.check(); err != nil {
		return err
	}
	if f.given["attach"] {
		return runPlayAttach(env, f.server, f.attach, f.as, f.shots)
	}
	prov, err := parseBrowserProvider(f.provider)
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
	settings, err := f.settings()
	if err != nil {
		return err
	}
	if f.shots != "" {
		if err := mkdirOwnerOnly(f.shots); err != nil {
			return fmt.Errorf("cannot create the screenshot folder: %w", err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.gymOn {
		ownProv = nil
		return runPlayGym(ctx, env, f, settings, prov)
	}
	p := &playSession{env: env, f: f}
	defer p.close()
	if f.target.episode != "" {
		err = p.openRestored(ctx, settings)
	} else {
		ownProv = nil
		err = p.open(ctx, settings, prov)
	}
	if err != nil {
		return err
	}
	return p.play(ctx)
}

// playSession is one episode of play with Waymark's actions: the engine
// the lines are performed in, and what closes it.
type playSession struct {
	env *Env
	f   *playFlags
	eng engine.Engine
	// set is the action set the lines are parsed with (a restored
	// episode's own).
	set action.Set
	// rec is --restore's episode, else nil.
	rec *replay.Recording
	// closers close what was opened, the last first.
	closers []func()
	out     *json.Encoder
	// restored marks the lines of the steps --restore replays.
	restored bool
}

func (p *playSession) onClose(fn func()) { p.closers = append(p.closers, fn) }

func (p *playSession) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

// openRestored loads --restore's episode and opens a local engine with its
// settings (--max-steps still wins) and, with --offline, its recorded
// traffic.
func (p *playSession) openRestored(ctx context.Context, settings engine.Settings) error {
	f, t := p.f, &p.f.target
	rec, err := loadRecording(ctx, p.env, t.episode)
	if err != nil {
		return err
	}
	if last := rec.Steps[len(rec.Steps)-1].Index; t.k > last {
		return fmt.Errorf("%w: --restore %s: episode %s has no step %d (its steps are 0–%d)", errUsage, f.restore, rec.Episode.ID, t.k, last)
	}
	limit := settings.MaxSteps
	settings = rec.Settings(settings)
	if f.given["max-steps"] {
		settings.MaxSteps = limit
	}
	kept := 0 // the actions the restore replays
	for _, st := range rec.Steps {
		if st.Index > 0 && st.Index <= t.k && !st.Removed {
			kept++
		}
	}
	if settings.MaxSteps <= kept {
		return fmt.Errorf("%w: a step limit of %d leaves no step after the %d restored ones; give a larger --max-steps", errUsage, settings.MaxSteps, kept)
	}
	if f.offline != "" {
		st, err := p.env.OpenExistingStore()
		if err != nil {
			return err
		}
		p.onClose(func() { st.Close() })
		if t.archive, err = st.EpisodeArchive(ctx, rec.Episode.ID); err != nil {
			return err
		}
		t.fallback = f.offline == "fallback"
	}
	eng, closeEngine, err := replayEngine(ctx, settings, f.offline == "strict")
	if err != nil {
		return err
	}
	p.onClose(closeEngine)
	p.eng, p.set, p.rec = eng, settings.ActionSet, rec
	return nil
}

// open opens the engine of a new episode: on the OpenEnv browser server of
// --server (e.g. `waymark serve` or helium), else a browser from
// --browser-provider (a farm), or a local Chromium. With --explore the
// episode is recorded into the store.
func (p *playSession) open(ctx context.Context, settings engine.Settings, prov engine.Provider) error {
	f := p.f
	if f.explore {
		harSettings(&settings, true, false, os.Getenv)
	}
	e, err := newEngine(ctx, engineSpec{Settings: settings, Server: f.server, Provider: prov, OwnsProvider: true,
		Metadata: map[string]string{"client": "waymark play"}, LeaseLost: playWarn(p.env)})
	if err != nil {
		return err
	}
	p.onClose(func() { e.Close() })
	p.eng, p.set = e, settings.ActionSet
	if f.explore {
		r, st, err := exploreRecorder(p.env, e, f.startURL, f.as)
		if err != nil {
			return err
		}
		p.onClose(func() { st.Close() })
		p.onClose(func() {
			r.Close()
			fmt.Fprintf(p.env.Stderr, "waymark play: exploration %s recorded; name tasks in it with waymark cut %[1]s --from K --to K …\n", r.EpisodeID())
		})
		p.eng = r
	}
	return nil
}

// play prints the episode's start (the restored steps, or the start page),
// then performs the actions read from standard input until the input or
// the episode ends.
func (p *playSession) play(ctx context.Context) error {
	p.out = json.NewEncoder(p.env.Stdout)
	if p.rec != nil {
		obs, err := restoreSteps(ctx, p.env, p.eng, p.rec, p.f.target, func(o action.Observation, ok bool) error { p.restored = ok; return p.emit(o) })
		if err != nil {
			return err
		}
		p.restored = false
		if obs.Done {
			return nil
		}
	} else {
		obs, err := p.eng.Reset(ctx, engine.ResetOptions{StartURL: p.f.startURL})
		if err != nil {
			return fmt.Errorf("could not open %s: %w", p.f.startURL, err)
		}
		if err := p.emit(obs); err != nil || obs.Done {
			return err
		}
	}
	_, err := answerLines(ctx, p.env.Stdin, p.out, " (an action is one JSON object of a few kilobytes)", func(n int, line []byte) (*playRefusal, bool, error) {
		// Every line read is answered, a blank or comment line too: an
		// agent that waits for one reply per line never hangs.
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			return &playRefusal{Line: n, Error: fmt.Sprintf(`line %d is empty: nothing was done (write one JSON action per line; {"op":"wait"} observes the page again)`, n)}, false, nil
		}
		if text[0] == '#' {
			return &playRefusal{Line: n, Error: fmt.Sprintf("line %d is a comment: nothing was done", n)}, false, nil
		}
		a, err := action.Parse(text, p.set)
		if err != nil {
			return actionRefusal(n, err), false, nil
		}
		obs, err := p.eng.Step(ctx, a)
		if err != nil {
			return nil, false, err
		}
		return nil, obs.Done, p.emit(obs)
	})
	return err
}

// emit prints obs as one line, its screenshot saved in --shots.
func (p *playSession) emit(obs action.Observation) error {
	line := playLine{Step: obs.Step, URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done,
		EndReason: string(obs.EndReason), Answer: obs.Answer, Reward: obs.Reward, MS: obs.Timings.TotalMS, Restored: p.restored}
	if p.f.shots != "" && len(obs.Screenshot) > 0 {
		path := filepath.Join(p.f.shots, fmt.Sprintf("step-%03d.png", obs.Step))
		if err := writeOwnerOnly(path, obs.Screenshot); err != nil {
			return fmt.Errorf("cannot save the screenshot: %w", err)
		}
		line.Screenshot = path
	}
	return p.out.Encode(line)
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

// playWarn prints a warning (a lost browser lease) on play's standard error.
func playWarn(env *Env) func(error) {
	return func(err error) { fmt.Fprintf(env.Stderr, "waymark play: warning: %v\n", err) }
}
