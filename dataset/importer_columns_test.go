package dataset

import (
	"strings"
	"testing"
)

// A column name with a control character is shown quoted in the error, so
// the terminal never receives the raw byte; printable names are shown as is.
func TestImportColumnNamesShownQuoted(t *testing.T) {
	s := wmStore(t)
	_, err := s.ImportTasks(t.Context(), strings.NewReader("\x1bname,link\nx,http://a.test/\n"), "cols.csv", ImportOptions{})
	want := `no goal column: the file has columns "\x1bname", link; name one of goal`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if strings.Contains(err.Error(), "\x1b") {
		t.Errorf("raw control byte in the error: %q", err)
	}
}
