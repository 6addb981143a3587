package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// Which mutants a file's changed lines get: the generator walks the file's
// syntax tree and adds an edit, with its mutants, at each spot of a
// changed line (the list is in main.go's opening comment).

// Operators and what they become.
var (
	negated  = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL, token.LSS: token.GEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR}
	boundary = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
	logical  = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
	arith    = map[token.Token]struct {
		helper string
		to     token.Token
	}{
		token.ADD: {"mutdiffAdd", token.SUB}, token.SUB: {"mutdiffSub", token.ADD}, token.MUL: {"mutdiffMul", token.QUO},
		token.QUO: {"mutdiffQuo", token.MUL}, token.REM: {"mutdiffRem", token.MUL},
	}
	opAssign = map[token.Token]token.Token{token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN}
	incDec   = map[token.Token]token.Token{token.INC: token.DEC, token.DEC: token.INC}
)

// Calls never removed: leaving them out only hangs the program (a lock
// never released, a WaitGroup never done), which costs a whole timeout
// and tells nothing a test could check.
var keepCalls = map[string]bool{"Unlock": true, "RUnlock": true, "Done": true, "panic": true}

// generator finds the mutants of one file.
type generator struct {
	fset    *token.FileSet
	f       *fileMut
	changed lineSet
	next    *int // the package's mutant counter
	byKey   map[span]*edit
	funcs   []*ast.FuncType // enclosing functions, innermost last
}

func (g *generator) off(p token.Pos) int  { return g.fset.Position(p).Offset }
func (g *generator) line(p token.Pos) int { return g.fset.Position(p).Line }
func (g *generator) spanOf(n ast.Node) span {
	return span{g.off(n.Pos()), g.off(n.End())}
}
func (g *generator) text(n ast.Node) string {
	sp := g.spanOf(n)
	t := strings.Join(strings.Fields(string(g.f.src[sp.s:sp.e])), " ")
	if len(t) > 60 {
		t = t[:57] + "..."
	}
	return t
}

func (g *generator) newMutant(line int, desc string) *mutant {
	*g.next++
	return &mutant{ID: *g.next, File: g.f.rel, Line: line, Desc: desc}
}

// add adds an alternative to the edit of span sp (made if new, of kind k);
// an edit of another kind on the same span is left alone.
func (g *generator) add(sp span, k editKind, line int, desc string, write func(w *writer)) *edit {
	if !g.changed.has(line) {
		return nil
	}
	ed := g.byKey[sp]
	if ed == nil {
		ed = &edit{span: sp, kind: k}
		g.byKey[sp] = ed
		g.f.edits = append(g.f.edits, ed)
	} else if ed.kind != k {
		return nil
	}
	ed.alts = append(ed.alts, alt{m: g.newMutant(line, desc), write: write})
	return ed
}

// swapped writes a b with its operator at opPos (of text op) replaced by to.
func (g *generator) swapped(a, b ast.Node, opPos token.Pos, op, to string) func(w *writer) {
	as, bs, o := g.spanOf(a), g.spanOf(b), g.off(opPos)
	return func(w *writer) {
		w.emit(as.s, as.e, nil)
		w.buf.Write(w.f.src[as.e:o])
		w.str(to)
		w.buf.Write(w.f.src[o+len(op) : bs.s])
		w.emit(bs.s, bs.e, nil)
	}
}

func (g *generator) negation(n ast.Node) func(w *writer) {
	sp := g.spanOf(n)
	return func(w *writer) {
		w.str("!(")
		w.emit(sp.s, sp.e, &sp)
		w.str(")")
	}
}

func isStringLit(e ast.Expr) bool {
	b, ok := ast.Unparen(e).(*ast.BasicLit)
	return ok && (b.Kind == token.STRING || b.Kind == token.CHAR)
}

func isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

func isComparisonOrLogical(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		_, cmp := negated[x.Op]
		_, lg := logical[x.Op]
		return cmp || lg
	case *ast.UnaryExpr:
		return x.Op == token.NOT
	}
	return false
}

// results is the innermost enclosing function's result types.
func (g *generator) results() []ast.Expr {
	if len(g.funcs) == 0 {
		return nil
	}
	ft := g.funcs[len(g.funcs)-1]
	if ft.Results == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range ft.Results.List {
		n := max(1, len(f.Names))
		for i := 0; i < n; i++ {
			out = append(out, f.Type)
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func (g *generator) expr(n ast.Expr) {
	switch x := n.(type) {
	case *ast.BinaryExpr:
		line := g.line(x.OpPos)
		op := x.Op.String()
		if to, ok := negated[x.Op]; ok {
			g.add(g.spanOf(x), boolEdit, line, fmt.Sprintf("`%s` → `%s`", op, to), g.swapped(x.X, x.Y, x.OpPos, op, to.String()))
		}
		if to, ok := boundary[x.Op]; ok {
			g.add(g.spanOf(x), boolEdit, line, fmt.Sprintf("`%s` → `%s`", op, to), g.swapped(x.X, x.Y, x.OpPos, op, to.String()))
		}
		if to, ok := logical[x.Op]; ok {
			g.add(g.spanOf(x), boolEdit, line, fmt.Sprintf("`%s` → `%s`", op, to), g.swapped(x.X, x.Y, x.OpPos, op, to.String()))
		}
		if a, ok := arith[x.Op]; ok && !isStringLit(x.X) && !isStringLit(x.Y) {
			if ed := g.add(g.spanOf(x), arithEdit, line, fmt.Sprintf("`%s` → `%s`", op, a.to), nil); ed != nil {
				ed.helper, ed.x, ed.y = a.helper, g.spanOf(x.X), g.spanOf(x.Y)
			}
		}
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			xs := g.spanOf(x.X)
			g.add(g.spanOf(x), boolEdit, g.line(x.OpPos), "`!` removed", func(w *writer) { w.emit(xs.s, xs.e, nil) })
		}
	}
}

// cond negates an if or for condition that no other mutant negates.
func (g *generator) cond(c ast.Expr) {
	if c == nil || isComparisonOrLogical(c) {
		return
	}
	g.add(g.spanOf(c), boolEdit, g.line(c.Pos()), "condition negated: `"+g.text(c)+"`", g.negation(c))
}

// stmt adds the statement mutants of a statement of a statement list.
func (g *generator) stmt(s ast.Stmt) {
	sp := g.spanOf(s)
	line := g.line(s.Pos())
	removed := func(w *writer) {}
	switch x := s.(type) {
	case *ast.ExprStmt:
		call, ok := x.X.(*ast.CallExpr)
		if !ok {
			return
		}
		name := ""
		switch fn := ast.Unparen(call.Fun).(type) {
		case *ast.Ident:
			name = fn.Name
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		}
		if keepCalls[name] {
			return
		}
		g.add(sp, stmtEdit, line, "call removed: `"+g.text(s)+"`", removed)
	case *ast.AssignStmt:
		if x.Tok == token.DEFINE {
			return
		}
		blank := true
		for _, l := range x.Lhs {
			blank = blank && isIdent(l, "_")
		}
		if blank {
			return
		}
		if to, ok := opAssign[x.Tok]; ok && !isStringLit(x.Rhs[0]) {
			g.add(sp, stmtEdit, line, fmt.Sprintf("`%s` → `%s`", x.Tok, to), g.swapped(x.Lhs[0], x.Rhs[0], x.TokPos, x.Tok.String(), to.String()))
		}
		g.add(sp, stmtEdit, line, "assignment removed: `"+g.text(s)+"`", removed)
	case *ast.IncDecStmt:
		xs := g.spanOf(x.X)
		to := incDec[x.Tok]
		g.add(sp, stmtEdit, line, fmt.Sprintf("`%s` → `%s`", x.Tok, to), func(w *writer) {
			w.emit(xs.s, xs.e, nil)
			w.str(to.String())
		})
		g.add(sp, stmtEdit, line, "statement removed: `"+g.text(s)+"`", removed)
	case *ast.ReturnStmt:
		res := g.results()
		if len(res) == 0 || len(x.Results) != len(res) {
			return
		}
		last := x.Results[len(x.Results)-1]
		if isIdent(res[len(res)-1], "error") && !isNil(last) {
			spans := make([]span, len(x.Results)-1)
			for i := range spans {
				spans[i] = g.spanOf(x.Results[i])
			}
			g.add(sp, stmtEdit, g.line(last.Pos()), "returned error dropped: `"+g.text(last)+"` → `nil`", func(w *writer) {
				w.str("return ")
				for _, r := range spans {
					w.emit(r.s, r.e, nil)
					w.str(", ")
				}
				w.str("nil")
			})
		}
		if len(res) == 1 && isIdent(res[0], "bool") && !isComparisonOrLogical(last) {
			g.add(g.spanOf(last), boolEdit, g.line(last.Pos()), "returned bool negated: `"+g.text(last)+"`", g.negation(last))
		}
	}
}

func (g *generator) list(l []ast.Stmt) {
	for _, s := range l {
		g.stmt(s)
	}
}

// walk visits the file's nodes, keeping the enclosing functions.
func (g *generator) walk(file *ast.File) {
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GenDecl:
			if x.Tok == token.CONST {
				return false // constant expressions must stay constant
			}
		case *ast.FuncDecl:
			if x.Body == nil {
				return false
			}
			g.funcs = append(g.funcs, x.Type)
			ast.Inspect(x.Body, visit)
			g.funcs = g.funcs[:len(g.funcs)-1]
			return false
		case *ast.FuncLit:
			g.funcs = append(g.funcs, x.Type)
			ast.Inspect(x.Body, visit)
			g.funcs = g.funcs[:len(g.funcs)-1]
			return false
		case *ast.ArrayType:
			if x.Len != nil {
				ast.Inspect(x.Elt, visit) // an array's length must stay constant
				return false
			}
		case *ast.BlockStmt:
			g.list(x.List)
		case *ast.CaseClause:
			g.list(x.Body)
		case *ast.CommClause:
			g.list(x.Body)
		case *ast.IfStmt:
			g.cond(x.Cond)
		case *ast.ForStmt:
			g.cond(x.Cond)
		case ast.Expr:
			g.expr(x)
		}
		return true
	}
	ast.Inspect(file, visit)
}

// generate parses a file and finds the mutants of its changed lines.
func generate(abs, rel string, src []byte, changed lineSet, next *int) (*fileMut, string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, abs, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, "", err
	}
	f := &fileMut{abs: abs, rel: rel, src: src}
	g := &generator{fset: fset, f: f, changed: changed, next: next, byKey: map[span]*edit{}}
	g.walk(file)
	sort.SliceStable(f.edits, func(i, j int) bool {
		if f.edits[i].s != f.edits[j].s {
			return f.edits[i].s < f.edits[j].s
		}
		return f.edits[i].e > f.edits[j].e
	})
	return f, file.Name.Name, nil
}

func (f *fileMut) mutants() []*mutant {
	var out []*mutant
	for _, ed := range f.edits {
		for _, a := range ed.alts {
			out = append(out, a.m)
		}
	}
	return out
}
