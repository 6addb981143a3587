package main

import (
	"bytes"
	"fmt"
	"time"
)

// A mutant is one small change to one spot of the code. All the mutants
// of a package are compiled into one test binary (mutant schemata): each
// spot is rewritten to ask mutdiffOn(id) which version to run, and the
// environment variable WAYMARK_MUTANT names the one that is on (0: none).
type mutant struct {
	ID   int
	Pkg  string // the package's folder, relative to the repository root
	File string // relative to the repository root
	Line int
	Desc string

	Status  string        // see the status constants
	By      string        // the test that failed, for a killed mutant
	Reached []string      // the tests that reach it
	Took    time.Duration // the runs for this mutant
}

// Mutant statuses.
const (
	statusKilled      = "killed"
	statusTimedOut    = "timed out"
	statusSurvived    = "survived"
	statusNotReached  = "not reached"
	statusNotCompiled = "not compiled"
)

// editKind says how an edit is written.
type editKind int

const (
	boolEdit  editKind = iota // a bool expression: (on(k1) && (ALT1) || … || !on(k1) && … && (ORIG))
	arithEdit                 // x op y: mutdiffAdd(k, x, y) and the like
	stmtEdit                  // a statement: if on(k1) { ALT1 } else if … else { ORIG }
)

// span is a range of byte offsets in the source, end excluded.
type span struct{ s, e int }

// alt is one mutant of an edit and how its text is written.
type alt struct {
	m     *mutant
	write func(w *writer)
}

// edit is one spot of the source rewritten to carry its mutants.
type edit struct {
	span
	kind    editKind
	alts    []alt
	helper  string // arithEdit: the helper's name
	x, y    span   // arithEdit: the operands
	dropped bool   // it did not compile
}

// fileMut is one file of a package and the edits of its changed lines.
type fileMut struct {
	abs, rel string
	src      []byte
	edits    []*edit
	out      []byte   // the rewritten file
	outPath  string   // where it was written
	regions  []region // where each edit was written in out
}

type region struct {
	s, e int
	ed   *edit
}

// writer writes a file with its edits applied.
type writer struct {
	f   *fileMut
	buf bytes.Buffer
}

func (w *writer) str(s string) { w.buf.WriteString(s) }

// emit writes src[s:e] with the edits inside it applied, leaving out an
// edit whose span is exactly skip.
func (w *writer) emit(s, e int, skip *span) {
	pos := s
	for _, ed := range w.f.edits {
		if ed.dropped || ed.s < pos || ed.e > e || (skip != nil && ed.span == *skip) {
			continue
		}
		w.buf.Write(w.f.src[pos:ed.s])
		start := w.buf.Len()
		w.writeEdit(ed)
		w.f.regions = append(w.f.regions, region{start, w.buf.Len(), ed})
		pos = ed.e
	}
	w.buf.Write(w.f.src[pos:e])
}

func (w *writer) orig(ed *edit) { w.emit(ed.s, ed.e, &ed.span) }

func (w *writer) writeEdit(ed *edit) {
	switch ed.kind {
	case boolEdit:
		w.str("(")
		for _, a := range ed.alts {
			w.str(fmt.Sprintf("mutdiffOn(%d) && (", a.m.ID))
			a.write(w)
			w.str(") || ")
		}
		for _, a := range ed.alts {
			w.str(fmt.Sprintf("!mutdiffOn(%d) && ", a.m.ID))
		}
		w.str("(")
		w.orig(ed)
		w.str("))")
	case arithEdit:
		w.str(fmt.Sprintf("%s(%d, ", ed.helper, ed.alts[0].m.ID))
		w.emit(ed.x.s, ed.x.e, nil)
		w.str(", ")
		w.emit(ed.y.s, ed.y.e, nil)
		w.str(")")
	case stmtEdit:
		for i, a := range ed.alts {
			if i > 0 {
				w.str(" else ")
			}
			w.str(fmt.Sprintf("if mutdiffOn(%d) { ", a.m.ID))
			a.write(w)
			w.str(" }")
		}
		w.str(" else { ")
		w.orig(ed)
		w.str(" }")
	}
}

// render rewrites the file with its edits that still compile.
func (f *fileMut) render() {
	f.regions = nil
	w := &writer{f: f}
	w.emit(0, len(f.src), nil)
	f.out = w.buf.Bytes()
}

// dropAt drops the innermost edit written around byte offset off of the
// rewritten file; it reports whether there was one.
func (f *fileMut) dropAt(off int) bool {
	var best *region
	for i := range f.regions {
		r := &f.regions[i]
		if r.s <= off && off < r.e && (best == nil || r.e-r.s < best.e-best.s) {
			best = r
		}
	}
	if best == nil {
		return false
	}
	best.ed.dropped = true
	for _, a := range best.ed.alts {
		a.m.Status = statusNotCompiled
	}
	return true
}

// dropLine drops every edit written on line (1-based) of the rewritten
// file; it reports whether there was one.
func (f *fileMut) dropLine(line int) bool {
	start, end := lineSpan(f.out, line)
	dropped := false
	for _, r := range f.regions {
		if r.s < end && r.e > start && !r.ed.dropped {
			r.ed.dropped = true
			for _, a := range r.ed.alts {
				a.m.Status = statusNotCompiled
			}
			dropped = true
		}
	}
	return dropped
}

// lineSpan is the byte range of a 1-based line of b.
func lineSpan(b []byte, line int) (int, int) {
	s := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(b[s:], '\n')
		if i < 0 {
			return len(b), len(b)
		}
		s += i + 1
	}
	e := bytes.IndexByte(b[s:], '\n')
	if e < 0 {
		return s, len(b)
	}
	return s, s + e
}

// offsetOf is the byte offset of a 1-based line and column of b.
func offsetOf(b []byte, line, col int) int {
	s, e := lineSpan(b, line)
	if s+col-1 > e {
		return e
	}
	return s + col - 1
}
