package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// lineSet is a set of line numbers (1-based); the key 0 stands for every
// line of the file.
type lineSet map[int]bool

func (s lineSet) has(line int) bool { return s[0] || s[line] }

// hunkHeader is a unified diff hunk header: "@@ -a[,b] +c[,d] @@".
var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// parseDiff reads `git diff -U0` output and returns, per file (the path
// after "+++ b/"), the lines of the new version that were added or
// changed. A hunk that only deletes lines adds none.
func parseDiff(out []byte) (map[string]lineSet, error) {
	files := map[string]lineSet{}
	var cur lineSet
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			name := strings.TrimPrefix(l, "+++ ")
			if name == "/dev/null" {
				cur = nil
				continue
			}
			name = strings.TrimPrefix(name, "b/")
			cur = files[name]
			if cur == nil {
				cur = lineSet{}
				files[name] = cur
			}
		case strings.HasPrefix(l, "@@ "):
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				return nil, fmt.Errorf("unreadable hunk header %q", l)
			}
			if cur == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			for i := 0; i < n; i++ {
				cur[start+i] = true
			}
		}
	}
	return files, sc.Err()
}

// changedLines is every Go line of the working tree added or changed
// since base (tracked files), plus every line of untracked Go files, keyed
// by absolute path.
func changedLines(root, base string) (map[string]lineSet, error) {
	cmd := exec.Command("git", "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", base, "--", "*.go")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %v (is %s a commit of this repository?)", base, err, base)
	}
	rel, err := parseDiff(out)
	if err != nil {
		return nil, err
	}
	abs := map[string]lineSet{}
	for f, ls := range rel {
		abs[filepath.Join(root, f)] = ls
	}
	cmd = exec.Command("git", "ls-files", "--others", "--exclude-standard", "--", "*.go")
	cmd.Dir = root
	out, err = cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	for _, f := range strings.Fields(string(out)) {
		abs[filepath.Join(root, f)] = lineSet{0: true}
	}
	return abs, nil
}
