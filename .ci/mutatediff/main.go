// Command mutatediff is mutation testing of a change: it mutates the Go
// lines added or changed since a commit (the working tree against it,
// and untracked Go files whole), in the packages they belong to, and runs
// each package's own tests against each mutant as make test runs them
// (every test each time; under the race detector where .ci/test.sh uses
// it; browser tests included). It prints the kill rate and every mutant
// that survived, as file:line and the change.
//
//	go run ./.ci/mutatediff -base REV [-pkg REGEXP] [-tests REGEXP] [-lock FILE] [-workers N]
//
// The mutants: a comparison negated (== !=, < >=, > <=) and moved by one
// (< <=, > >=); && and || swapped; a ! removed; an if or for condition
// negated; + - * / % swapped (+ -, * /, % *); ++ and --, += and -=, *=
// and /= swapped; a call, an assignment, an ++ or -- removed; a returned
// error replaced by nil; a returned bool negated. Only the lines changed
// since REV are mutated.
//
// How it stays fast: all the mutants of a package are compiled into one
// test binary (mutant schemata, through go build's -overlay: the tree is
// not touched), and WAYMARK_MUTANT=id turns one on. Each test is first
// run alone with none on, which says which mutants it reaches and how
// long it takes; a mutant is then run against only the tests that reach
// it, the fastest alone first, then the others in one process with
// -test.failfast. A mutant no test reaches counts as a survivor. A run
// that outlasts the time the same tests took with no mutant on, times
// -timeout-factor, plus 30 s, is stopped and counts as killed (timed out).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

type config struct {
	root          string
	goBin         string
	lock          string
	workers       int
	timeoutFactor float64
	verbose       bool
	tmpdir        string       // TMPDIR for the tests
	lockWait      atomic.Int64 // time spent waiting for the lock, in ns
}

func (c *config) goCmd(dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(c.goBin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	return cmd.CombinedOutput()
}

// testEnv is the environment of a test process: mutant id on (0: none),
// the trace file ("": none), the tests' temporary folder, and GOFLAGS
// with the overlay, so that a test that builds a program of this
// repository (the app's end-to-end tests build bin/waymark) builds it
// with the same mutants.
func (c *config) testEnv(overlay string, id int, trace string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "WAYMARK_MUTANT", "WAYMARK_MUTANT_TRACE", "GOFLAGS", "TMPDIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, fmt.Sprintf("WAYMARK_MUTANT=%d", id), "TMPDIR="+c.tmpdir,
		strings.TrimSpace("GOFLAGS="+os.Getenv("GOFLAGS")+" -overlay="+overlay))
	if trace != "" {
		env = append(env, "WAYMARK_MUTANT_TRACE="+trace)
	}
	return env
}

func main() {
	base := flag.String("base", "", "the commit the change is measured from (required)")
	pkgRe := flag.String("pkg", "", "only the packages whose folder (engine/gym) matches this regular expression")
	testsRe := flag.String("tests", "", "also run the tests of the packages whose folder matches this regular expression (their code is not mutated)")
	lock := flag.String("lock", "", "hold this file's lock (flock) during each test process")
	workers := flag.Int("workers", 1, "mutants run at once")
	factor := flag.Float64("timeout-factor", 3, "a mutant's run may take this many times the same tests' run with no mutant on, plus 30 s")
	dry := flag.Bool("dry-run", false, "list the mutants that compile and stop")
	verbose := flag.Bool("v", false, "say each test's time and reach")
	keep := flag.Bool("keep", false, "keep the rewritten files, overlay and test binaries (their folder is printed)")
	flag.Parse()
	if *base == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./.ci/mutatediff -base REV [-pkg REGEXP] [-tests REGEXP] [-lock FILE] [-workers N] [-dry-run] [-v] [-keep]")
		fmt.Fprintln(os.Stderr, "  (make mutate BASE=REV; every line of a package: BASE=$(git hash-object -t tree /dev/null) MUTATE=engine/gym)")
		os.Exit(2)
	}
	if err := run(*base, *pkgRe, *testsRe, *lock, *workers, *factor, *dry, *verbose, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "mutatediff:", err)
		os.Exit(1)
	}
}

func run(base, pkgRe, testsRe, lock string, workers int, factor float64, dry, verbose, keep bool) error {
	start := time.Now()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return fmt.Errorf("not in a git checkout: %v", err)
	}
	cfg := &config{root: strings.TrimSpace(string(out)), goBin: "go", lock: lock, workers: max(1, workers), timeoutFactor: factor, verbose: verbose}
	if g := os.Getenv("GO"); g != "" {
		cfg.goBin = g
	}
	var filter, also *regexp.Regexp
	if pkgRe != "" {
		if filter, err = regexp.Compile(pkgRe); err != nil {
			return fmt.Errorf("-pkg: %v", err)
		}
	}
	if testsRe != "" {
		if also, err = regexp.Compile(testsRe); err != nil {
			return fmt.Errorf("-tests: %v", err)
		}
	}
	changed, err := changedLines(cfg.root, base)
	if err != nil {
		return err
	}
	pkgs, err := listPackages(cfg)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mutatediff-")
	if err != nil {
		return err
	}
	var cleanups []func()
	cleanup := func() {
		for _, f := range cleanups {
			f()
		}
	}
	defer cleanup()
	if keep {
		fmt.Printf("Keeping the rewritten files, overlays and test binaries in %s\n", tmp)
	} else {
		cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
	}
	// Interrupted: the test processes running stop and the temporary
	// folders go.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		running.stop()
		cleanup()
		fmt.Fprintf(os.Stderr, "mutatediff: stopped by %v\n", s)
		os.Exit(130)
	}()
	// The tests' files go to memory where there is a tmpfs, as in make test.
	cfg.tmpdir = os.Getenv("WAYMARK_TEST_TMPDIR")
	if cfg.tmpdir == "" {
		cfg.tmpdir = tmp
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			if d, err := os.MkdirTemp("/dev/shm", "mutatediff-"); err == nil {
				cfg.tmpdir = d
				cleanups = append(cleanups, func() { os.RemoveAll(d) })
			}
		}
	}

	// The packages the change touched (any of their Go files, tests
	// included): their code is mutated, their tests are run.
	var touched, testers []pkgInfo
	for _, info := range pkgs {
		rel, _ := filepath.Rel(cfg.root, info.Dir)
		if filter != nil && !filter.MatchString(rel) {
			if also != nil && also.MatchString(rel) {
				testers = append(testers, info)
			}
			continue
		}
		hit := false
		for _, list := range [][]string{info.GoFiles, info.TestGoFiles, info.XTestGoFiles} {
			for _, f := range list {
				_, ok := changed[filepath.Join(info.Dir, f)]
				hit = hit || ok
			}
		}
		if hit {
			touched = append(touched, info)
		} else if also != nil && also.MatchString(rel) {
			testers = append(testers, info)
		}
	}
	if len(touched) == 0 {
		fmt.Printf("No Go file of a package changed since %s.\n", base)
		return nil
	}
	ch := &change{cfg: cfg, tmp: tmp}
	if err := ch.prepare(touched, changed); err != nil {
		return err
	}
	compiled := 0
	for _, m := range ch.muts {
		if m.Status == "" {
			compiled++
		}
	}
	fmt.Printf("=== mutatediff: the lines changed since %s: %d mutants in %s, %d compile (%s)\n",
		base, len(ch.muts), strings.Join(ch.rels, " "), compiled, secs(time.Since(start)))
	if dry {
		for _, m := range ch.muts {
			st := ""
			if m.Status != "" {
				st = " (" + m.Status + ")"
			}
			fmt.Printf("  %s:%d %s%s\n", m.File, m.Line, m.Desc, st)
		}
		return nil
	}
	if compiled == 0 {
		report(os.Stdout, base, ch, nil, time.Since(start), 0)
		return nil
	}
	var tps []*testPkg
	var tests []*testInfo
	for _, info := range append(touched, testers...) {
		rel, _ := filepath.Rel(cfg.root, info.Dir)
		if len(info.TestGoFiles)+len(info.XTestGoFiles) == 0 {
			continue
		}
		dir := filepath.Join(tmp, "test_"+strings.ReplaceAll(rel, "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		tp := &testPkg{cfg: cfg, info: info, rel: rel, tmp: dir, bins: map[bool]string{}}
		tps = append(tps, tp)
		pstart := time.Now()
		if tp.err = tp.listTests(ch.overlay); tp.err != nil {
			fmt.Printf("=== %s: its tests cannot be run: %v\n", rel, tp.err)
			continue
		}
		fmt.Printf("=== %s: %d tests, each run alone with no mutant on (built in %s)\n", rel, len(tp.tests), secs(time.Since(pstart)))
		tp.baseline(ch.overlay)
		tp.took = time.Since(pstart)
		fmt.Printf("    done in %s\n", secs(tp.took))
		tests = append(tests, tp.tests...)
	}
	fmt.Printf("=== the mutants, each against the tests that reach it\n")
	ch.runMutants(tests)
	report(os.Stdout, base, ch, tps, time.Since(start), time.Duration(cfg.lockWait.Load()))
	return nil
}

// listPackages is every package of the module (go list ./...).
func listPackages(cfg *config) ([]pkgInfo, error) {
	cmd := exec.Command(cfg.goBin, "list", "-json=ImportPath,Dir,Name,GoFiles,TestGoFiles,XTestGoFiles", "./...")
	cmd.Dir = cfg.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// report prints the figures per package and every survivor.
func report(w io.Writer, base string, ch *change, tps []*testPkg, took, lockWait time.Duration) {
	fmt.Fprintf(w, "\n=== mutation of the lines changed since %s: kill rate = killed / (killed + survived + not reached); timed out counts as killed\n", base)
	fmt.Fprintf(w, "%-22s %7s %7s %9s %8s %11s %12s %9s\n", "package", "mutants", "killed", "timed out", "survived", "not reached", "not compiled", "kill rate")
	byPkg := map[string][]*mutant{}
	for _, m := range ch.muts {
		byPkg[m.Pkg] = append(byPkg[m.Pkg], m)
	}
	for _, rel := range ch.rels {
		line(w, rel, byPkg[rel])
	}
	line(w, "total", ch.muts)
	for _, tp := range tps {
		if tp.err != nil {
			fmt.Fprintf(w, "%s's tests were not run: %v\n", tp.rel, tp.err)
		}
	}
	fmt.Fprintf(w, "took %s", took.Round(time.Second))
	if lockWait > 0 {
		fmt.Fprintf(w, ", of which %s waiting for the lock", lockWait.Round(time.Second))
	}
	fmt.Fprintln(w)
	var surv []*mutant
	for _, m := range ch.muts {
		if m.Status == statusSurvived || m.Status == statusNotReached {
			surv = append(surv, m)
		}
	}
	sort.SliceStable(surv, func(i, j int) bool {
		if surv[i].File != surv[j].File {
			return surv[i].File < surv[j].File
		}
		return surv[i].Line < surv[j].Line
	})
	if len(surv) == 0 {
		fmt.Fprintln(w, "\nNo survivor.")
		return
	}
	fmt.Fprintf(w, "\n=== %d survivors (file:line: the mutation — the tests that reach it, all of which passed)\n", len(surv))
	for _, m := range surv {
		why := "no test reaches it"
		if m.Status == statusSurvived {
			why = strings.Join(m.Reached[:min(4, len(m.Reached))], ", ")
			if len(m.Reached) > 4 {
				why += fmt.Sprintf(" and %d more", len(m.Reached)-4)
			}
		}
		fmt.Fprintf(w, "%s:%d: %s — %s\n", m.File, m.Line, m.Desc, why)
	}
}

func line(w io.Writer, name string, ms []*mutant) {
	n := map[string]int{}
	for _, m := range ms {
		n[m.Status]++
	}
	k, to, s, nr := n[statusKilled], n[statusTimedOut], n[statusSurvived], n[statusNotReached]
	rate := "-"
	if d := k + to + s + nr; d > 0 {
		rate = fmt.Sprintf("%.1f %%", 100*float64(k+to)/float64(d))
	}
	fmt.Fprintf(w, "%-22s %7d %7d %9d %8d %11d %12d %9s\n", name, len(ms), k+to, to, s, nr, n[statusNotCompiled], rate)
}
