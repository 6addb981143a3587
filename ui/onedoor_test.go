package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fynePkg is the import path whose Do and DoAndWait hand work to the UI
// thread.
const fynePkg = "fyne.io/fyne/v2"

// TestOneDoorToTheUIThread: only the Bridge (ui/bridge.go) hands work to
// the Fyne goroutine. Every other .go file of the module (tests aside) is
// parsed, and a use of fyne.Do or fyne.DoAndWait, under whatever name the
// file imports fyne, is named by file and line. A driver's
// DoFromGoroutine, the door behind them, counts too.
func TestOneDoorToTheUIThread(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not %s: %v", root, err)
	}
	door := filepath.Join("ui", "bridge.go")
	fset := token.NewFileSet()
	files := 0
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || rel == door {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, pos := range uiThreadCalls(f) {
			p := fset.Position(pos)
			found = append(found, rel+":"+strconv.Itoa(p.Line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d files parsed under %s: the walk missed the module", files, root)
	}
	for _, at := range found {
		t.Errorf("%s: hands work to the UI thread itself; go through ctx.UI() (ui.Bridge) instead", at)
	}
}

// uiThreadCalls returns where f uses fyne.Do, fyne.DoAndWait (through the
// name f imports fyne under, or unqualified after a dot import) or any
// DoFromGoroutine method.
func uiThreadCalls(f *ast.File) []token.Pos {
	names := map[string]bool{}
	dot := false
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || path != fynePkg {
			continue
		}
		switch {
		case imp.Name == nil:
			names["fyne"] = true
		case imp.Name.Name == ".":
			dot = true
		case imp.Name.Name != "_":
			names[imp.Name.Name] = true
		}
	}
	door := func(s string) bool { return s == "Do" || s == "DoAndWait" }
	var at []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && names[x.Name] && door(n.Sel.Name) {
				at = append(at, n.Pos())
			}
			if n.Sel.Name == "DoFromGoroutine" {
				at = append(at, n.Pos())
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && dot && door(id.Name) {
				at = append(at, n.Pos())
			}
		}
		return true
	})
	return at
}
