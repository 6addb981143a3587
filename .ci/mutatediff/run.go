package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pkgInfo is what `go list -json` says of a package.
type pkgInfo struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

// raceFor says whether make test runs a test of the package (its
// folder relative to the repository root) under the race detector. It
// mirrors .ci/test.sh, which must be kept in step: engine and dataset
// packages under it but dataset/replay and dataset/hfexport; the
// staleness corpus without it; ui packages under it but the Review tab's
// (whose race re-run repeats tests already run); the rest without it.
func raceFor(rel, test string) bool {
	under := func(p string) bool { return rel == p || strings.HasPrefix(rel, p+"/") }
	switch {
	case rel == "engine/browser":
		return test != "TestStaleCorpus"
	case rel == "dataset/replay", rel == "dataset/hfexport":
		return false
	case under("engine"), under("dataset"):
		return true
	case under("ui/review"):
		return false
	case under("ui"):
		return true
	}
	return false
}

// change is the mutants of a change: every mutated file of every package
// it touched, compiled in through one overlay, so that each test binary
// of those packages carries all of them.
type change struct {
	cfg     *config
	files   []*fileMut
	muts    []*mutant
	hooks   map[string]string // folder → package name, for each mutated package
	rels    []string          // the mutated packages' folders
	tmp     string
	overlay string
}

// prepare finds the mutants of the changed lines of pkgs and writes the
// overlay that compiles them in, dropping the mutants that do not
// compile.
func (c *change) prepare(pkgs []pkgInfo, changed map[string]lineSet) error {
	next := 0
	c.hooks = map[string]string{}
	for _, info := range pkgs {
		rel, _ := filepath.Rel(c.cfg.root, info.Dir)
		for _, name := range info.GoFiles {
			abs := filepath.Join(info.Dir, name)
			ls, ok := changed[abs]
			if !ok {
				continue
			}
			src, err := os.ReadFile(abs)
			if err != nil {
				return err
			}
			if bytes.Contains(src[:min(len(src), 400)], []byte("Code generated")) {
				continue
			}
			frel, _ := filepath.Rel(c.cfg.root, abs)
			f, _, err := generate(abs, frel, src, ls, &next)
			if err != nil {
				return err
			}
			if len(f.edits) == 0 {
				continue
			}
			for _, m := range f.mutants() {
				m.Pkg = rel
				c.muts = append(c.muts, m)
			}
			c.files = append(c.files, f)
			if _, ok := c.hooks[info.Dir]; !ok {
				c.hooks[info.Dir] = info.Name
				c.rels = append(c.rels, rel)
			}
		}
	}
	if len(c.muts) == 0 {
		return nil
	}
	for round := 0; ; round++ {
		if err := c.writeOverlay(next); err != nil {
			return err
		}
		// Several packages: go build checks that they compile and
		// discards the result; one: -o names where it goes.
		args := []string{"build", "-overlay", c.overlay}
		if len(c.rels) == 1 {
			args = append(args, "-o", os.DevNull)
		}
		for _, rel := range c.rels {
			args = append(args, "./"+rel)
		}
		out, err := c.cfg.goCmd(c.cfg.root, nil, args...)
		if err == nil {
			return nil
		}
		if round == 100 || !c.dropFailures(out) {
			return fmt.Errorf("the code does not compile with its mutants, and the errors name none of them:\n%s", out)
		}
	}
}

// writeOverlay renders the files and writes the overlay: each mutated
// file, and the hook file added to each mutated package.
func (c *change) writeOverlay(n int) error {
	replace := map[string]string{}
	for i, f := range c.files {
		f.render()
		path := filepath.Join(c.tmp, fmt.Sprintf("%d_%s", i, filepath.Base(f.abs)))
		if err := os.WriteFile(path, f.out, 0o644); err != nil {
			return err
		}
		replace[f.abs] = path
		f.outPath = path
	}
	i := 0
	for dir, name := range c.hooks {
		hook := filepath.Join(c.tmp, fmt.Sprintf("hook%d_zz_mutdiff_hook.go", i))
		i++
		if err := os.WriteFile(hook, hookSource(name, n), 0o644); err != nil {
			return err
		}
		replace[filepath.Join(dir, "zz_mutdiff_hook.go")] = hook
	}
	b, _ := json.Marshal(map[string]any{"Replace": replace})
	c.overlay = filepath.Join(c.tmp, "overlay.json")
	return os.WriteFile(c.overlay, b, 0o644)
}

var compileError = regexp.MustCompile(`(?m)^(\S+\.go):(\d+):(\d+): `)

// dropFailures drops the mutants the compiler's errors point at; it
// reports whether it dropped any.
func (c *change) dropFailures(out []byte) bool {
	dropped := false
	for _, m := range compileError.FindAllSubmatch(out, -1) {
		// The compiler names the overlay's file (or, at times, the
		// file it stands for).
		path := string(m[1])
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.cfg.root, path)
		}
		path = filepath.Clean(path)
		line, _ := strconv.Atoi(string(m[2]))
		col, _ := strconv.Atoi(string(m[3]))
		for _, f := range c.files {
			if (f.abs == path || f.outPath == path) && (f.dropAt(offsetOf(f.out, line, col)) || f.dropLine(line)) {
				dropped = true
			}
		}
	}
	return dropped
}

// testPkg is a package the change touched, whose tests are run.
type testPkg struct {
	cfg   *config
	info  pkgInfo
	rel   string
	tmp   string
	bins  map[bool]string // race → test binary
	tests []*testInfo
	err   error // why its tests could not be run
	took  time.Duration
}

// testInfo is one top-level test and its run with no mutant on.
type testInfo struct {
	pkg     *testPkg
	name    string
	race    bool
	took    time.Duration
	failed  bool
	browser bool // it starts a Chromium or an Xvfb: its runs hold the lock
	reached map[int]bool
}

func (t *testInfo) String() string { return t.pkg.rel + "." + t.name }

// build compiles the package's test binary for a mode ("" if it has no
// tests).
func (p *testPkg) build(overlay string, race bool) (string, error) {
	if b, ok := p.bins[race]; ok {
		return b, nil
	}
	bin := filepath.Join(p.tmp, "plain.test")
	if race {
		bin = filepath.Join(p.tmp, "race.test")
	}
	args := []string{"test", "-c", "-o", bin, "-vet=off", "-ldflags=-w", "-overlay", overlay}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "./"+p.rel)
	out, err := p.cfg.goCmd(p.cfg.root, nil, args...)
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		bin = ""
	}
	p.bins[race] = bin
	return bin, nil
}

// listTests lists the package's top-level tests, fuzz targets' seed
// corpora and examples, each with the mode make test runs it in; it
// builds the test binary of each mode a test needs.
func (p *testPkg) listTests(overlay string) error {
	primary := raceFor(p.rel, "")
	bin, err := p.build(overlay, primary)
	if err != nil || bin == "" {
		return err
	}
	cmd := exec.Command(bin, "-test.list", ".")
	cmd.Dir = p.info.Dir
	cmd.Env = p.cfg.testEnv(overlay, 0, "")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s -test.list: %v", bin, err)
	}
	for _, name := range strings.Fields(string(out)) {
		if !(strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz") || strings.HasPrefix(name, "Example")) {
			continue
		}
		race := raceFor(p.rel, name)
		if race != primary {
			if _, err := p.build(overlay, race); err != nil {
				return err
			}
		}
		p.tests = append(p.tests, &testInfo{pkg: p, name: name, race: race})
	}
	return nil
}

// baseline runs every test alone with no mutant on, and notes its time
// and the mutants it reaches.
//
// The lock is held for them all (as a go test of the package would hold
// it) when the package's tests link the engine's browser or chromedp; the
// runs also say which tests start a Chromium or an Xvfb.
func (p *testPkg) baseline(overlay string) {
	cmd := exec.Command(p.cfg.goBin, "list", "-test", "-deps", "./"+p.rel)
	cmd.Dir = p.cfg.root
	out, err := cmd.Output()
	browsing := err != nil || regexp.MustCompile(`(?m)^(waymark/engine/browser|github\.com/chromedp/chromedp)$`).Match(out)
	if browsing {
		p.cfg.locked(func() { p.baselineLocked(overlay) })
	} else {
		p.baselineLocked(overlay)
	}
}

func (p *testPkg) baselineLocked(overlay string) {
	for i, t := range p.tests {
		trace := filepath.Join(p.tmp, fmt.Sprintf("trace-%d", i))
		res := p.cfg.runTests(p.bins[t.race], p.info.Dir, []string{t.name}, p.cfg.testEnv(overlay, 0, trace), 30*time.Minute, false)
		t.took, t.failed, t.browser = res.took, !res.ok, res.browser
		t.reached = map[int]bool{}
		if b, err := os.ReadFile(trace); err == nil {
			for _, f := range strings.Fields(string(b)) {
				if id, err := strconv.Atoi(f); err == nil {
					t.reached[id] = true
				}
			}
		}
		mode := ""
		if t.race {
			mode = " (race)"
		}
		if t.failed {
			fmt.Printf("    %s%s FAILS with no mutant on (%s): left out\n%s\n", t.name, mode, secs(res.took), indent(res.tail, "      "))
		} else if p.cfg.verbose {
			if t.browser {
				mode += " (browser)"
			}
			fmt.Printf("    %s%s %s, reaches %d mutants\n", t.name, mode, secs(res.took), len(t.reached))
		}
	}
}

// runMutants runs each mutant against the tests that reach it.
func (c *change) runMutants(tests []*testInfo) {
	var todo []*mutant
	for _, m := range c.muts {
		if m.Status == "" {
			todo = append(todo, m)
		}
	}
	work := make(chan *mutant)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < c.cfg.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range work {
				c.runMutant(m, tests)
				if !running.add(0) {
					select {} // interrupted: this mutant's verdict is not one
				}
				mu.Lock()
				done++
				fmt.Printf("  [%d/%d] %s:%d %s: %s\n", done, len(todo), m.File, m.Line, m.Desc, describe(m))
				mu.Unlock()
			}
		}()
	}
	for _, m := range todo {
		work <- m
	}
	close(work)
	wg.Wait()
}

func describe(m *mutant) string {
	switch m.Status {
	case statusKilled, statusTimedOut:
		return fmt.Sprintf("%s by %s (%s)", m.Status, m.By, secs(m.Took))
	case statusSurvived:
		return fmt.Sprintf("SURVIVED, %d tests reach it (%s)", len(m.Reached), secs(m.Took))
	}
	return strings.ToUpper(m.Status)
}

// runMutant runs the tests that reach m until one fails: the fastest
// alone first, then the others, one process per test binary; those that
// need no browser first (they run without waiting for the lock).
func (c *change) runMutant(m *mutant, tests []*testInfo) {
	var reach []*testInfo
	for _, t := range tests {
		if !t.failed && t.reached[m.ID] {
			reach = append(reach, t)
		}
	}
	if len(reach) == 0 {
		m.Status = statusNotReached
		return
	}
	sort.SliceStable(reach, func(i, j int) bool {
		if reach[i].browser != reach[j].browser {
			return !reach[i].browser
		}
		return reach[i].took < reach[j].took
	})
	for _, t := range reach {
		m.Reached = append(m.Reached, t.String())
	}
	batches := [][]*testInfo{reach[:1]}
	type key struct {
		bin     string
		browser bool
	}
	byKey := map[key][]*testInfo{}
	var keys []key
	for _, t := range reach[1:] {
		k := key{t.pkg.bins[t.race], t.browser}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], t)
	}
	for _, k := range keys {
		batches = append(batches, byKey[k])
	}
	m.Status = statusSurvived
	for _, b := range batches {
		var names []string
		var sum time.Duration
		browser := false
		for _, t := range b {
			names = append(names, t.name)
			sum += t.took
			browser = browser || t.browser
		}
		limit := time.Duration(c.cfg.timeoutFactor*float64(sum)) + 30*time.Second
		var res runResult
		run := func() {
			res = c.cfg.runTests(b[0].pkg.bins[b[0].race], b[0].pkg.info.Dir, names, c.cfg.testEnv(c.overlay, m.ID, ""), limit, true)
		}
		if browser {
			c.cfg.locked(run)
		} else {
			run()
		}
		m.Took += res.took
		if res.ok {
			continue
		}
		m.Status, m.By = statusKilled, b[0].pkg.rel+"."+res.failed
		if res.timedOut {
			m.Status = statusTimedOut
		}
		if res.failed == "" {
			m.By = b[0].pkg.rel + ".(" + strings.Join(names, "|") + ")"
		}
		return
	}
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return pre + strings.Join(lines, "\n"+pre)
}
