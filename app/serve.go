package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/chromium"
	"waymark/engine/openenv"
)

func init() {
	register("serve", "serve [--addr 127.0.0.1:8000] [--max-sessions N] [--record [--grounding on|dom]] [--task-pack] [--obs browsergym [--multiaction=false]] [--restore EPISODE:K] [--allow-host NAME] [--allow-origin ORIGIN] [--recover-observation] [--har=false] [--no-redact] [--browser-provider VALUE] [--lease-ttl 900s] [--idle-timeout 10m]",
		"serve the browser engine to agents over the OpenEnv protocol (WebSocket /ws)", runServe)
}

// serveConfig is what `waymark serve` runs with.
type serveConfig struct {
	Addr        string
	MaxSessions int
	// Browsers is how many local Chromiums the sessions share (each
	// session gets a browser context of its own in one of them).
	Browsers  int
	Record    bool
	TaskPack  bool
	Display   string
	ActionSet action.Set
	// BrowserGym: BrowserGym action strings in, BrowserGym observations
	// out (--obs browsergym).
	BrowserGym bool
	// SingleAction: with BrowserGym, one call per action string unless a
	// reset asks for multiaction (--multiaction=false).
	SingleAction bool
	Settings     engine.Settings
	// AllowHosts and AllowOrigins are served besides the loopback names
	// and the server's own origin (--allow-host, --allow-origin).
	AllowHosts, AllowOrigins []string
	// Provider, when set, supplies each session's browser (e.g. remote_cdp:
	// a browser farm) under a lease; nil: a local Chromium per session.
	Provider engine.Provider
	// LeaseTTL is the lease each session asks the provider for (0: the
	// provider's lease_ttl, else 900 s).
	LeaseTTL time.Duration
	// Restore, "EPISODE:K", starts every episode where that stored episode
	// was after its step K (servecontinue.go).
	Restore string
	// Episodes offers stored episodes as tasks ("all", or a file of episode
	// ids); Offline serves a restored episode from its recorded traffic
	// ("strict", or "fallback") (serveepisodes.go).
	Episodes, Offline string
	// IdleTimeout ends a session with no reset or step for that long
	// (--idle-timeout; 0: openenv.DefaultIdleTimeout, negative: never).
	IdleTimeout time.Duration
	// Admission refuses new sessions while the machine is at its limit
	// (--max-load, --min-free-memory; servecapacity.go); AdmissionFrom says
	// where its defaults came from.
	Admission     openenv.Admission
	AdmissionFrom string
	// PingInterval and PongTimeout shorten keep-alive in tests (0: 20 s).
	PingInterval, PongTimeout time.Duration
	Logf                      func(format string, args ...any)
}

// serving is a configured server and what it owns.
type serving struct {
	srv      *openenv.Server
	store    *dataset.Store
	practice *practice.Server
	provider engine.Provider
}

// Close ends every session (closing their browsers and releasing their
// leases), then the provider's connections, the store and the practice
// sites.
func (s *serving) Close() error {
	err := s.srv.Close()
	if s.provider != nil {
		if c, ok := s.provider.(io.Closer); ok {
			err = errors.Join(err, c.Close())
		}
	}
	if s.practice != nil {
		err = errors.Join(err, s.practice.Close())
	}
	if s.store != nil {
		err = errors.Join(err, s.store.Close())
	}
	return err
}

func runServe(env *Env, args []string) error {
	cfg, addr, err := parseServe(env, args)
	if err != nil {
		return err
	}
	cfg.Logf = func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
	}

	sv, err := newServing(env, cfg)
	if err != nil {
		return err
	}
	defer sv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v (is another server using the port? choose one with --addr)", addr, err)
	}
	hs := &http.Server{Handler: sv.srv, ReadHeaderTimeout: 10 * time.Second}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(env.Stdout, "Serving the OpenEnv browser environment at %s (WebSocket %s/ws, %d session(s) at most).\n",
		base, "ws"+strings.TrimPrefix(base, "http"), cfg.MaxSessions)
	if host, _, _ := net.SplitHostPort(addr); !isLoopback(host) {
		fmt.Fprintf(env.Stdout, "Warning: %s is reachable from other machines; the protocol has no authentication.\n", addr)
	}
	if len(cfg.AllowHosts) > 0 || len(cfg.AllowOrigins) > 0 {
		fmt.Fprintf(env.Stdout, "Also serving host names %s and web origins %s.\n", listOrNone(cfg.AllowHosts), listOrNone(cfg.AllowOrigins))
	}
	if cfg.Provider != nil {
		ttl := "the provider's lease_ttl (else 900s)"
		if cfg.LeaseTTL > 0 {
			ttl = cfg.LeaseTTL.String()
		}
		fmt.Fprintf(env.Stdout, "Browsers come from the %s provider, one leased per session (lease %s, renewed on every step and while the client answers pings).\n",
			providerName(cfg.Provider), ttl)
	}
	if cfg.IdleTimeout > 0 {
		fmt.Fprintf(env.Stdout, "A session with no reset or step for %s is closed (IDLE_TIMEOUT; --idle-timeout 0: never).\n", cfg.IdleTimeout)
	}
	if a := cfg.Admission; a.MaxLoad > 0 || a.MinFreeMemory > 0 {
		fmt.Fprintf(env.Stdout, "A new session's reset is refused (CAPACITY_BUSY, retry after %s) above %.1f runnable tasks per CPU or below %d MiB of free memory: %s.\n",
			a.RetryAfter, a.MaxLoad, a.MinFreeMemory>>20, cfg.AdmissionFrom)
	}
	if cfg.Record {
		fmt.Fprintf(env.Stdout, "Recording episodes into %s.\n", sv.store.Path())
	}
	if cfg.TaskPack {
		fmt.Fprintf(env.Stdout, "Practice tasks: reset(start_url=…) or reset(task_id=KEY), %d tasks, e.g. %s.\n",
			len(practice.Tasks()), practice.Tasks()[0].Key)
	}
	fmt.Fprintln(env.Stdout, "Press Ctrl+C to stop.")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("the server stopped: %v", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(env.Stdout, "Stopping: closing sessions and their browsers…")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Sessions are hijacked connections: Shutdown does not wait for them,
	// sv.Close (deferred) ends them and closes their browsers.
	_ = hs.Shutdown(sctx)
	return nil
}

// newServing builds the server: one browser engine per session, the
// practice sites and their tasks with --task-pack, the recorder with
// --record.
func newServing(env *Env, cfg serveConfig) (*serving, error) {
	sv := &serving{}
	var hostRules string
	opts := openenv.Options{
		MaxSessions:  cfg.MaxSessions,
		ActionSet:    cfg.ActionSet,
		BrowserGym:   cfg.BrowserGym,
		SingleAction: cfg.SingleAction,
		AllowHosts:   cfg.AllowHosts,
		AllowOrigins: cfg.AllowOrigins,
		PingInterval: cfg.PingInterval,
		PongTimeout:  cfg.PongTimeout,
		IdleTimeout:  cfg.IdleTimeout,
		Admission:    cfg.Admission,
		Logf:         cfg.Logf,
	}
	if cfg.TaskPack || cfg.Restore != "" || cfg.Episodes != "" && cfg.Offline == "" {
		ps, err := practice.Start()
		if err != nil {
			return nil, err
		}
		sv.practice = ps
		hostRules = ps.HostRules()
		opts.ServesPractice = true
		tasks := map[string]openenv.Task{}
		var keys []string
		for _, t := range practice.Tasks() {
			check := t.Check
			tasks[t.Key] = openenv.Task{ID: t.Key, Goal: t.Goal, Category: t.Category, StartURL: t.StartURL, Check: &check,
				ReferenceTime: t.ReferenceTime, Timezone: t.Timezone, Locale: t.Locale}
			keys = append(keys, t.Key)
		}
		opts.Task = func(id string) (openenv.Task, bool) { t, ok := tasks[id]; return t, ok }
		opts.TaskIDs = func() []string { return keys }
	}
	settings := cfg.Settings
	if settings.MaxSteps == 0 {
		settings = engine.DefaultSettings()
		settings.RecoverObservation = cfg.Settings.RecoverObservation
		settings.HAR, settings.HARNoRedact = cfg.Settings.HAR, cfg.Settings.HARNoRedact
		settings.Redact = cfg.Settings.Redact
		settings.Grounding = cfg.Settings.Grounding
	}
	settings.ActionSet = cfg.ActionSet
	if cfg.BrowserGym {
		settings.Grounding = engine.GroundingOn // bids, the AXTree, element properties
	}
	if cfg.Display != "" {
		settings.Display = cfg.Display
	}
	// Local sessions share the process's warm Chromiums, a fresh browser
	// context each.
	chromium.SharedPool().SetBrowsers(cfg.Browsers)
	opts.NewEngine = func(ctx context.Context) (engine.Engine, error) {
		return newEngine(ctx, engineSpec{Settings: settings, HostRules: hostRules})
	}
	if cfg.Provider != nil {
		sv.provider = cfg.Provider
		opts.NewEngine = leasedEngines(cfg, settings, hostRules)
		opts.Provider = providerName(cfg.Provider)
	}
	if cfg.Record {
		st, err := env.OpenStore()
		if err == nil && st.Damaged() != "" {
			st.Close()
			err = fmt.Errorf("--record cannot record into a damaged database: %s", st.Damaged())
		}
		if err != nil {
			if sv.practice != nil {
				sv.practice.Close()
			}
			return nil, err
		}
		sv.store = st
		opts.WrapEpisode = func(base engine.Engine, ep openenv.EpisodeStart) (engine.Engine, error) {
			return recordEpisode(st, base, ep)
		}
		opts.OnAgentName = func(eng engine.Engine, name string) {
			if c, ok := eng.(recorderHolder); ok {
				if rec := c.Recorder(); rec != nil {
					eng = rec
				}
			}
			if rec, ok := eng.(agentNamed); ok {
				renameAgent(st, rec, name, cfg.Logf)
			}
		}
	}
	// Watchers see the redacted steps only, never the live page.
	opts.NoLiveFrames = settings.Redact != nil
	if cfg.Restore != "" || cfg.Episodes != "" {
		serveFrom := restoreServing
		if cfg.Episodes != "" {
			serveFrom = episodesServing // serveepisodes.go
		}
		if err := serveFrom(env, sv, cfg, &opts, settings); err != nil {
			if sv.practice != nil {
				sv.practice.Close()
			}
			if sv.store != nil {
				sv.store.Close()
			}
			return nil, err
		}
	}
	var (
		warmed  atomic.Bool // the start ahead ended
		warmErr atomic.Pointer[error]
	)
	if cfg.Provider == nil {
		// GET /ready: a session started now gets a warm Chromium.
		opts.Ready = func() (bool, string) {
			switch e := warmErr.Load(); {
			case !warmed.Load():
				return false, "the browser is starting; a reset now waits for it"
			case chromium.SharedPool().Warm():
				return true, ""
			case e != nil:
				return false, fmt.Sprintf("the browser could not be started (%v); each new session tries again", *e)
			}
			return false, "the browser stopped; the next session starts it again"
		}
	}
	srv, err := openenv.NewServer(opts)
	if err != nil {
		sv.Close()
		return nil, err
	}
	sv.srv = srv
	if cfg.Provider == nil {
		// The first session need not wait for Chromium's start.
		go func() {
			err := browser.Prewarm(browser.Options{Settings: settings, HostRules: hostRules, Logf: cfg.Logf})
			if err != nil {
				warmErr.Store(&err)
				if cfg.Logf != nil {
					cfg.Logf("serve: the browser could not be started ahead (the first session will say why): %v", err)
				}
			}
			warmed.Store(true)
		}()
	}
	return sv, nil
}

// recordEpisode wraps a session's engine in the recorder for one episode:
// the annotator is agent:NAME, the task is the practice task asked for, or
// an ad-hoc task for the start URL (category navigation, the recorder's
// default, since nothing says more about a bare URL).
//
// A client that says who records and what the task is (reset metadata, as
// Waymark's app sends) gets those facts recorded instead, so its own store
// and this one agree on the episode (same id, task goal and category,
// annotator).
func recordEpisode(st *dataset.Store, base engine.Engine, ep openenv.EpisodeStart) (engine.Engine, error) {
	ro := dataset.RecorderOptions{Annotator: "agent:" + ep.Agent}
	if f := ep.Facts; f.Annotator != "" {
		ro.Annotator = f.Annotator
	}
	if f := ep.Facts; ep.Task == nil && f.Goal != "" {
		if p, ok := practiceTask(f.TaskKey); ok && p.Goal == f.Goal {
			stored, err := storePracticeTask(st, p)
			if err != nil {
				return nil, fmt.Errorf("recording: the task %q could not be saved: %v", f.TaskKey, err)
			}
			ro.TaskID = stored.ID
		} else {
			ro.Goal = f.Goal
			if dataset.ValidCategory(f.Category) {
				ro.Category = f.Category
			}
		}
	}
	if t := ep.Task; t != nil {
		p, ok := practiceTask(t.ID)
		if !ok {
			return nil, fmt.Errorf("recording: %q is not a practice task", t.ID)
		}
		stored, err := storePracticeTask(st, p)
		if err != nil {
			return nil, fmt.Errorf("recording: the task %q could not be saved: %v", t.ID, err)
		}
		ro.TaskID = stored.ID
	}
	return dataset.NewRecorder(st, base, ro), nil
}

// recorderHolder is an episode engine that records through a Recorder of
// its own (a continued episode).
type recorderHolder interface{ Recorder() *dataset.Recorder }

// agentNamed is a recording engine whose steps carry the agent's name (the
// Recorder).
type agentNamed interface {
	SetAnnotator(who string)
	EpisodeID() string
}

// renameAgent names the current episode's agent from a metadata hint.
func renameAgent(st *dataset.Store, rec agentNamed, name string, logf func(string, ...any)) {
	who := "agent:" + name
	rec.SetAnnotator(who)
	if id := rec.EpisodeID(); id != "" {
		if err := st.SetEpisodeAnnotator(context.Background(), id, who); err != nil && logf != nil {
			logf("recording: naming episode %s's agent %q: %v", id, name, err)
		}
	}
}
