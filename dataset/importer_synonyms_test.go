package dataset

import (
	"strings"
	"testing"
)

// A JSON task file whose rows name the same field with different
// documented synonyms (one row instruction/type, the next goal/category)
// is read row by row: each row's own key is used when it lacks the one
// chosen for the file. A column given with --map is used as given.
func TestImportMixedSynonymsPerRow(t *testing.T) {
	s := wmStore(t)
	doc := `{"instruction": "Find the tent", "url": "http://shop.waymark.test/", "type": "info", "answer": "42"}
{"goal": "Open the returns page", "start_url": "http://shop.waymark.test/help", "category": "navigation"}
{"task": "Book a workshop", "website": "http://forms.waymark.test/", "task_type": "form"}
`
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(doc), "mixed.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 3 || len(rep.Skipped) != 0 {
		t.Fatalf("imported %d, skipped %v", rep.Imported, rep.Skipped)
	}
	want := map[string]string{"Find the tent": Information, "Open the returns page": Navigation, "Book a workshop": Interaction}
	for _, tk := range rep.Tasks {
		if want[tk.Goal] != tk.Category || tk.StartURL == "" {
			t.Errorf("task %q: category %q, start URL %q", tk.Goal, tk.Category, tk.StartURL)
		}
		if tk.Goal == "Find the tent" && (tk.Check == nil || tk.Check.Answer != "42") {
			t.Errorf("the first row's answer was lost: %+v", tk.Check)
		}
	}
	// An explicit column is not replaced by a row's synonym.
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(doc), "mixed.jsonl", ImportOptions{Map: map[string]string{FieldGoal: "instruction"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 1 || len(rep.Skipped) != 2 || !strings.Contains(rep.Skipped[0].Reason, `column "instruction"`) {
		t.Fatalf("with --map goal=instruction: imported %d, skipped %v", rep.Imported, rep.Skipped)
	}
}

// The report of a mixed-synonym file names every column some row was read
// through per field, and only the others as unused: each of these columns
// was used by one row (task_type and type were named "not used" although
// every row was imported through them), and the extra "notes" column is
// the only one no row used.
func TestImportReportsTheColumnsEachRowUsed(t *testing.T) {
	s := wmStore(t)
	doc := `{"instruction": "Find the tent", "url": "http://shop.waymark.test/", "type": "info", "answer": "42", "notes": "x"}
{"goal": "Open the returns page", "start_url": "http://shop.waymark.test/help", "category": "navigation"}
{"task": "Book a workshop", "website": "http://forms.waymark.test/", "task_type": "form"}
`
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(doc), "mixed.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.Unused(), ","); got != "notes" {
		t.Errorf("unused columns %q, want only notes (columns %q)", got, rep.Columns)
	}
	for f, want := range map[string][]string{
		FieldGoal:     {"instruction", "goal", "task"},
		FieldURL:      {"url", "start_url", "website"},
		FieldCategory: {"type", "category", "task_type"},
		FieldAnswer:   {"answer"},
	} {
		got := rep.Used[f]
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s read through %q, want %q (columns in file order %q)", f, got, want, rep.Columns)
		}
	}
	// A CSV file: one column per field, the others unused.
	csv := "instruction,website,type,comment\nFind the tent,http://shop.waymark.test/,info,x\n"
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(csv), "plain.csv", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep.Unused(), ","); got != "comment" {
		t.Errorf("CSV unused columns %q, want comment", got)
	}
}
