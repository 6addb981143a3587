package dataset

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// Statuses, Outcomes and Verdicts list every status, outcome and verdict
// declared, so whatever iterates them (the words people read, the export's
// class labels) cannot miss a new one.
func TestStatusesOutcomesAndVerdictsAreComplete(t *testing.T) {
	declared := map[string][]string{}
	for _, file := range []string{"types.go", "replayruns.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				typ, _ := vs.Type.(*ast.Ident)
				if typ == nil {
					continue
				}
				for i := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s is not a string literal", vs.Names[i].Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					declared[typ.Name] = append(declared[typ.Name], v)
				}
			}
		}
	}
	for typ, listed := range map[string][]string{
		"Status":  strs(Statuses()),
		"Outcome": strs(Outcomes),
		"Verdict": strs(Verdicts()),
	} {
		if !slices.Equal(declared[typ], listed) {
			t.Errorf("the %s constants are %q, the list has %q", typ, declared[typ], listed)
		}
	}
}

func strs[S ~string](l []S) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}
