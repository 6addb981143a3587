package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"waymark/assets"
	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/chromium"
	"waymark/ui"
	"waymark/ui/record"
)

// AppID is the Fyne application id (preferences live under it).
const AppID = "io.waymark.app"

func init() {
	register("gui", "gui [--start-task TASK | --explore URL] [--watch SERVE_URL] [--debug] [--har=false] [--no-redact]", "open the desktop app (the default)", runGUI)
}

type guiFlags struct {
	startTask string
	// explore is a start URL to explore at once (--explore): an episode
	// without a goal, to cut tasks out of once it ended.
	explore  string
	goal     string
	category string
	debug    bool
	// har captures each recorded episode's network traffic (--har, on by
	// default); noRedact keeps its secrets (--no-redact).
	har, noRedact bool
	// redact is --redact: the redaction policy of what the app stores.
	redact *redactFlag
	// watch is a serve URL the Sessions tab connects to at start, watching
	// its first live session (--watch).
	watch string
}

func runGUI(env *Env, args []string) error {
	fs := newFlags(env, "gui")
	var f guiFlags
	fs.StringVar(&f.startTask, "start-task", "", "start recording at once: a task id, a practice task key, or a start URL (an ad-hoc task)")
	fs.StringVar(&f.explore, "explore", "", "start exploring this URL at once: recorded without a goal; cut tasks out of it once it ended (Cut a task… under the timeline)")
	fs.StringVar(&f.goal, "goal", "", "goal of the ad-hoc task made by --start-task URL")
	fs.StringVar(&f.category, "category", dataset.Navigation, "category of the ad-hoc task made by --start-task URL")
	fs.StringVar(&f.watch, "watch", "", "open the Sessions tab on this waymark serve URL and watch its first live session")
	fs.BoolVar(&f.debug, "debug", os.Getenv("WAYMARK_DEBUG") != "", "log timings (click→timeline, frames/s) to standard error; also WAYMARK_DEBUG=1")
	fs.BoolVar(&f.har, "har", true, "capture each recorded episode's network traffic as HAR (waymark har EPISODE writes it); --har=false to turn it off")
	f.redact = addRedactFlag(fs)
	fs.BoolVar(&f.noRedact, "no-redact", false, "keep secrets in the captured HAR (Authorization, cookies, password fields), which are redacted by default; "+
		EnvHARRedactHeaders+" and "+EnvHARRedactKeys+" (comma-separated) add header names and field names to redact")
	if pos, err := parseArgs(fs, args); err != nil || len(pos) > 0 {
		return cmp.Or(err, noArgs(pos))
	}
	return RunGUI(env, f)
}

// debugLogger writes timestamped debug lines.
func debugLogger(w io.Writer, on bool) func(string, ...any) {
	if !on {
		return nil
	}
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "debug %s %s\n", time.Now().UTC().Format("15:04:05.000"), fmt.Sprintf(format, args...))
	}
}

// RunGUI opens the main window and returns when it is closed. The store,
// the practice sites and any browser are closed before it returns. It
// builds the window (buildGUI) and then runs its lifecycle (gui.run).
func RunGUI(env *Env, f guiFlags) error {
	if err := checkDisplay(runtime.GOOS, os.Getenv); err != nil {
		return err
	}
	defer startProfiles(f.debug)()
	ui.QuietFyneLog(env.Stderr) // no "Getting favorite locations" at every file dialog
	a := fyneapp.NewWithID(AppID)
	// Before any dialog can list the database's folder: see GuardStoreFiles.
	ui.GuardStoreFiles()
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	settings := ui.LoadSettings(a.Preferences())
	ui.ApplyAppearance(a, settings) // the system's light/dark unless Settings choose; the zoom

	dbPath := env.DBPath
	if dbPath == dataset.DefaultPath() && os.Getenv("WAYMARK_DB") == "" && settings.DBPath != "" {
		dbPath = settings.DBPath
	}
	store, err := dataset.Open(dbPath)
	if err != nil {
		err = fmt.Errorf("cannot open the database: %w", err)
		showFatal(a, err)
		return err
	}
	defer store.Close()
	if d := store.Damaged(); d != "" {
		// The app records: it does not run on a store it cannot write.
		err = fmt.Errorf("cannot record into the database: %s (waymark --db %s export … reads it)", d, dbPath)
		showFatal(a, err)
		return err
	}
	srv, err := practice.Start()
	if err != nil {
		showFatal(a, err)
		return err
	}
	defer srv.Close()
	if err := ensurePracticeTasks(store); err != nil {
		fmt.Fprintf(env.Stderr, "waymark: the practice tasks could not be loaded: %v\n", err)
	}
	// When Fyne's loop does not end, the close watch ends the program
	// without returning here (closeWatch): it closes what the defers would.
	// Both Close methods may be called twice.
	buildGUI(env, f, a, store, srv).run(func() {
		srv.Close()
		store.Close()
		chromium.CloseSharedPool()
		os.Exit(0)
	})
	return nil
}

// startProfiles starts the CPU profile (WAYMARK_CPUPROFILE) and the heap
// profile on SIGUSR1 (WAYMARK_HEAPPROFILE) in debug mode; the returned
// function stops the CPU profile.
func startProfiles(debug bool) (stop func()) {
	stop = func() {}
	if !debug {
		return stop
	}
	if path := os.Getenv("WAYMARK_CPUPROFILE"); path != "" {
		if pf, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(pf) == nil {
				stop = func() { pprof.StopCPUProfile(); pf.Close() }
			}
		}
	}
	if path := os.Getenv("WAYMARK_HEAPPROFILE"); path != "" {
		// SIGUSR1 writes a heap profile (after a GC) for memory questions.
		usr := make(chan os.Signal, 1)
		signal.Notify(usr, syscall.SIGUSR1)
		go func() {
			for range usr {
				runtime.GC()
				if hf, err := os.Create(path); err == nil {
					_ = pprof.WriteHeapProfile(hf)
					hf.Close()
				}
			}
		}()
	}
	return stop
}

// closeGrace is how long Fyne's loop gets to end once the window closes
// (and again once the screens are closed) before the close watch ends the
// program without it.
const closeGrace = 5 * time.Second

// run shows the window and returns when it has closed: the close button,
// SIGINT/SIGTERM and the end of Fyne's loop all go through shutdown once.
// When Fyne's loop does not end after a close, exit ends the program
// (closeWatch).
func (g *gui) run(exit func()) {
	w := g.window
	g.watch = newCloseWatch(closeGrace, g.shutdown, exit, g.env.Stderr)
	w.SetCloseIntercept(func() {
		g.rec.ConfirmClose(func() {
			g.shutdown()
			w.Close()
		})
	})
	g.app.Lifecycle().SetOnStopped(g.shutdown)
	// SIGINT/SIGTERM close the window the same way: the episode is saved
	// and the browser stopped before the program ends.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			g.watch.closing()
			g.ctx.UI().Do(func() {
				g.shutdown()
				w.Close()
			})
		}
	}()
	g.app.Lifecycle().SetOnStarted(g.started)
	w.Resize(ui.DefaultWindowSize)
	w.SetMaster()
	w.ShowAndRun()
	g.watch.loopEnded()
	g.shutdown()
}

// started runs once the window is on screen: it fits the window to the
// screen, asks a first-time user's name, and starts --start-task.
func (g *gui) started() {
	// Larger on a screen with room: the live view and the Review
	// player at 800×600 (the screen is known only once the window is).
	if msg := ui.FitWindow(g.window, workArea); g.debugf != nil {
		g.debugf("%s", msg)
	}
	// The local browser starts while the annotator reads the first task,
	// so the first Start costs a navigation.
	if s := ui.LoadSettings(g.prefs); s.Server == "" && s.RemoteBrowser == "" {
		go func() {
			err := browser.Prewarm(browser.Options{Settings: s.Settings, HostRules: g.sites.HostRules(), Logf: g.debugf})
			if err != nil && g.debugf != nil {
				g.debugf("the browser could not be started ahead (Start will say why): %v", err)
			}
		}()
	}
	if ui.LoadSettings(g.prefs).Annotator == "" {
		ui.AskAnnotator(g.window, func(name string) {
			s := ui.LoadSettings(g.prefs)
			s.Annotator = name
			s.Save(g.prefs)
			startRequested(g.rec, g.store, g.flags, g.window, g.debugf)
			g.rec.OfferResume()
		})
		return
	}
	startRequested(g.rec, g.store, g.flags, g.window, g.debugf)
	g.rec.OfferResume() // this annotator's interrupted episodes, unless an episode started
	if g.flags.watch != "" {
		g.main.Select(g.sess.Title())
		g.sess.WatchFirst(g.flags.watch)
	}
}

// shutdown stops the hand-offs to the UI thread, then closes every screen
// (the episode is saved and the browser stopped). It runs once.
func (g *gui) shutdown() {
	g.once.Do(func() {
		if g.watch != nil { // nil before run
			g.watch.closing()
		}
		// Hand-offs stop first: Fyne also quits on SIGTERM by itself, and
		// once its loop has ended fyne.Do runs callbacks inline on the
		// caller's goroutine, where touching the gone window panics.
		g.ctx.UI().Close()
		g.main.Close()
		g.agents.stop()
	})
}

// showFatal shows why the app cannot open (people who start it from a menu
// see no terminal) and waits for the window to be closed.
func showFatal(a fyne.App, err error) {
	w := a.NewWindow("Waymark cannot start")
	msg := widget.NewLabel(err.Error())
	msg.Wrapping = fyne.TextWrapWord
	quit := &widget.Button{Text: "Quit", Importance: widget.HighImportance, OnTapped: w.Close}
	w.SetContent(container.NewBorder(
		widget.NewLabelWithStyle("Waymark cannot start", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(layout.NewSpacer(), quit), nil, nil, msg))
	w.Resize(fyne.NewSize(560, 220))
	w.ShowAndRun()
}

// startRequested starts the --start-task task or the --explore
// exploration, if any.
func startRequested(rec *record.Tab, store *dataset.Store, f guiFlags, w fyne.Window, debugf func(string, ...any)) {
	if f.explore != "" {
		if debugf != nil {
			debugf("exploring %s", f.explore)
		}
		rec.Explore(f.explore)
		return
	}
	if f.startTask == "" {
		return
	}
	t, err := resolveTask(store, f)
	if err != nil {
		ui.ShowError(err, w)
		return
	}
	if debugf != nil {
		debugf("starting task %s %q", t.ID, t.Goal)
	}
	rec.StartTask(t)
}

// resolveTask finds --start-task: a task id, a practice key, or a URL that
// becomes an ad-hoc task.
func resolveTask(store *dataset.Store, f guiFlags) (dataset.Task, error) {
	v := strings.TrimSpace(f.startTask)
	if t, err := store.GetTask(context.Background(), v); err == nil {
		return t, nil
	}
	if p, ok := practiceTask(v); ok {
		return storePracticeTask(store, p)
	}
	if action.CheckURL(v) == nil {
		goal := f.goal
		if goal == "" {
			goal = "Browse " + v
		}
		return store.EnsureTask(context.Background(), dataset.Task{Goal: goal, Category: f.category, StartURL: v, Source: dataset.SourceAdhoc})
	}
	return dataset.Task{}, fmt.Errorf("--start-task %q is not a task id, a practice task key or an http(s) URL", v)
}

// errNoDisplay is returned where the desktop app has no screen to open on
// (GLFW would panic).
var errNoDisplay = errors.New("the desktop app needs a graphical session, and neither DISPLAY nor WAYLAND_DISPLAY is set; " +
	"run it from a desktop (or over ssh -X, or under xvfb-run -a), or use the commands that need no window: " +
	"play, serve, tasks, review stats, export ('waymark help')")

// checkDisplay refuses to start the window on Linux/BSD without a display.
func checkDisplay(goos string, getenv func(string) string) error {
	switch goos {
	case "linux", "freebsd", "openbsd", "netbsd":
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return errNoDisplay
		}
	}
	return nil
}
