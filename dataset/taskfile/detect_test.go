package taskfile

import "testing"

// Without a telling extension the format comes from the content: JSON when
// it starts with [ or {, TSV when the first line has tabs and no comma,
// else CSV (an empty file too).
func TestDetectFormatFromContent(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`[{"goal":"x"}]`, "json"},
		{"\xef\xbb\xbf  {\"goal\":\"x\"}", "json"},
		{"goal\turl\nx\thttp://a.test/\n", "tsv"},
		{"goal,url\tx\n", "csv"},
		{"goal,url\n", "csv"},
		{"goal\n", "csv"},
		{"", "csv"},
		{"  \n ", "csv"},
	} {
		if got := detectFormat([]byte(c.data), "tasks.txt"); got != c.want {
			t.Errorf("detectFormat(%q) = %s, want %s", c.data, got, c.want)
		}
	}
}
