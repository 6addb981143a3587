package dataset

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// The tables a merge copies, each described once (how its rows are
// matched, copied, compared and named in the report), and the SQL and Go
// a merge builds from a description and the columns both files have (see
// merge.go).

// mergeTable describes how a merge treats one table.
type mergeTable struct {
	name string
	// noun is the report's word for the table's rows; "" leaves the table
	// out of the summary.
	noun string
	// kind names one of its rows in the report's issues ("task", …).
	kind string
	// numbered: the id column is numbered per file, so a row is the same
	// by its content and its id is left to this store.
	numbered bool
	// ignore are the columns a comparison of two versions of a row leaves
	// out.
	ignore []string
	// mapped are columns copied from the other file through an expression
	// of its row s (an id of the other file made this store's).
	mapped map[string]string
	// describe is SQL describing a row of the other file that has no id,
	// from columns every schema has; it is set for the tables whose id
	// SQLite lets be NULL (a TEXT primary key without NOT NULL).
	describe string
}

// mergeTables are the tables a merge copies, in this order.
var mergeTables = []mergeTable{
	{name: "tasks", noun: "tasks", kind: "task", ignore: []string{"id", "created_at", "updated_at"},
		describe: `printf('%s at %s', json_quote(goal), start_url)`},
	{name: "episodes", noun: "episodes", kind: "episode",
		mapped:   map[string]string{"task_id": `(SELECT dst FROM temp.merge_task_map WHERE src = s.task_id)`},
		describe: `printf('annotator %s, started %s', json_quote(annotator), started_at)`},
	{name: "steps", noun: "steps", ignore: []string{"thumb"}}, // the cached thumbnail
	{name: "har_chunks", noun: "network chunks", numbered: true},
	{name: "episode_edits", noun: "edits", numbered: true},
	{name: "guideline_versions"},
	{name: "reviews", noun: "reviews", kind: "review", ignore: []string{"superseded_by"},
		describe: `printf('of episode %s by %s, %s', episode_id, json_quote(reviewer), created_at)`},
	{name: "replay_runs", noun: "replay runs", kind: "replay run",
		describe: `printf('of episode %s, started %s', episode_id, started_at)`},
	{name: "step_labels", noun: "step labels"},
	{name: "archive_chunks", noun: "archive chunks", numbered: true},
	{name: "bodies", noun: "archive bodies"},
	{name: "archive_bodies"}, // only says which episode uses which body
}

// mergeCols are one table's columns that both files have, in this store's
// order (none: the other file's schema predates the table), and the SQL
// built from them.
type mergeCols struct {
	mergeTable
	cols []string
}

// copied reports whether column c is copied (a numbered id is not).
func (t mergeCols) copied(c string) bool { return !(t.numbered && c == "id") }

// into is the column list of an INSERT into this store.
func (t mergeCols) into() string {
	var b []string
	for _, c := range t.cols {
		if t.copied(c) {
			b = append(b, `"`+c+`"`)
		}
	}
	return strings.Join(b, ", ")
}

// from is into's values, selected from the other file's row s.
func (t mergeCols) from() string {
	var b []string
	for _, c := range t.cols {
		switch e, ok := t.mapped[c]; {
		case !t.copied(c):
		case ok:
			b = append(b, e)
		default:
			b = append(b, `s."`+c+`"`)
		}
	}
	return strings.Join(b, ", ")
}

// same is a SQL condition true when rows a and b agree on every column
// compared (the copied ones not in ignore).
func (t mergeCols) same(a, b string) string {
	var parts []string
	for _, c := range t.cols {
		if t.copied(c) && !slices.Contains(t.ignore, c) {
			parts = append(parts, fmt.Sprintf(`%s."%s" IS %s."%s"`, a, c, b, c))
		}
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, " AND ")
}

// row selects every column of the row of schema ("main" or "src") with a
// given id; the other file's as it would be copied (its mapped columns
// mapped), for comparing in Go (diff).
func (t mergeCols) row(schema string) string {
	var b []string
	for _, c := range t.cols {
		if e, ok := t.mapped[c]; ok && schema == "src" {
			b = append(b, e)
		} else {
			b = append(b, `s."`+c+`"`)
		}
	}
	return `SELECT ` + strings.Join(b, ", ") + ` FROM ` + schema + `.` + t.name + ` s WHERE s.id=?`
}

// diff lists the columns (but ignore) whose values differ between two rows
// read by row.
func (t mergeCols) diff(here, there []any) []string {
	return diffFields(t.cols, here, there, t.ignore)
}

// rowValues reads one row of n columns as values, for comparing in Go.
func (m *merger) rowValues(q string, n int, args ...any) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	err := m.tx.QueryRowContext(m.ctx, q, args...).Scan(ptrs...)
	return vals, err
}

// versions reads the row with id here and the one with id there, by row.
func (m *merger) versions(t mergeCols, here, there string) (h, th []any, err error) {
	if h, err = m.rowValues(t.row("main"), len(t.cols), here); err != nil {
		return nil, nil, err
	}
	th, err = m.rowValues(t.row("src"), len(t.cols), there)
	return h, th, err
}

// diffFields lists the columns whose values differ, with both values (long
// ones cut).
func diffFields(cols []string, here, there []any, skip []string) []string {
	var out []string
	for i, c := range cols {
		if slices.Contains(skip, c) || reflect.DeepEqual(norm(here[i]), norm(there[i])) {
			continue
		}
		out = append(out, fmt.Sprintf("%s is %s here and %s there", c, short(here[i]), short(there[i])))
	}
	return out
}

func norm(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

func short(v any) string {
	if v == nil {
		return "empty"
	}
	s := fmt.Sprint(norm(v))
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func intList(xs []int) string {
	var b []string
	for i, x := range xs {
		if i == 8 {
			b = append(b, fmt.Sprintf("… (%d in all)", len(xs)))
			break
		}
		b = append(b, fmt.Sprint(x))
	}
	return strings.Join(b, ", ")
}
