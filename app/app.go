// Package app wires Waymark together: subcommands and flags, building the
// engine, the store and the window. It stays thin; the work is done by
// engine, dataset and ui.
package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"early.waymark/locale"

	"waymark/dataset"
	"waymark/engine/chromium"
)

// Env is what every subcommand gets.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// DBPath is the store chosen by --db, WAYMARK_DB or the default.
	DBPath string
	// DBNamed: the user named the store (--db or WAYMARK_DB), rather
	// than the default being taken.
	DBNamed bool
}

// OpenStore opens the store chosen by --db / WAYMARK_DB / the default, and
// gives it the practice pack's tasks it has not had yet, so every command
// (not only the desktop app) sees them on a new store.
func (e *Env) OpenStore() (*dataset.Store, error) {
	st, err := dataset.Open(e.DBPath)
	if err != nil {
		return nil, err
	}
	if d := st.Damaged(); d != "" {
		fmt.Fprintf(e.Stderr, "waymark: warning: %s\n", d)
		return st, nil
	}
	if err := ensurePracticeTasks(st); err != nil {
		fmt.Fprintf(e.Stderr, "waymark: could not add the practice tasks: %v\n", err)
	}
	return st, nil
}

// OpenExistingStore is OpenStore for the commands that only read (replay,
// export, review stats): a path with no database is an error that says what
// to do, not a new empty database made by a typo.
func (e *Env) OpenExistingStore() (*dataset.Store, error) {
	if _, err := os.Stat(e.DBPath); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no Waymark database at %s: give the right file with --db (or WAYMARK_DB), or record an episode first", e.DBPath)
	}
	return e.OpenStore()
}

type command struct {
	name, usage, summary string
	run                  func(env *Env, args []string) error
}

var commands = map[string]command{}

// register adds a subcommand; each lives in its own file.
func register(name, usage, summary string, run func(env *Env, args []string) error) {
	commands[name] = command{name: name, usage: usage, summary: summary, run: run}
}

// errUsage marks an error whose message is a usage hint (exit code 2).
var errUsage = errors.New("usage")

// Main runs Waymark with the given arguments (without the program name) and
// returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	global := flag.NewFlagSet("waymark", flag.ContinueOnError)
	global.SetOutput(stderr)
	db := global.String("db", "", "database file (default $WAYMARK_DB or "+dataset.DefaultPath()+")")
	global.Usage = func() { usage(stderr) }
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	env.DBPath = *db
	env.DBNamed = *db != "" || os.Getenv("WAYMARK_DB") != ""
	if env.DBPath == "" {
		env.DBPath = dataset.DefaultPath()
	}
	rest := global.Args()
	name := "gui"
	if len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "waymark: unknown command %q; 'waymark help' lists the commands\n", name)
		return 2
	}
	if err := cmd.run(env, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "waymark %s: %v\n", name, dataset.ExplainDamage(env.DBPath, err))
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Waymark records human demonstrations of browser tasks and labels them into datasets.")
	fmt.Fprintln(w, "\nUsage: waymark [--db FILE] [command] [options]   (--db may also come after the command)")
	fmt.Fprintln(w, "\nWith no command, the desktop app opens. Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "\n  waymark %s\n      %s\n", c.usage, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'waymark COMMAND -h' for a command's options.")
}

// newFlags makes a flag set for a subcommand that prints to env.Stderr.
// It takes the global options too (--db), so they may come after the
// command's name as well as before it.
func newFlags(env *Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("waymark "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Func("db", "database file (default: the --db given before the command, $WAYMARK_DB or "+dataset.DefaultPath()+")", func(v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("give a database file, e.g. --db ~/waymark.db")
		}
		env.DBPath, env.DBNamed = v, true
		return nil
	})
	return fs
}

// parseArgs parses a command's arguments: its options (and the global
// ones, --db) may come before, between or after its positional arguments
// (files, an episode), which it returns in order. After "--" every
// argument is positional. The flag package alone stops at the first
// positional argument and takes the options after it for more positional
// ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if used := len(args) - fs.NArg(); used > 0 && args[used-1] == "--" {
			return append(pos, fs.Args()...), nil
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// noArgs is the error for positional arguments given to a command that
// takes none.
func noArgs(pos []string) error {
	if len(pos) == 0 {
		return nil
	}
	return fmt.Errorf("%w: unexpected arguments %q (options come as --name value)", errUsage, pos)
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Exit is what main calls. The locale variable the early locale package
// changed for the GUI toolkit's start is put back first, so the browser and
// the X server get the user's environment.
func Exit() {
	locale.Restore()
	code := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	chromium.CloseSharedPool() // the warm Chromiums and their Xvfbs
	os.Exit(code)
}
