// Package exportdir is the folder an export writes, for the Hugging Face
// export and the benchmark layouts alike. Before writing (Kind.Check): a
// new or empty folder is taken; a previous Waymark export of the same kind
// is replaced only when the caller forces it and only when it holds
// nothing but what that export wrote; anything else is refused, so no
// file of someone else's is ever deleted. While writing (Begin, partial.go):
// the export goes into a hidden folder beside the target that takes the
// target's place only once complete.
package exportdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MarkerFile marks a folder as a Waymark export: a JSON object naming the
// export's format and the files it wrote (slash-separated, relative to the
// folder).
const MarkerFile = ".waymark-export"

// ErrOutputExists: the folder holds something the export will not replace;
// the message says what and what to do.
var ErrOutputExists = errors.New("output folder is not empty")

// Kind is one kind of export's folder.
type Kind struct {
	// Format is the marker's "format" of this kind.
	Format string
	// Name is the kind as messages say it ("Waymark export").
	Name string
	// Also lists the names a previous export of this kind may hold besides
	// the files its marker lists.
	Also []string
}

// maxListed is how many files a refusal names.
const maxListed = 5

// Target is out made absolute, and Check's answer on it.
func (k Kind) Target(out string, force bool) (target string, replace bool, err error) {
	target, err = filepath.Abs(out)
	if err != nil {
		return "", false, fmt.Errorf("output folder %s: %w", out, err)
	}
	replace, err = k.Check(target, force)
	return target, replace, err
}

// Check looks at target before an export writes it: a missing or empty
// folder is taken (false); a previous export of this kind is replaced
// (true) only with force and only when it holds nothing but its marker,
// the files the marker lists and k.Also; anything else is refused with
// ErrOutputExists and a message that says what to do. Nothing is changed.
func (k Kind) Check(target string, force bool) (bool, error) {
	fi, err := os.Stat(target)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("output folder %s: %w", target, err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is a file, not a folder; choose a new folder name", ErrOutputExists, target)
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return false, fmt.Errorf("output folder %s: %w", target, err)
	}
	if len(entries) == 0 {
		return false, nil
	}
	var m struct {
		Format string   `json:"format"`
		Files  []string `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(target, MarkerFile))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil || m.Format != k.Format {
		return false, fmt.Errorf("%w: %s holds files that are not a %s; choose a new folder (nothing was changed)", ErrOutputExists, target, k.Name)
	}
	if !force {
		return false, fmt.Errorf("%w: %s holds a previous Waymark export; replace it with --force (Force), or choose a new folder", ErrOutputExists, target)
	}
	known := map[string]bool{MarkerFile: true}
	for _, n := range k.Also {
		known[n] = true
	}
	for _, f := range m.Files {
		// A file the export wrote, and the folders it is in.
		for p := filepath.FromSlash(f); p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
			known[p] = true
		}
	}
	var foreign []string
	err = filepath.WalkDir(target, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(target, p)
		if rel != "." && !known[rel] {
			foreign = append(foreign, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("output folder %s: %w", target, err)
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		if len(foreign) > maxListed {
			foreign = append(foreign[:maxListed], "…")
		}
		return false, fmt.Errorf("%w: %s holds a %s plus files Waymark did not write (%s); move them away or choose a new folder (nothing was changed)", ErrOutputExists, target, k.Name, strings.Join(foreign, ", "))
	}
	return true, nil
}
