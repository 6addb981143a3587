package app

import (
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
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
	"github.com/gen2brain/beeep"

	"waymark/assets"
	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
	"waymark/ui"
	"waymark/ui/exporttab"
	"waymark/ui/record"
	"waymark/ui/review"
	"waymark/ui/tasks"
)

// AppID is the Fyne application id (preferences live under it).
const AppID = "io.waymark.app"

func init() {
	register("gui", "gui [--start-task TASK] [--debug]", "open the desktop app (the default)", runGUI)
}

type guiFlags struct {
	startTask string
	goal      string
	category  string
	debug     bool
}

func runGUI(env *Env, args []string) error {
	fs := newFlags(env, "gui")
	var f guiFlags
	fs.StringVar(&f.startTask, "start-task", "", "start recording at once: a task id, a practice task key, or a start URL (an ad-hoc task)")
	fs.StringVar(&f.goal, "goal", "", "goal of the ad-hoc task made by --start-task URL")
	fs.StringVar(&f.category, "category", dataset.Navigation, "category of the ad-hoc task made by --start-task URL")
	fs.BoolVar(&f.debug, "debug", os.Getenv("WAYMARK_DEBUG") != "", "log timings (click→timeline, frames/s) to standard error; also WAYMARK_DEBUG=1")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
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
// the practice sites and any browser are closed before it returns.
func RunGUI(env *Env, f guiFlags) error {
	if err := checkDisplay(runtime.GOOS, os.Getenv); err != nil {
		return err
	}
	if path := os.Getenv("WAYMARK_CPUPROFILE"); path != "" && f.debug {
		if pf, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(pf) == nil {
				defer func() { pprof.StopCPUProfile(); pf.Close() }()
			}
		}
	}
	if path := os.Getenv("WAYMARK_HEAPPROFILE"); path != "" && f.debug {
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
	a := fyneapp.NewWithID(AppID)
	// Before any dialog can list the database's folder: see GuardStoreFiles.
	ui.GuardStoreFiles()
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
	prefs := a.Preferences()
	settings := ui.LoadSettings(prefs)
	debugf := debugLogger(env.Stderr, f.debug)

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
	srv, err := practice.Start()
	if err != nil {
		showFatal(a, err)
		return err
	}
	defer srv.Close()
	if err := ensurePracticeTasks(store); err != nil {
		fmt.Fprintf(env.Stderr, "waymark: the practice tasks could not be loaded: %v\n", err)
	}

	w := a.NewWindow("Waymark")
	var focused atomic.Bool
	focused.Store(true)
	a.Lifecycle().SetOnEnteredForeground(func() { focused.Store(true) })
	a.Lifecycle().SetOnExitedForeground(func() { focused.Store(false) })
	bridge := &ui.Bridge{}
	ctx := &ui.Context{
		Bridge: bridge,
		App:    a,
		Window: w,
		Store:  store,
		User:   func() string { return ui.LoadSettings(prefs).Annotator },
		Notify: func(title, body string) {
			if focused.Load() {
				return
			}
			go func() { _ = beeep.Notify(title, body, assets.Icon) }() // best effort: no D-Bus, no notification
		},
	}
	var mw *ui.MainWindow
	showSettings := func() {
		cur := ui.LoadSettings(prefs)
		cur.DBInUse = store.Path()
		cur.DBFromCommandLine = env.DBPath != dataset.DefaultPath() || os.Getenv("WAYMARK_DB") != ""
		ui.ShowSettings(w, cur, func(s ui.Settings) {
			old := ui.LoadSettings(prefs)
			s.Save(prefs)
			if s.DBPath != old.DBPath {
				dialog.ShowInformation("Settings saved", "The new database location is used from the next start.", w)
			}
		})
	}
	open := func(ctx context.Context, t dataset.Task, s ui.Settings) (*record.Opened, error) {
		eng, err := newEngine(ctx, engineSpec{
			Settings: s.Settings,
			Server:   s.Server,
			// A person waits at Start: a server that is not there must be
			// said within seconds, not after the 30 s an agent may wait.
			HealthTimeout: 4 * time.Second,
			ResetExtra:    openenv.FactsMetadata(openenv.EpisodeFacts{Goal: t.Goal, Category: t.Category, TaskKey: t.SourceID, Annotator: s.Annotator}),
			HostRules:     srv.HostRules(),
		})
		if err != nil {
			if s.Server != "" {
				return nil, fmt.Errorf("%w (check the address in Settings, or clear it to use the local browser)", err)
			}
			return nil, err
		}
		rec := dataset.NewRecorder(store, eng, dataset.RecorderOptions{TaskID: t.ID, Annotator: s.Annotator})
		o := &record.Opened{Engine: rec}
		if c, ok := eng.(*openenv.Client); ok {
			o.Lost, o.LostErr = c.Lost(), c.LostErr
		}
		if _, live := eng.(engine.LiveFrames); live {
			o.Frames = rec.Frames()
		}
		return o, nil
	}
	rec := record.New(ctx, record.Options{
		Open: open,
		UseLocalBrowser: func() {
			s := ui.LoadSettings(prefs)
			s.Server = ""
			s.Save(prefs)
		},
		Settings:     func() ui.Settings { return ui.LoadSettings(prefs) },
		ShowSettings: showSettings,
		Debugf:       debugf,
	})
	tasksTab := tasks.New(ctx, func(t dataset.Task) {
		mw.Select(rec.Title())
		rec.StartTask(t)
	})
	mw = ui.NewMainWindow(ctx, rec, review.New(ctx), tasksTab, exporttab.New(ctx))
	if debugf != nil {
		for _, it := range mw.Tabs.Items {
			debugf("tab %s min size %v", it.Text, it.Content.MinSize())
		}
	}

	// A task file dropped on the window opens the import preview.
	w.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		for _, u := range uris {
			if u.Scheme() == "file" {
				mw.Select(tasksTab.Title())
				tasksTab.ImportFile(u.Path())
				return
			}
		}
	})
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			// Hand-offs stop first: Fyne also quits on SIGTERM by itself, and
			// once its loop has ended fyne.Do runs callbacks inline on the
			// caller's goroutine, where touching the gone window panics.
			bridge.Close()
			mw.Close() // saves the episode and stops the browser
		})
	}
	w.SetCloseIntercept(func() {
		rec.ConfirmClose(func() {
			shutdown()
			w.Close()
		})
	})
	a.Lifecycle().SetOnStopped(shutdown)
	// SIGINT/SIGTERM close the window the same way: the episode is saved
	// and the browser stopped before the program ends.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			bridge.Do(func() {
				shutdown()
				w.Close()
			})
		}
	}()
	a.Lifecycle().SetOnStarted(func() {
		// Larger on a screen with room: the live view and the Review
		// player at 800×600 (the screen is known only once the window is).
		if msg := ui.FitWindow(w); debugf != nil {
			debugf("%s", msg)
		}
		if settings.Annotator == "" {
			ui.AskAnnotator(w, func(name string) {
				s := ui.LoadSettings(prefs)
				s.Annotator = name
				s.Save(prefs)
				startRequested(rec, store, f, w, debugf)
			})
			return
		}
		startRequested(rec, store, f, w, debugf)
	})
	w.Resize(ui.DefaultWindowSize)
	w.SetMaster()
	w.ShowAndRun()
	shutdown()
	return nil
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

// startRequested starts the --start-task task, if any.
func startRequested(rec *record.Tab, store *dataset.Store, f guiFlags, w fyne.Window, debugf func(string, ...any)) {
	if f.startTask == "" {
		return
	}
	t, err := resolveTask(store, f)
	if err != nil {
		dialog.ShowError(err, w)
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
	if t, err := store.GetTask(v); err == nil {
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
		return store.EnsureTask(dataset.Task{Goal: goal, Category: f.category, StartURL: v, Source: dataset.SourceAdhoc})
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
