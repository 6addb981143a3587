package app

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The application id lives in FyneApp.toml (what `fyne package` writes into
// the desktop file) and in AppID (where preferences are kept); they agree.
func TestAppIDMatchesFyneAppToml(t *testing.T) {
	b, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*ID\s*=\s*"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("FyneApp.toml has no ID line under [Details]")
	}
	if got := string(m[1]); got != AppID {
		t.Errorf("FyneApp.toml ID = %q, app.AppID = %q: change both together", got, AppID)
	}
}

// fileMention is a path-like word in a comment: a document (a .md file) or
// a file name with its folders, possibly with a glob.
var fileMention = regexp.MustCompile(`(?:[\w.*-]+/)*[\w.*-]*\w\.(?:go|md|toml|json|jsonl|js|html|css|ya?ml|txt|csv|tsv|parquet|png|har|py)\b`)

// Comments cite only files that exist in the repository: a reader can open
// every document and path a comment names.
func TestCommentsCiteOnlyFilesInTheRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var all []string // every path in the repository, slash-separated
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		all = append(all, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	exists := func(mention string) bool {
		for _, p := range all {
			if ok, _ := filepath.Match("*/"+mention, "/"+p); ok || p == mention || strings.HasSuffix(p, "/"+mention) {
				return true
			}
			if ok, _ := filepath.Match(mention, p); ok {
				return true
			}
			if ok, _ := filepath.Match(mention, filepath.Base(p)); ok && !strings.Contains(mention, "/") {
				return true
			}
		}
		return false
	}
	for _, rel := range all {
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ParseComments)
		if err != nil {
			continue // not this test's business (testdata, fuzz inputs)
		}
		for _, cg := range f.Comments {
			text := cg.Text()
			for _, loc := range fileMention.FindAllStringIndex(text, -1) {
				m := text[loc[0]:loc[1]]
				if loc[0] > 0 && strings.ContainsRune("/:.", rune(text[loc[0]-1])) {
					continue // a URL or an absolute path, not a repository file
				}
				// Example names (file.csv, split-00000-of-00003.parquet) are
				// not citations; documents and paths with a folder are.
				if !strings.HasSuffix(m, ".md") && !strings.Contains(m, "/") {
					continue
				}
				if !exists(m) {
					t.Errorf("%s: the comment cites %s, which is not in the repository: state the fact itself", fset.Position(cg.Pos()), m)
				}
			}
		}
	}
}
