package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"github.com/gen2brain/beeep"

	"waymark/assets"
	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
	"waymark/engine/openenv"
	"waymark/engine/redact"
	"waymark/ui"
	"waymark/ui/exporttab"
	"waymark/ui/record"
	"waymark/ui/review"
	"waymark/ui/sessions"
	"waymark/ui/tasks"
)

// gui is the built desktop app: its window, the screens' shared context and
// the screens buildGUI wired together.
type gui struct {
	env    *Env
	flags  guiFlags
	app    fyne.App
	window fyne.Window
	prefs  fyne.Preferences
	store  *dataset.Store
	sites  *practice.Server
	ctx    *ui.Context
	main   *ui.MainWindow
	rec    *record.Tab
	tasks  *tasks.Tab
	debugf func(string, ...any)
	once   sync.Once
	watch  *closeWatch   // ends the program when Fyne's loop does not end after a close
	agents agentServes   // "Let an agent continue from here" (guiagent.go)
	sess   *sessions.Tab // the Sessions screen
}

// buildGUI makes the window and its screens over an open store and the
// running practice sites. Nothing is shown yet: run does that.
func buildGUI(env *Env, f guiFlags, a fyne.App, store *dataset.Store, sites *practice.Server) *gui {
	g := &gui{env: env, flags: f, app: a, window: a.NewWindow("Waymark"), prefs: a.Preferences(),
		store: store, sites: sites, debugf: debugLogger(env.Stderr, f.debug)}
	var focused atomic.Bool
	focused.Store(true)
	a.Lifecycle().SetOnEnteredForeground(func() { focused.Store(true) })
	a.Lifecycle().SetOnExitedForeground(func() { focused.Store(false) })
	g.ctx = &ui.Context{
		Bridge: &ui.Bridge{},
		App:    a,
		Window: g.window,
		Store:  store,
		User:   func() string { return ui.LoadSettings(g.prefs).Annotator },
		Notify: func(title, body string) {
			if focused.Load() {
				return
			}
			go func() { _ = beeep.Notify(title, body, assets.Icon) }() // best effort: no D-Bus, no notification
		},
	}
	g.rec = record.New(g.ctx, record.Options{
		Open: g.openEpisode,
		UseLocalBrowser: func() {
			s := ui.LoadSettings(g.prefs)
			s.Server = ""
			s.Save(g.prefs)
		},
		Settings:     func() ui.Settings { return ui.LoadSettings(g.prefs) },
		ShowSettings: g.showSettings,
		Debugf:       g.debugf,
	})
	g.tasks = tasks.New(g.ctx, func(t dataset.Task) {
		g.main.Select(g.rec.Title())
		g.rec.StartTask(t)
	})
	// "Continue from step K" in the Review player records the branch on
	// the Record screen.
	g.ctx.Branch = func(episodeID string, k int) {
		g.main.Select(g.rec.Title())
		g.rec.Branch(episodeID, k)
	}
	g.sess = sessions.New(g.ctx)
	g.sess.Debugf = g.debugf
	g.ctx.AgentContinue = func(episodeID string, k int) (string, error) {
		url, err := g.agents.start(g.env, g.store.Path(), episodeID, k, g.debugf)
		if err == nil {
			g.ctx.UI().Do(func() { g.sess.SetServer(url) })
		}
		return url, err
	}
	rv := review.New(g.ctx)
	rv.SetReplay(review.ReplayOptions{Open: g.replayEngine, PracticeHosts: practice.Hosts})
	g.main = ui.NewMainWindow(g.ctx, g.rec, rv, g.tasks, exporttab.New(g.ctx), g.sess)
	if g.debugf != nil {
		for _, it := range g.main.Tabs.Items {
			g.debugf("tab %s min size %v", it.Text, it.Content.MinSize())
		}
	}
	// A task file dropped on the window opens the import preview.
	g.window.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		for _, u := range uris {
			if u.Scheme() == "file" {
				g.main.Select(g.tasks.Title())
				g.tasks.ImportFile(u.Path())
				return
			}
		}
	})
	return g
}

// openEpisode starts the engine of one Record episode (the local browser or
// the OpenEnv server in Settings) behind a recorder that saves every step.
func (g *gui) openEpisode(ctx context.Context, t dataset.Task, s ui.Settings) (*record.Opened, error) {
	// Network capture (har.go) when both Settings and --har keep it on;
	// element grounding as Settings say (on unless turned off).
	harSettings(&s.Settings, g.flags.har && s.HAR, g.flags.noRedact, os.Getenv)
	s.Settings.Redact = g.redactPolicy(s)
	spec := engineSpec{
		Settings: s.Settings,
		Server:   s.Server,
		// A person waits at Start: a server that is not there must be
		// said within seconds, not after the 30 s an agent may wait.
		HealthTimeout: 4 * time.Second,
		ResetExtra:    openenv.FactsMetadata(openenv.EpisodeFacts{Goal: t.Goal, Category: t.Category, TaskKey: t.SourceID, Annotator: s.Annotator}),
		HostRules:     g.sites.HostRules(),
		Logf:          g.debugf,
	}
	if err := g.remoteSpec(&spec, s, map[string]string{"task": t.SourceID, "annotator": s.Annotator}); err != nil {
		return nil, err
	}
	eng, err := newEngine(ctx, spec)
	if err != nil {
		if s.Server != "" || s.RemoteBrowser != "" {
			return nil, fmt.Errorf("%w (check the address in Settings, or clear it to use the local browser)", err)
		}
		return nil, err
	}
	rec := dataset.NewRecorder(g.store, eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})
	o := &record.Opened{Engine: rec}
	if c, ok := engine.As[connectionLoser](eng); ok {
		o.Lost, o.LostErr = c.Lost(), c.LostErr
	}
	if _, live := engine.As[engine.LiveFrames](eng); live {
		o.Frames = rec.Frames()
	}
	return o, nil
}

// connectionLoser is an engine that runs elsewhere (an OpenEnv client):
// Lost is closed when its connection ends, and LostErr says why.
type connectionLoser interface {
	Lost() <-chan struct{}
	LostErr() error
}

// redactPolicy is the redaction policy of what the app records: --redact
// when given, else Settings' (default unless changed there).
func (g *gui) redactPolicy(s ui.Settings) *redact.Policy {
	if g.flags.redact != nil && g.flags.redact.given {
		return g.flags.redact.p
	}
	p, err := redact.Parse(s.Redaction)
	if err != nil {
		return redact.Default() // Settings refuses a bad value; a file since removed keeps the default
	}
	return p
}

// replayEngine starts a fresh browser for Review's Replay: the Record
// screen's settings (display, waits, remote browser) with the episode's
// action set and step limit, the practice sites' host names resolving to
// this run's servers. A replay never goes through an OpenEnv server: it
// needs a fresh profile (or browser context) it controls. Headless stands
// in when Settings ask for Xvfb and it is missing.
func (g *gui) replayEngine(ctx context.Context, rec *replay.Recording) (engine.Engine, error) {
	s := rec.Settings(ui.LoadSettings(g.prefs).Settings)
	s.HAR = false // a replay's traffic is not stored
	if _, err := exec.LookPath("Xvfb"); err != nil && s.Display == engine.DisplayXvfb {
		s.Display = engine.DisplayHeadless
	}
	spec := engineSpec{Settings: s, HostRules: g.sites.HostRules(), Logf: g.debugf}
	if err := g.remoteSpec(&spec, ui.LoadSettings(g.prefs), map[string]string{"replay": rec.Episode.ID}); err != nil {
		return nil, err
	}
	return newEngine(ctx, spec)
}

// remoteSpec gives spec the remote browser of the Settings, when they name
// one: a provider of its own for this engine (closed with it), whose lease
// is renewed while the engine lives.
func (g *gui) remoteSpec(spec *engineSpec, s ui.Settings, meta map[string]string) error {
	if s.RemoteBrowser == "" || spec.Server != "" {
		return nil
	}
	p, err := parseBrowserProvider(s.RemoteBrowser)
	if err != nil {
		return fmt.Errorf("the remote browser in Settings: %w", err)
	}
	meta["client"] = "waymark desktop"
	spec.Provider, spec.OwnsProvider, spec.Metadata = p, true, meta
	spec.LeaseLost = func(err error) {
		if g.debugf != nil {
			g.debugf("%v", err)
		}
	}
	return nil
}

// showSettings opens the Settings dialog; a new database location applies
// from the next start.
func (g *gui) showSettings() {
	cur := ui.LoadSettings(g.prefs)
	cur.DBInUse = g.store.Path()
	cur.DBFromCommandLine = g.env.DBPath != dataset.DefaultPath() || os.Getenv("WAYMARK_DB") != ""
	ui.ShowSettings(g.window, cur, func(s ui.Settings) {
		old := ui.LoadSettings(g.prefs)
		s.Save(g.prefs)
		ui.ApplyAppearance(g.app, s)
		if s.DBPath != old.DBPath {
			ui.ShowInformation(g.window, "Settings saved", "The new database location is used from the next start.")
		}
	})
}
