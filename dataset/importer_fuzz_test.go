package dataset

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// The task file readers get arbitrary bytes in each format. Whatever the
// input: no panic (a recovered one shows as "runtime error" in the message),
// an error that wraps ErrImportFile and says something, every row accounted
// for, only valid tasks, and no allocation out of proportion to the input.
// Seeds: the f.Add calls below and testdata/fuzz/FuzzImportXxx/.

func fuzzImport(f *testing.F, format, ext string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	s := wmStore(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		// With and without a default category, one of them per input.
		opts := ImportOptions{Format: format}
		if len(data)%2 == 1 {
			opts.DefaultCategory = "information"
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := s.PreviewImport(bytes.NewReader(data), "tasks."+ext, opts)
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
		if got := rep.Imported + len(rep.Skipped) + len(rep.Duplicates); got != rep.Rows {
			t.Fatalf("%d rows read, %d imported + %d skipped + %d duplicates", rep.Rows, rep.Imported, len(rep.Skipped), len(rep.Duplicates))
		}
		if rep.Imported != len(rep.Tasks) {
			t.Fatalf("imported %d, %d tasks", rep.Imported, len(rep.Tasks))
		}
		for _, task := range rep.Tasks {
			c := task
			if err := ValidateTask(&c); err != nil || !utf8.ValidString(task.Goal) || task.Goal == "" {
				t.Fatalf("task %+v passed the import but: %v", task, err)
			}
		}
		for _, is := range rep.Skipped {
			if is.Reason == "" || is.Row < 1 {
				t.Fatalf("skipped row without a reason: %+v", is)
			}
		}
	})
}

func FuzzImportJSONL(f *testing.F) {
	fuzzImport(f, "jsonl", "jsonl",
		wmJSONL,
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
	f.Add(wmParquet(f))
	fuzzImport(f, "parquet", "parquet", "PAR1 garbage garbage PAR1", "PAR1\x00\x00\x00\x00PAR1")
}
