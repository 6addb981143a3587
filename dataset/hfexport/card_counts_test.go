package hfexport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The card's outcome table counts the exported episodes per outcome. The
// standard store exports 17: success 3 "a" + 5 "b" + ep-07-c, failure 3 "a"
// + ep-04-c (settled), not_executable and invalid_task 2 "a" each; none
// without an outcome (unreviewed ones are not included by default).
func TestCardOutcomeCounts(t *testing.T) {
	out, _ := exportStandard(t)
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "| outcome | episodes |\n|---|---|\n| success | 9 |\n| failure | 4 |\n| not_executable | 2 |\n| invalid_task | 2 |\n\n"
	if !strings.Contains(string(b), want) {
		i := strings.Index(string(b), "| outcome |")
		t.Errorf("outcome table:\n%s\nwant:\n%s", string(b)[max(i, 0):min(max(i, 0)+200, len(b))], want)
	}
}
