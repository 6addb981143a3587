package tasks

import (
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/ui"
)

// What the import dialog says about a preview.

// countLine says what the import would do, counted in the file's rows,
// e.g. "Will import 12 of 15 rows as tasks (information 5, navigation 7):
// 2 skipped, 1 duplicate."
func countLine(rep dataset.ImportReport) string {
	as := "as tasks"
	if rep.Rows == 1 {
		as = "as a task"
	}
	s := fmt.Sprintf("Will import %d of %s %s", len(rep.Tasks), ui.Plural(rep.Rows, "row"), as)
	var parts []string
	for _, c := range dataset.Categories {
		if n := rep.ByCategory[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s + ": " + restLine(rep) + "."
}

// restLine counts the rows that are not imported: "2 skipped, 1
// duplicate" (a duplicate's goal and start URL are already stored, or
// earlier in the file).
func restLine(rep dataset.ImportReport) string {
	dup := "duplicates"
	if len(rep.Duplicates) == 1 {
		dup = "duplicate"
	}
	return fmt.Sprintf("%d skipped, %d %s", len(rep.Skipped), len(rep.Duplicates), dup)
}

// columnsLine says which columns the preview reads beyond the one chosen
// per field (rows that name a field differently) and which it does not
// read at all, e.g. "Read row by row: the goal from instruction, goal or
// task. Not used: notes." ("" when every column is the one chosen).
func columnsLine(rep dataset.ImportReport) string {
	var parts []string
	for _, f := range dataset.ImportFields {
		if cols := rep.Used[f]; len(cols) > 1 {
			parts = append(parts, "the "+fieldWord(f)+" from "+orList(cols))
		}
	}
	var s []string
	if len(parts) > 0 {
		s = append(s, "Read row by row, as each row names it: "+strings.Join(parts, "; ")+".")
	}
	if un := rep.Unused(); len(un) > 0 && rep.Format != "manifest" {
		const most = 12
		list := strings.Join(un[:min(len(un), most)], ", ")
		if len(un) > most {
			list += fmt.Sprintf(" and %d more", len(un)-most)
		}
		s = append(s, "Not used: "+list+".")
	}
	return strings.Join(s, " ")
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
