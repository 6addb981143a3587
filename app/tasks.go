package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"waymark/assets/practice"
	"waymark/dataset"
)

func init() {
	register("tasks", "tasks import FILE | tasks list | tasks check (ID | --all)", "import tasks from JSONL, JSON, CSV, Parquet or a BrowserGym-style manifest; list the tasks; check manifest tasks' graders", runTasks)
}

const tasksUsage = `waymark tasks import FILE [--map goal=COL,url=COL,category=COL] [--source NAME] [--default-category C] [--dry-run]
       waymark tasks list [--category C] [--source S] [--todo] [--archived] [--search TEXT] [--limit N]
       ` + tasksCheckUsage

func runTasks(env *Env, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, tasksUsage)
	}
	switch args[0] {
	case "import":
		return runTasksImport(env, args[1:])
	case "list", "ls":
		return runTasksList(env, args[1:])
	case "check":
		return runTasksCheck(env, args[1:])
	case "example-manifest":
		_, err := env.Stdout.Write(practice.Manifest)
		return err
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stdout, "Usage: "+tasksUsage)
		return nil
	}
	return fmt.Errorf("%w: unknown 'tasks' command %q; use:\n  %s", errUsage, args[0], tasksUsage)
}

// parseMap reads --map values: "goal=question,url=site" (repeatable).
func parseMap(values []string) (map[string]string, error) {
	m := map[string]string{}
	for _, v := range values {
		for _, pair := range strings.Split(v, ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			field, col, ok := strings.Cut(pair, "=")
			if !ok || strings.TrimSpace(field) == "" || strings.TrimSpace(col) == "" {
				return nil, fmt.Errorf("%w: --map %q: write FIELD=COLUMN, e.g. --map goal=question,url=website (fields: %s)",
					errUsage, pair, strings.Join(dataset.ImportFields, ", "))
			}
			m[strings.TrimSpace(field)] = strings.TrimSpace(col)
		}
	}
	return m, nil
}

func runTasksImport(env *Env, args []string) error {
	fs := newFlags(env, "tasks import")
	var maps multiFlag
	fs.Var(&maps, "map", "column for a field: goal=COL,url=COL,category=COL (also answer, url_pattern, check_js, id)")
	source := fs.String("source", "", "source name stored with the tasks (default: the file name)")
	defCat := fs.String("default-category", "", "category for rows with an empty one: information, navigation or interaction")
	dry := fs.Bool("dry-run", false, "show what would be imported, store nothing")
	format := fs.String("format", "", "force the format: jsonl, json, csv, tsv or parquet (default: from the name and content)")
	baseURL := fs.String("base-url", "", "a BrowserGym-style manifest's pages are served here: its relative setupUrl values are resolved against it")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "Usage: waymark tasks import FILE [options]\n\nColumns are found by name:")
		for _, f := range dataset.ImportFields {
			fmt.Fprintf(env.Stderr, "  %-12s ← %s\n", f, strings.Join(dataset.ColumnAliases[f], ", "))
		}
		fmt.Fprintln(env.Stderr, "\nOptions:")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: give one file: waymark tasks import FILE [--map goal=COL,...]", errUsage)
	}
	m, err := parseMap(maps)
	if err != nil {
		return err
	}
	opts := dataset.ImportOptions{Map: m, Source: *source, DefaultCategory: *defCat, Format: *format, BaseURL: *baseURL}
	s, err := env.OpenStore()
	if err != nil {
		return err
	}
	defer s.Close()
	var rep dataset.ImportReport
	if *dry {
		rep, err = s.PreviewFile(context.Background(), pos[0], opts)
	} else {
		rep, err = s.ImportFile(context.Background(), pos[0], opts)
	}
	if err != nil {
		return err
	}
	writeImportReport(env.Stdout, rep)
	if rep.Imported == 0 && len(rep.Skipped) > 0 {
		return errors.New("no task could be imported: see the reasons above")
	}
	return nil
}

func writeImportReport(w io.Writer, rep dataset.ImportReport) {
	fmt.Fprintf(w, "%s (format %s, source %q)\n", strings.ToUpper(rep.Summary()[:1])+rep.Summary()[1:], rep.Format, rep.Source)
	fmt.Fprintln(w, "Columns:")
	for _, f := range dataset.ImportFields {
		// Every column a row was read through: rows of one file may name
		// a field differently (instruction in one, task in the next).
		if cols := rep.Used[f]; len(cols) > 0 {
			fmt.Fprintf(w, "  %-12s ← %s\n", f, strings.Join(cols, ", "))
		} else if c := rep.Mapping[f]; c != "" {
			fmt.Fprintf(w, "  %-12s ← %s\n", f, c)
		}
	}
	unused := rep.Unused()
	switch {
	case len(unused) > 0 && rep.Format == "manifest":
		fmt.Fprintf(w, "  (kept in each task's manifest: %s)\n", strings.Join(unused, ", "))
	case len(unused) > 0:
		fmt.Fprintf(w, "  (not used: %s)\n", strings.Join(unused, ", "))
	}
	if rep.Imported > 0 {
		fmt.Fprintf(w, "By category: information %d, navigation %d, interaction %d\n",
			rep.ByCategory[dataset.Information], rep.ByCategory[dataset.Navigation], rep.ByCategory[dataset.Interaction])
	}
	list := func(title string, issues []dataset.RowIssue, max int) {
		if len(issues) == 0 {
			return
		}
		fmt.Fprintf(w, "%s (%d):\n", title, len(issues))
		for i, is := range issues {
			if i == max {
				fmt.Fprintf(w, "  … and %d more\n", len(issues)-max)
				break
			}
			fmt.Fprintf(w, "  %s\n", is)
		}
	}
	writeManifestTasks(w, rep)
	list("Skipped rows", rep.Skipped, 50)
	list("Duplicates (not imported again)", rep.Duplicates, 20)
}

func runTasksList(env *Env, args []string) error {
	fs := newFlags(env, "tasks list")
	cat := fs.String("category", "", "only this category: information, navigation or interaction")
	source := fs.String("source", "", "only tasks of this source (builtin, a file name, adhoc)")
	todo := fs.Bool("todo", false, "only tasks not yet demonstrated by a person")
	archived := fs.Bool("archived", false, "list archived tasks instead")
	search := fs.String("search", "", "only tasks whose goal, URL or source contains this text")
	limit := fs.Int("limit", 0, "at most this many tasks (0: all)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: waymark tasks list takes no arguments (got %q)", errUsage, pos)
	}
	f := dataset.TaskFilter{Source: *source, NotDemonstrated: *todo, Archived: *archived, Search: *search, Limit: *limit}
	if *cat != "" {
		c, ok := dataset.NormalizeCategory(*cat)
		if !ok {
			return fmt.Errorf("%w: --category %q: use information, navigation or interaction", errUsage, *cat)
		}
		f.Category = c
	}
	s, err := env.OpenStore()
	if err != nil {
		return err
	}
	defer s.Close()
	items, err := s.ListTasks(context.Background(), f)
	if err != nil {
		return err
	}
	counts, err := s.CountTasks(context.Background(), f)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		fmt.Fprintln(env.Stdout, "No tasks match. Import some with: waymark tasks import FILE")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CATEGORY\tDEMOS\tSOURCE\tGOAL\tSTART URL\tID")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", it.Category, it.Demonstrations, clip(it.Source, 20), clip(it.Goal, 60), clip(it.StartURL, 40), it.ID)
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "\n%d tasks (information %d, navigation %d, interaction %d); not yet demonstrated: %d\n",
		counts.Total, counts.ByCategory[dataset.Information], counts.ByCategory[dataset.Navigation], counts.ByCategory[dataset.Interaction], counts.NotDemonstrated)
	if len(items) < counts.Total {
		fmt.Fprintf(env.Stdout, "(showing %d; use --limit 0 for all)\n", len(items))
	}
	return nil
}

// clip shortens s to n characters with an ellipsis, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
