package dataset

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// The report lists the skipped rows in file order, whichever step found
// them (row 7 of wmJSONL is refused by the reader, the others when they
// become tasks), and counts the tasks per category: in a preview, those that
// would be imported; once they are stored, none.
func TestImportReportOrderAndCategoryCounts(t *testing.T) {
	s := wmStore(t)
	check := func(what string, rep ImportReport, wantCats map[string]int) {
		t.Helper()
		var rows []int
		for _, is := range rep.Skipped {
			rows = append(rows, is.Row)
		}
		if got := fmt.Sprint(rows); got != "[4 5 6 7 9 10]" {
			t.Errorf("%s: skipped rows %s, want [4 5 6 7 9 10]", what, got)
		}
		if !maps.Equal(rep.ByCategory, wantCats) {
			t.Errorf("%s: by category %v, want %v", what, rep.ByCategory, wantCats)
		}
	}
	three := map[string]int{"information": 1, "navigation": 1, "interaction": 1}
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(wmJSONL), "webtasks.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("preview", rep, three)
	if rep, err = s.ImportTasks(t.Context(), strings.NewReader(wmJSONL), "webtasks.jsonl", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	check("import", rep, three)
	if rep, err = s.PreviewImport(t.Context(), strings.NewReader(wmJSONL), "webtasks.jsonl", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	check("preview once stored", rep, map[string]int{})
}
