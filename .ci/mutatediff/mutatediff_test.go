package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestParseDiff(t *testing.T) {
	out := []byte(`diff --git a/x/a.go b/x/a.go
index 1..2 100644
--- a/x/a.go
+++ b/x/a.go
@@ -3 +3 @@ package a
-	old
+	new
@@ -10,0 +11,3 @@ func f() {
+	one
+	two
+	three
@@ -20,2 +23,0 @@ func g() {
-	gone
-	gone
diff --git a/x/gone.go b/x/gone.go
deleted file mode 100644
--- a/x/gone.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package x
-
diff --git a/x/new.go b/x/new.go
new file mode 100644
--- /dev/null
+++ b/x/new.go
@@ -0,0 +1,2 @@
+package x
+
`)
	got, err := parseDiff(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]lineSet{
		"x/a.go":   {3: true, 11: true, 12: true, 13: true},
		"x/new.go": {1: true, 2: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseDiff: %v, want %v", got, want)
	}
}

// The sample: one spot for each kind of mutant, and a test that tells
// every mutant from the code, so each must be killed; a string + and a !
// on a named bool type cannot be written as mutants and must be dropped
// as not compiled, the rest compiled.
const sampleCode = `package p

import (
	"errors"
	"strings"
)

type Flag bool

func Cmp(a, b int) [6]bool { return [6]bool{a == b, a != b, a < b, a <= b, a > b, a >= b} }

func Logic(a, b bool) [3]bool { return [3]bool{a && b, a || b, !a} }

func Arith(a, b int) [5]int { return [5]int{a + b, a - b, a * b, a / b, a % b} }

func Float(a, b float64) float64 { return a*b + a/b }

func Concat(a, b string) string { return a + b }

func Not(f Flag) Flag { return !f }

func Cond(ok bool) int {
	if ok {
		return 1
	}
	return 2
}

func Loop(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func Steps(n int) int {
	n++
	n += 3
	n *= 4
	n--
	n -= 5
	n /= 3
	return n
}

var calls int

func bump() { calls++ }

func Call() int {
	calls = 0
	bump()
	return calls
}

func Fail(fail bool) (int, error) {
	if fail {
		return 0, errors.New("failed")
	}
	return 1, nil
}

func Yes(s string) bool { return strings.HasPrefix(s, "y") }
`

const sampleTest = `package p

import "testing"

func TestAll(t *testing.T) {
	if got := Cmp(1, 2); got != [6]bool{false, true, true, true, false, false} {
		t.Errorf("Cmp(1, 2) = %v", got)
	}
	if got := Cmp(2, 2); got != [6]bool{true, false, false, true, false, true} {
		t.Errorf("Cmp(2, 2) = %v", got)
	}
	if got := Cmp(3, 2); got != [6]bool{false, true, false, false, true, true} {
		t.Errorf("Cmp(3, 2) = %v", got)
	}
	if got := Logic(true, false); got != [3]bool{false, true, false} {
		t.Errorf("Logic = %v", got)
	}
	if got := Arith(7, 2); got != [5]int{9, 5, 14, 3, 1} {
		t.Errorf("Arith = %v", got)
	}
	if got := Float(3, 2); got != 7.5 {
		t.Errorf("Float = %v", got)
	}
	if Concat("a", "b") != "ab" || Not(true) != false {
		t.Error("Concat or Not")
	}
	if Cond(true) != 1 || Cond(false) != 2 {
		t.Error("Cond")
	}
	if got := Loop(4); got != 6 {
		t.Errorf("Loop = %d", got)
	}
	if got := Steps(1); got != 4 {
		t.Errorf("Steps = %d", got)
	}
	if Call() != 1 || Call() != 1 {
		t.Error("Call")
	}
	if _, err := Fail(true); err == nil {
		t.Error("Fail(true) gave no error")
	}
	if Yes("no") || !Yes("yes") {
		t.Error("Yes")
	}
}
`

func TestEveryMutantCompilesAndIsKilled(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": "module sample\n\ngo 1.26\n", "p/p.go": sampleCode, "p/p_test.go": sampleTest} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config{root: root, goBin: "go", workers: 1, timeoutFactor: 3, tmpdir: t.TempDir()}
	tmp := t.TempDir()
	ch := &change{cfg: cfg, tmp: tmp}
	info := pkgInfo{ImportPath: "sample/p", Dir: dir, Name: "p", GoFiles: []string{"p.go"}, TestGoFiles: []string{"p_test.go"}}
	abs := filepath.Join(dir, "p.go")
	if err := ch.prepare([]pkgInfo{info}, map[string]lineSet{abs: {0: true}}); err != nil {
		t.Fatal(err)
	}
	var dropped, kinds []string
	for _, m := range ch.muts {
		if m.Status == statusNotCompiled {
			dropped = append(dropped, fmt.Sprintf("%d %s", m.Line, m.Desc))
		}
		kinds = append(kinds, m.Desc)
	}
	sort.Strings(dropped)
	if want := []string{"18 `+` → `-`", "20 `!` removed"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("not compiled: %q, want %q", dropped, want)
	}
	for _, k := range []string{"`==` → `!=`", "`<` → `<=`", "`&&` → `||`", "`%` → `*`", "condition negated: `ok`", "`++` → `--`",
		"`+=` → `-=`", "`*=` → `/=`", "call removed: `bump()`", "assignment removed: `calls = 0`", "statement removed: `n--`",
		"returned error dropped: `errors.New(\"failed\")` → `nil`", "returned bool negated: `strings.HasPrefix(s, \"y\")`"} {
		found := false
		for _, d := range kinds {
			found = found || d == k
		}
		if !found {
			t.Errorf("no mutant %s among %q", k, kinds)
		}
	}

	tp := &testPkg{cfg: cfg, info: info, rel: "p", tmp: tmp, bins: map[bool]string{}}
	bin, err := tp.build(ch.overlay, false)
	if err != nil || bin == "" {
		t.Fatalf("test binary: %q %v", bin, err)
	}
	trace := filepath.Join(tmp, "trace")
	if res := cfg.runTests(bin, dir, []string{"TestAll"}, cfg.testEnv(ch.overlay, 0, trace), time.Minute, false); !res.ok {
		t.Fatalf("with no mutant on, the sample's test fails:\n%s", res.tail)
	}
	b, _ := os.ReadFile(trace)
	reached := map[string]bool{}
	for _, f := range strings.Fields(string(b)) {
		reached[f] = true
	}
	for _, m := range ch.muts {
		if m.Status == statusNotCompiled {
			continue
		}
		if !reached[fmt.Sprint(m.ID)] {
			t.Errorf("line %d %s: not in the trace", m.Line, m.Desc)
		}
		res := cfg.runTests(bin, dir, []string{"TestAll"}, cfg.testEnv(ch.overlay, m.ID, ""), time.Minute, true)
		if res.ok {
			t.Errorf("line %d %s: the sample's test passes with it on", m.Line, m.Desc)
		}
	}

	// The sample's own folder was not touched.
	if b, _ := os.ReadFile(abs); string(b) != sampleCode {
		t.Error("p.go was changed on disk")
	}
	if out, err := exec.Command("ls", dir).Output(); err != nil || strings.Fields(string(out))[0] != "p.go" || len(strings.Fields(string(out))) != 2 {
		t.Errorf("the folder holds %q", out)
	}
}
