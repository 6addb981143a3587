package dataset

import (
	"errors"
	"strings"
	"testing"
)

// A missing column is a *MissingColumnError naming the field (a screen
// says it in its own words) and still an ErrImportFile; the report keeps
// the columns and what was recognised. An empty column in the map gives a
// field no column, even a recognised one.
func TestImportMissingColumnAndNoColumn(t *testing.T) {
	s := wmStore(t)
	doc := "Objective,Website,type\nFind the tent,http://shop.waymark.test/,\n"
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(doc), "o.csv", ImportOptions{})
	var missing *MissingColumnError
	if !errors.As(err, &missing) || missing.Field != FieldGoal || !errors.Is(err, ErrImportFile) {
		t.Fatalf("err %v", err)
	}
	if strings.Join(rep.Columns, ",") != "Objective,Website,type" || rep.Mapping[FieldURL] != "Website" || rep.Mapping[FieldCategory] != "type" {
		t.Fatalf("columns %q mapping %v", rep.Columns, rep.Mapping)
	}
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(doc), "o.csv", ImportOptions{Map: map[string]string{FieldGoal: "Objective"}})
	if err != nil || len(rep.Skipped) != 1 || rep.Skipped[0].Reason != ReasonNoCategory {
		t.Fatalf("err %v skipped %v", err, rep.Skipped)
	}
	_, err = s.PreviewImport(t.Context(), strings.NewReader(doc), "o.csv", ImportOptions{Map: map[string]string{FieldGoal: "Objective", FieldCategory: ""}})
	if !errors.As(err, &missing) || missing.Field != FieldCategory {
		t.Fatalf("no category column: err %v", err)
	}
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(doc), "o.csv", ImportOptions{Map: map[string]string{FieldGoal: "Objective", FieldCategory: ""}, DefaultCategory: Navigation})
	if err != nil || rep.Imported != 1 || rep.Mapping[FieldCategory] != "" {
		t.Fatalf("err %v report %+v", err, rep)
	}
}
