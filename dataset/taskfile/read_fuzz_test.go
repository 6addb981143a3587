package taskfile

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// The task file readers get arbitrary bytes in each format. Whatever the
// input: no panic (a recovered one shows as "runtime error" in the message),
// an error that wraps ErrImportFile and says something, every row accounted
// for once with a reason when it could not be read, cells that render as
// valid UTF-8 or say why not, and no allocation out of proportion to the
// input. (That the rows then make only valid tasks is the importer's part,
// tested in package dataset.) Seeds: the f.Add calls below and
// testdata/fuzz/FuzzImportXxx/.

func fuzzImport(f *testing.F, format, ext string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tab, err := Read(data, "tasks."+ext, format)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20+uint64(len(data))*64 {
			t.Fatalf("reading %d bytes allocated %d MB", len(data), grew>>20)
		}
		if err != nil {
			msg := err.Error()
			if !errors.Is(err, ErrImportFile) || strings.Contains(msg, "runtime error") || strings.Contains(msg, "negative offset") ||
				len(strings.TrimPrefix(msg, ErrImportFile.Error()+": ")) < 10 {
				t.Fatalf("error %q", msg)
			}
			return
		}
		seen := map[int]bool{}
		for _, is := range tab.Issues {
			if is.Reason == "" || is.Row < 1 || seen[is.Row] {
				t.Fatalf("unread row without a reason, or counted twice: %+v", is)
			}
			seen[is.Row] = true
		}
		for _, r := range tab.Rows {
			if r.Row < 1 || seen[r.Row] {
				t.Fatalf("row %d numbered wrong or counted twice", r.Row)
			}
			seen[r.Row] = true
			for col, v := range r.Values {
				if s, bad := CellString(v); bad == "" && !utf8.ValidString(s) {
					t.Fatalf("row %d column %q: %q is not UTF-8 and not reported", r.Row, col, s)
				}
			}
		}
	})
}

// sampleParquet is a small valid task file in Parquet.
func sampleParquet(t testing.TB) []byte {
	t.Helper()
	type row struct {
		Goal     string   `parquet:"goal"`
		URL      string   `parquet:"url"`
		Category string   `parquet:"category"`
		Answers  []string `parquet:"answers,list"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{
		{"How long is the Nile?", "http://wiki.waymark.test/", "qa", []string{"6650 km"}},
		{"Open the cart", "http://shop.waymark.test/", "nav", nil},
	}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sampleJSONL has good rows, rows that make no task, and a line that is no
// object.
const sampleJSONL = `{"id": "t1", "instruction": "What is the population of Lyon?", "website": "wiki.waymark.test/wiki/Lyon", "type": "QA", "answers": ["522,250", "522250"]}
{"id": "t2", "instruction": "Open the returns policy", "website": "http://shop.waymark.test/", "type": "Navigate", "url_pattern": "/returns$"}

{"id": "t3", "instruction": "Switch on dark mode", "website": "http://settings.waymark.test/", "type": "form", "check_js": "document.body.classList.contains('dark')"}
{"id": "t4", "instruction": "   ", "website": "http://shop.waymark.test/", "type": "nav"}
["not", "an", "object"]
{"id": 9, "instruction": "Find the FAQ", "website": "http://shop.waymark.test/", "type": "navigation", "url_pattern": "(faq"}
`

func FuzzImportJSONL(f *testing.F) {
	fuzzImport(f, "jsonl", "jsonl",
		sampleJSONL,
		"\xef\xbb\xbf",
		`{"goal":"a","url":"http://a.test/","category":"nav"}{"goal":"b"}`,
		`{"goal":"a","url":"a.test","category":"qa","answers":[1,"x",null,{"k":[]}]}`,
		"{\"goal\":\"\x00\",\"url\":\"http://a.test/\",\"category\":\"nav\"}\n[]\n\"s\"\n1e999\n",
	)
}

func FuzzImportJSON(f *testing.F) {
	fuzzImport(f, "json", "json",
		`[{"goal":"x","url":"http://a.test/","category":"nav"}, {"goal": "y", "url": "b.test/p", "type": "info", "answer": 3}]`,
		`{"data": [{"task":"x","website":"http://a.test/","category":"form","check_js":"true"}]}`,
		`{"goal":"one task","url":"http://a.test/","category":"navigation","url_pattern":"(x"}`,
		`[1, 2, "three"]`,
		"\xef\xbb\xbf",
		`[`,
		`{"rows": {}}`,
	)
}

func FuzzImportCSV(f *testing.F) {
	fuzzImport(f, "csv", "csv",
		"Question,Site,Kind,answer\nHow tall?,http://wiki.waymark.test/tower,qa,324 m\nOpen the cart,shop.waymark.test,nav,\n",
		"goal;url;category\nx;http://a.test/;nav\n",
		"goal,url,category\n\"unclosed,http://a.test/,nav\n",
		",,\n,,\n",
		"goal,url,category,goal\na,http://a.test/,nav,b,extra\n",
	)
}

func FuzzImportTSV(f *testing.F) {
	fuzzImport(f, "tsv", "tsv",
		"goal\turl\tcategory\nx\thttp://a.test/\tnav\ny\tb.test\tinformation\n",
		"goal\turl\n\"x\t\n",
		"\t\t\n\t\n",
	)
}

func FuzzImportParquet(f *testing.F) {
	f.Add(sampleParquet(f))
	fuzzImport(f, "parquet", "parquet", "PAR1 garbage garbage PAR1", "PAR1\x00\x00\x00\x00PAR1")
}
