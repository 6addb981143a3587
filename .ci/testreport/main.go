// Command testreport reads `go test -json` and prints what a person reads
// of a test run: each package's result line, the whole output of every
// test that failed (and of the tests a crashed test binary was running),
// build errors, and nothing of the tests that passed. With -times FILE it
// appends each top-level test's duration to FILE; `testreport -slowest N
// FILE...` lists the N slowest tests those files hold.
//
// make test runs every lane through it, so a passing run stays short and a
// failing one keeps every line that explains the failure.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// event is one line of `go test -json` (test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}

func main() {
	times := flag.String("times", "", "append each top-level test's duration (seconds, package, test) to this file")
	slowest := flag.Int("slowest", 0, "list the N slowest tests of the -times files named as arguments, and exit")
	flag.Parse()
	if *slowest > 0 {
		if err := listSlowest(os.Stdout, *slowest, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(1)
		}
		return
	}
	var tf io.Writer = io.Discard
	if *times != "" {
		f, err := os.OpenFile(*times, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(1)
		}
		defer f.Close()
		tf = f
	}
	filter(os.Stdin, os.Stdout, tf)
}

// filter copies what matters of the event stream in to out.
func filter(in io.Reader, out, times io.Writer) {
	// Output of running tests, by package and top-level test, and when
	// each started: a test's time is its wall time, parallel subtests
	// included (its own Elapsed leaves them out).
	held := map[string]map[string][]string{}
	started := map[string]time.Time{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // not an event: pass it on
			continue
		}
		switch {
		case ev.Action == "build-output":
			fmt.Fprint(out, ev.Output)
		case ev.Test == "" && ev.Action == "output":
			if s := strings.TrimSpace(ev.Output); s != "PASS" && !strings.HasPrefix(s, "=== ") {
				fmt.Fprint(out, ev.Output)
			}
		case ev.Test == "" && (ev.Action == "fail" || ev.Action == "pass" || ev.Action == "skip"):
			// The binary ended: what its tests still held was running
			// when it died (a panic, a timeout).
			for test, lines := range held[ev.Package] {
				if ev.Action == "fail" {
					fmt.Fprintf(out, "--- %s was running when %s failed; its output:\n", test, ev.Package)
					fmt.Fprint(out, strings.Join(lines, ""))
				}
			}
			delete(held, ev.Package)
		case ev.Test != "":
			top, _, sub := strings.Cut(ev.Test, "/")
			if held[ev.Package] == nil {
				held[ev.Package] = map[string][]string{}
			}
			switch ev.Action {
			case "run":
				if !sub {
					started[ev.Package+" "+top] = ev.Time
				}
			case "output":
				held[ev.Package][top] = append(held[ev.Package][top], ev.Output)
			case "fail", "pass", "skip":
				if sub {
					continue
				}
				if ev.Action == "fail" {
					fmt.Fprint(out, strings.Join(held[ev.Package][top], ""))
				}
				delete(held[ev.Package], top)
				secs := ev.Elapsed
				if t0, ok := started[ev.Package+" "+top]; ok && !ev.Time.IsZero() {
					secs = max(secs, ev.Time.Sub(t0).Seconds())
				}
				fmt.Fprintf(times, "%.2f\t%s\t%s\n", secs, ev.Package, top)
			}
		}
	}
}

// listSlowest prints the n slowest tests of the times files.
func listSlowest(out io.Writer, n int, files []string) error {
	type row struct {
		secs      float64
		pkg, test string
	}
	var rows []row
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, "\t")
			if len(f) != 3 {
				continue
			}
			s, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				continue
			}
			rows = append(rows, row{s, f[1], f[2]})
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].secs > rows[j].secs })
	total := 0.0
	for _, r := range rows {
		total += r.secs
	}
	fmt.Fprintf(out, "=== the %d slowest of %d tests (%.0f s of tests in all)\n", min(n, len(rows)), len(rows), total)
	for _, r := range rows[:min(n, len(rows))] {
		fmt.Fprintf(out, "%7.1f s  %s  %s\n", r.secs, strings.TrimPrefix(r.pkg, "waymark/"), r.test)
	}
	return nil
}
