package taskfile

import "testing"

// A row issue names the line only when it is known (text formats).
func TestRowIssueString(t *testing.T) {
	for _, c := range []struct {
		is   RowIssue
		want string
	}{
		{RowIssue{Row: 3, Line: 4, Reason: "bad"}, "row 3 (line 4): bad"},
		{RowIssue{Row: 1, Line: 1, Reason: "x"}, "row 1 (line 1): x"},
		{RowIssue{Row: 2, Line: 0, Reason: "not a record"}, "row 2: not a record"},
	} {
		if got := c.is.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.is, got, c.want)
		}
	}
}
