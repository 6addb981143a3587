package action

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// Codes and EndReasons list every code and end reason declared in
// observation.go, so whatever iterates them (the words people read, for
// one) cannot miss a new one.
func TestCodesAndEndReasonsAreComplete(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "observation.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes, reasons []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a string literal", n.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				switch typ, _ := vs.Type.(*ast.Ident); {
				case typ != nil && typ.Name == "Code":
					codes = append(codes, v)
				case typ != nil && typ.Name == "EndReason":
					reasons = append(reasons, v)
				}
			}
		}
	}
	same := func(what string, declared, listed []string) {
		if !slices.Equal(declared, listed) {
			t.Errorf("observation.go declares the %s %q, the list has %q", what, declared, listed)
		}
	}
	same("codes", codes, strs(Codes()))
	same("end reasons", reasons, strs(EndReasons()))
}

func strs[S ~string](l []S) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = string(s)
	}
	return out
}

// The codes that end an episode, and how; the others let it go on.
func TestCodeEnds(t *testing.T) {
	want := map[Code]EndReason{
		ErrBotVerification:  EndBotVerification,
		ErrRendererCrashed:  EndCrashed,
		ErrRendererTimeout:  EndTimeout,
		ErrBlankObservation: EndBlankObservation,
	}
	for _, c := range append(Codes(), "", "no element at 3,4") {
		r, ok := c.Ends()
		if w, ends := want[c]; ok != ends || r != w {
			t.Errorf("%q.Ends() = %q, %v; want %q, %v", c, r, ok, w, ends)
		}
	}
}
