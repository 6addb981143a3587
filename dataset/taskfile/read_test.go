package taskfile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// rowsOf renders a table's rows as "row/line:col=value,…" and its issues as
// "row/line!reason", in row order.
func rowsOf(tab Table) []string {
	var out []string
	for _, r := range tab.Rows {
		var cells []string
		for _, c := range tab.Columns {
			if v, ok := r.Values[c]; ok {
				s, bad := CellString(v)
				if bad != "" {
					s = "BAD"
				}
				cells = append(cells, c+"="+s)
			}
		}
		out = append(out, fmt.Sprintf("%d/%d:%s", r.Row, r.Line, strings.Join(cells, ",")))
	}
	for _, is := range tab.Issues {
		out = append(out, fmt.Sprintf("%d/%d!%s", is.Row, is.Line, is.Reason))
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Compare(a[:strings.IndexByte(a, '/')], b[:strings.IndexByte(b, '/')])
	})
	return out
}

func TestReadFormats(t *testing.T) {
	cases := []struct {
		name, format, content string
		wantFormat, columns   string
		rows                  []string
	}{
		{"t.jsonl", "", "{\"goal\":\"a\",\"n\":3}\n\n[1]\n{\"url\":\"u\",\"goal\":\"b\",\"l\":[\"x\",\"y\"]}\n", "jsonl", "goal,n,l,url",
			[]string{"1/1:goal=a,n=3", "2/3!not a JSON object: a JSON array, not an object", "3/4:goal=b,l=x|y,url=u"}},
		{"t.json", "", "[\n{\"goal\":\"a\"},\n\"s\",\n{\"goal\":\"b\",\"ok\":true}\n]", "json", "goal,ok",
			[]string{"1/2:goal=a", "2/3!element 2 is a JSON string, not an object", "3/4:goal=b,ok=true"}},
		{"t.json", "", `{"data": [{"goal":"a"}]}`, "json", "goal", []string{"1/0:goal=a"}},
		{"t.json", "", `{"goal":"one"}`, "json", "goal", []string{"1/1:goal=one"}},
		{"t.csv", "", "\xef\xbb\xbfgoal;url\na;http://a.test/\n\nb;c;d\n", "csv", "goal,url",
			[]string{"1/2:goal=a,url=http://a.test/", "2/4!3 fields, but the header has 2 columns"}},
		{"t.txt", "", "goal\turl\na\tb\n", "tsv", "goal,url", []string{"1/2:goal=a,url=b"}},
		{"t.dat", "csv", "goal, \nx,y\n", "csv", "goal,column 2", []string{"1/2:goal=x,column 2=y"}},
	}
	for _, c := range cases {
		tab, err := Read([]byte(c.content), c.name, c.format)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if tab.Format != c.wantFormat || strings.Join(tab.Columns, ",") != c.columns || !slices.Equal(rowsOf(tab), c.rows) {
			t.Errorf("%s %q:\n got %s %v %q\nwant %s %s %q", c.name, c.content, tab.Format, tab.Columns, rowsOf(tab), c.wantFormat, c.columns, c.rows)
		}
	}

	tab, err := Read(sampleParquet(t), "train.parquet", "")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Format != "parquet" || strings.Join(tab.Columns, ",") != "goal,url,category,answers" || len(tab.Rows) != 2 {
		t.Fatalf("parquet: %s %v %v", tab.Format, tab.Columns, rowsOf(tab))
	}
	if s, _ := CellString(tab.Rows[0].Values["answers"]); s != "6650 km" {
		t.Errorf("parquet list cell %q", s)
	}
}

func TestCellString(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
		bad  bool
	}{
		{nil, "", false}, {"x", "x", false}, {[]byte("b"), "b", false}, {json.Number("1e3"), "1e3", false},
		{2.5, "2.5", false}, {float32(0.25), "0.25", false}, {true, "true", false}, {int64(7), "7", false},
		{[]any{" a ", "", nil, 3.0}, "a|3", false}, {map[string]any{"k": 1.0}, `{"k":1}`, false},
		{"caf\xe9", "", true}, {[]any{"ok", "caf\xe9"}, "", true},
	} {
		s, bad := CellString(c.v)
		if s != c.want || (bad != "") != c.bad {
			t.Errorf("CellString(%#v) = %q, %q", c.v, s, bad)
		}
	}
}

// Files made to break the readers get a clear error, never a panic or a
// huge allocation.
func TestReadBadAndHostileFiles(t *testing.T) {
	good := sampleParquet(t)
	hugeFooter := bytes.Clone(good)
	binary.LittleEndian.PutUint32(hugeFooter[len(hugeFooter)-8:], 0xfffffff0)
	cases := []struct {
		name    string
		content []byte
		format  string
		want    string
	}{
		{"empty.jsonl", nil, "", "empty.jsonl is empty"},
		{"bom.json", []byte("\xef\xbb\xbf"), "", "is empty (it holds only a UTF-8 byte-order mark)"},
		{"bom-space.json", []byte("\xef\xbb\xbf \n"), "", "is empty"},
		{"utf16.csv", []byte("\xff\xfeg\x00o\x00"), "", "UTF-16"},
		{"latin1.csv", []byte("goal,url\nCaf\xe9,x\n"), "", "not valid UTF-8 text (first bad byte on line 2, column 4)"},
		{"x.csv", []byte("a,b\n"), "xml", `unknown format "xml"`},
		{"quotes.csv", []byte("goal,url\n\"unclosed,x\nb,c\n"), "", "not valid CSV"},
		{"array.json", []byte(`[{"goal":"x"}, {"goal": }]`), "", "not valid JSON (near line 1)"},
		{"open.json", []byte(`[{"goal":"x"}`), "", "the array is not closed"},
		{"prose.jsonl", []byte("this is\nnot json\n"), "", "not JSON Lines"},
		{"numbers.json", []byte(`[1, 2, "three"]`), "", "each element of the array must be a JSON object with the task's fields"},
		{"fake.parquet", []byte("PAR1 garbage garbage PAR1"), "", "not a readable Parquet file"},
		{"truncated.parquet", good[:len(good)/2], "", "truncated or not a Parquet file"},
		{"footer.parquet", hugeFooter, "", "truncated or not a Parquet file"},
		{"tail.parquet", good[len(good)-20:], "", "truncated or not a Parquet file"},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read(c.content, c.name, c.format)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrImportFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\n   want an ErrImportFile mentioning %q", c.name, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: reading %d bytes allocated %d MB", c.name, len(c.content), grew>>20)
		}
	}
}
