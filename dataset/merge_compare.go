package dataset

import (
	"fmt"
	"reflect"
	"strings"
)

// SQL and Go helpers of a merge for naming columns and comparing rows.

// colList joins columns as "p.a, p.b" (prefix p may be empty), leaving out
// the ones in skip and replacing those in repl by an expression.
func colList(cols []string, prefix string, skip []string, repl map[string]string) string {
	var b []string
	for _, c := range cols {
		if contains(skip, c) {
			continue
		}
		if e, ok := repl[c]; ok {
			b = append(b, e)
			continue
		}
		if prefix != "" {
			b = append(b, prefix+`."`+c+`"`)
		} else {
			b = append(b, `"`+c+`"`)
		}
	}
	return strings.Join(b, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameExpr is a SQL condition true when a and b agree on every column of
// cols except skip.
func sameExpr(cols []string, a, b string, skip []string) string {
	var parts []string
	for _, c := range cols {
		if contains(skip, c) {
			continue
		}
		parts = append(parts, fmt.Sprintf(`%s."%s" IS %s."%s"`, a, c, b, c))
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, " AND ")
}

// rowValues reads one row of cols as values, for comparing in Go.
func (m *merger) rowValues(q string, n int, args ...any) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	err := m.tx.QueryRowContext(m.ctx, q, args...).Scan(ptrs...)
	return vals, err
}

// diffFields lists the columns whose values differ, with both values (long
// ones cut).
func diffFields(cols []string, here, there []any, skip []string) []string {
	var out []string
	for i, c := range cols {
		if contains(skip, c) || reflect.DeepEqual(norm(here[i]), norm(there[i])) {
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
