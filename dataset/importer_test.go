package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"waymark/engine/action"
)

func wmCount(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM tasks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func wmIssue(t *testing.T, issues []RowIssue, row int, want string) {
	t.Helper()
	for _, is := range issues {
		if is.Row == row {
			if !strings.Contains(is.Reason, want) {
				t.Errorf("row %d: reason %q, want it to mention %q", row, is.Reason, want)
			}
			return
		}
	}
	t.Errorf("row %d not reported (want %q); reported: %v", row, want, issues)
}

const wmJSONL = `{"id": "t1", "instruction": "What is the population of Lyon?", "website": "wiki.waymark.test/wiki/Lyon", "type": "QA", "answers": ["522,250", "522250"]}
{"id": "t2", "instruction": "Open the returns policy", "website": "http://shop.waymark.test/", "type": "Navigate", "url_pattern": "/returns$"}

{"id": "t3", "instruction": "Switch on dark mode", "website": "http://settings.waymark.test/", "type": "form", "check_js": "document.body.classList.contains('dark')"}
{"id": "t4", "instruction": "   ", "website": "http://shop.waymark.test/", "type": "nav"}
{"id": "t5", "instruction": "Buy socks", "website": "ftp://shop.waymark.test/", "type": "transaction"}
{"id": "t6", "instruction": "Compare prices", "website": "http://shop.waymark.test/", "type": "shopping"}
["not", "an", "object"]
{"id": "t8", "instruction": "Open the returns policy", "website": "http://shop.waymark.test/", "type": "nav"}
{"id": 9, "instruction": "Find the FAQ", "website": "http://shop.waymark.test/", "type": "navigation", "url_pattern": "(faq"}
{"id": 10, "instruction": "Find the FAQ", "website": "http://shop.waymark.test/", "type": ""}
`

func TestImportJSONLines(t *testing.T) {
	s := wmStore(t)
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(wmJSONL), "/data/webtasks.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "jsonl" || rep.Source != "webtasks.jsonl" || rep.Rows != 10 || rep.Imported != 3 {
		t.Fatalf("report: %s, format %s, source %s", rep.Summary(), rep.Format, rep.Source)
	}
	if rep.Mapping[FieldGoal] != "instruction" || rep.Mapping[FieldURL] != "website" || rep.Mapping[FieldCategory] != "type" ||
		rep.Mapping[FieldAnswer] != "answers" || rep.Mapping[FieldID] != "id" {
		t.Fatalf("mapping %v", rep.Mapping)
	}
	wmIssue(t, rep.Skipped, 4, `the goal (column "instruction") is empty`)
	wmIssue(t, rep.Skipped, 5, "expected an HTTP(S) URL")
	wmIssue(t, rep.Skipped, 6, `unknown category "shopping"; accepted: information`)
	wmIssue(t, rep.Skipped, 7, "not a JSON object")
	wmIssue(t, rep.Skipped, 9, "not a valid regular expression")
	wmIssue(t, rep.Skipped, 10, "the category is empty")
	wmIssue(t, rep.Duplicates, 8, "same goal and start URL as row 2")
	for _, is := range rep.Skipped {
		if is.Row == 7 && is.Line != 8 {
			t.Errorf("row 7 is on line 8 (a blank line before it), reported line %d", is.Line)
		}
	}
	if len(rep.Skipped) != 6 || len(rep.Duplicates) != 1 {
		t.Fatalf("skipped %v duplicates %v", rep.Skipped, rep.Duplicates)
	}
	tasks, _ := s.ListTasks(t.Context(), TaskFilter{Source: "webtasks.jsonl"})
	if len(tasks) != 3 {
		t.Fatalf("%d tasks stored", len(tasks))
	}
	byID := map[string]Task{}
	for _, it := range tasks {
		byID[it.SourceID] = it.Task
	}
	lyon := byID["t1"]
	if lyon.Category != Information || lyon.StartURL != "https://wiki.waymark.test/wiki/Lyon" || lyon.Check == nil ||
		lyon.Check.Kind != action.CheckKindAnswer || lyon.Check.Answer != "522,250|522250" || !lyon.Check.MatchAnswer("522250 ") {
		t.Errorf("t1 = %+v check %+v", lyon, lyon.Check)
	}
	if r := byID["t2"]; r.Category != Navigation || r.Check == nil || r.Check.Kind != action.CheckKindURL || r.Check.URL != "/returns$" {
		t.Errorf("t2 = %+v", r)
	}
	if r := byID["t3"]; r.Category != Interaction || r.Check == nil || r.Check.Kind != action.CheckKindJS {
		t.Errorf("t3 = %+v", r)
	}

	// The same file again: every valid row is a duplicate, nothing changes.
	before := wmCount(t, s)
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(wmJSONL), "webtasks.jsonl", ImportOptions{DefaultCategory: "nav"})
	if err != nil {
		t.Fatal(err)
	}
	// With a default category, row 10 now imports.
	if rep.Imported != 1 || len(rep.Duplicates) != 4 || wmCount(t, s) != before+1 {
		t.Fatalf("re-import: %s; duplicates %v", rep.Summary(), rep.Duplicates)
	}
	wmIssue(t, rep.Duplicates, 1, "already stored")
}

func TestImportJSONArrayAndObject(t *testing.T) {
	s := wmStore(t)
	doc := `[
  {"task": "Find the opening hours", "url": "http://wiki.waymark.test/", "category": "information", "expected_answer": "9-17"},
  42,
  {"task": "Open settings", "url": "http://settings.waymark.test/", "category": "Navigation"}
]`
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(doc), "tasks.json", ImportOptions{Source: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "json" || rep.Imported != 2 || rep.Source != "mine" {
		t.Fatalf("%s", rep.Summary())
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Row != 2 || rep.Skipped[0].Line != 3 || !strings.Contains(rep.Skipped[0].Reason, "number, not an object") {
		t.Fatalf("skipped %v", rep.Skipped)
	}
	wrapped := `{"data": [{"prompt": "Find the wiki's main page", "start_url": "http://wiki.waymark.test/x", "task_type": "navigation"}]}`
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(wrapped), "hf.json", ImportOptions{})
	if err != nil || rep.Imported != 1 {
		t.Fatalf("wrapped: %v %s", err, rep.Summary())
	}
}

func TestImportCSVAndTSV(t *testing.T) {
	s := wmStore(t)
	csvDoc := "\xef\xbb\xbfQuestion,Site,Kind,Notes\n" +
		"\"Find the price of \"\"Red Kettle\"\", in euros\",http://shop.waymark.test/,info,\"multi\nline\"\n" +
		"Open the cart,http://shop.waymark.test/,,\n" +
		"Toggle alerts,http://settings.waymark.test/,interactive,x\n"
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(csvDoc), "list.csv", ImportOptions{
		Map: map[string]string{"goal": "question", "url": "SITE", "category": "Kind"}, DefaultCategory: "navigation"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != "csv" || rep.Imported != 3 || len(rep.Skipped) != 0 {
		t.Fatalf("%s %v", rep.Summary(), rep.Skipped)
	}
	if rep.Mapping[FieldGoal] != "Question" || rep.Columns[0] != "Question" {
		t.Fatalf("mapping %v columns %v (the BOM must go)", rep.Mapping, rep.Columns)
	}
	got, ok, _ := s.FindTask(t.Context(), `Find the price of "Red Kettle", in euros`, "http://shop.waymark.test/")
	if !ok || got.Category != Information {
		t.Fatalf("quoted CSV field: %+v %v", got, ok)
	}
	if cart, ok, _ := s.FindTask(t.Context(), "Open the cart", "http://shop.waymark.test/"); !ok || cart.Category != Navigation {
		t.Fatalf("default category: %+v", cart)
	}
	semi := "goal;url;category\nRead the weather;http://wiki.waymark.test/weather;info\n"
	if rep, err := s.ImportTasks(t.Context(), strings.NewReader(semi), "excel.csv", ImportOptions{}); err != nil || rep.Imported != 1 {
		t.Fatalf("semicolon CSV: %v %s %v", err, rep.Summary(), rep.Skipped)
	}
	tsv := "goal\turl\tcategory\nRead the news\thttp://wiki.waymark.test/news\tinformation\nToo\tmany\tfields\there\n"
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(tsv), "x.tsv", ImportOptions{})
	if err != nil || rep.Imported != 1 || rep.Format != "tsv" {
		t.Fatalf("tsv: %v %s", err, rep.Summary())
	}
	wmIssue(t, rep.Skipped, 2, "4 fields, but the header has 3 columns")
	if rep.Skipped[0].Line != 3 {
		t.Fatalf("line %d", rep.Skipped[0].Line)
	}
}

func TestImportParquet(t *testing.T) {
	// Shaped like a Hugging Face dataset of web tasks (WebVoyager's
	// columns), written with parquet-go.
	type row struct {
		ID      string   `parquet:"id"`
		WebName string   `parquet:"web_name"`
		Ques    string   `parquet:"ques"`
		Web     *string  `parquet:"web,optional"`
		Level   int64    `parquet:"level"`
		Answers []string `parquet:"answers,list"`
	}
	str := func(s string) *string { return &s }
	rows := []row{
		{"Allrecipes--0", "Allrecipes", "Find a vegetarian lasagna recipe with at least 100 reviews", str("https://www.allrecipes.com/"), 1, nil},
		{"Wiki--1", "Wikipedia", "How long is the Nile?", str("wiki.waymark.test"), 2, []string{"6,650 km", "6650 km"}},
		{"Broken--2", "Broken", "No site", nil, 1, nil},
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "train-00000-of-00001.parquet")
	os.WriteFile(path, buf.Bytes(), 0o644)
	s := wmStore(t)
	opts := ImportOptions{Map: map[string]string{"goal": "ques"}, DefaultCategory: "information"}
	pre, err := s.PreviewFile(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if wmCount(t, s) != 0 {
		t.Fatal("the preview stored tasks")
	}
	if !pre.Preview || pre.Format != "parquet" || pre.Imported != 2 || strings.Join(pre.Columns, ",") != "id,web_name,ques,web,level,answers" ||
		pre.Mapping[FieldURL] != "web" || pre.Mapping[FieldAnswer] != "answers" || !strings.HasPrefix(pre.Summary(), "would import 2 of 3") {
		t.Fatalf("preview: %s columns %v mapping %v", pre.Summary(), pre.Columns, pre.Mapping)
	}
	wmIssue(t, pre.Skipped, 3, `the start URL (column "web") is empty`)
	rep, err := s.ImportFile(t.Context(), path, opts)
	if err != nil || rep.Imported != 2 || wmCount(t, s) != 2 {
		t.Fatalf("import: %v %s", err, rep.Summary())
	}
	nile, ok, _ := s.FindTask(t.Context(), "How long is the Nile?", "https://wiki.waymark.test")
	if !ok || nile.SourceID != "Wiki--1" || nile.Check == nil || nile.Check.Answer != "6,650 km|6650 km" || nile.Source != "train-00000-of-00001.parquet" {
		t.Fatalf("nile %+v check %+v", nile, nile.Check)
	}
}

func TestImportBadFiles(t *testing.T) {
	s := wmStore(t)
	wmTask(t, s, "already here", Navigation, "http://a.test/")
	dir := t.TempDir()
	cases := []struct {
		name, content string
		opts          ImportOptions
		want          string
	}{
		{"empty.jsonl", "", ImportOptions{}, "is empty"},
		{"blank.csv", "  \n\n ", ImportOptions{}, "is empty"},
		{"latin1.csv", "goal,url,category\nCaf\xe9 menu,http://a.test/,info\n", ImportOptions{}, "not valid UTF-8 text (first bad byte on line 2, column 4)"},
		{"utf16.csv", "\xff\xfeg\x00o\x00", ImportOptions{}, "UTF-16"},
		{"cols.csv", "name,link,kind\nx,http://a.test/,info\n", ImportOptions{}, "no goal column: the file has columns name, link, kind; name one of goal, task, instruction"},
		{"nourl.jsonl", `{"goal":"x","category":"nav"}`, ImportOptions{}, "no start URL column"},
		{"nocat.jsonl", `{"goal":"x","url":"http://a.test/"}`, ImportOptions{}, "no category column"},
		{"map.csv", "a,b\nx,y\n", ImportOptions{Map: map[string]string{"goal": "title"}}, `--map goal=title: the file has no column "title"; its columns are a, b`},
		{"field.csv", "a,b\nx,y\n", ImportOptions{Map: map[string]string{"headline": "a"}}, `unknown field "headline"`},
		{"default.csv", "goal,url\nx,http://a.test/\n", ImportOptions{DefaultCategory: "misc"}, `default category "misc"`},
		{"header.csv", "goal,url,category\n", ImportOptions{}, "has no rows"},
		{"quotes.csv", "goal,url,category\n\"unclosed,http://a.test/,nav\nb,c,d\n", ImportOptions{}, "not valid CSV"},
		{"array.json", `[{"goal":"x","url":"http://a.test/","category":"nav"}, {"goal": }]`, ImportOptions{}, "not valid JSON (near line 1)"},
		{"prose.jsonl", "this is\nnot json\n", ImportOptions{}, "not JSON Lines"},
		{"fake.parquet", "PAR1 garbage garbage PAR1", ImportOptions{}, "not a readable Parquet file"},
	}
	for _, c := range cases {
		before := wmCount(t, s)
		_, err := s.ImportTasks(t.Context(), strings.NewReader(c.content), filepath.Join(dir, c.name), c.opts)
		if !errors.Is(err, ErrImportFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\n   want an ErrImportFile mentioning %q", c.name, err, c.want)
		}
		if wmCount(t, s) != before {
			t.Errorf("%s: the failed import changed the store", c.name)
		}
	}
	if _, err := s.ImportFile(t.Context(), filepath.Join(dir, "missing.csv"), ImportOptions{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := s.ImportFile(t.Context(), dir, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("folder: %v", err)
	}
}

func TestImportIsAllOrNothing(t *testing.T) {
	old := busyTimeoutMS
	busyTimeoutMS = 200
	defer func() { busyTimeoutMS = old }()
	s := wmStore(t)
	release := wmHoldWriteLock(t, s.Path())
	doc := "goal,url,category\na,http://a.test/,nav\nb,http://a.test/,nav\n"
	_, err := s.ImportTasks(t.Context(), strings.NewReader(doc), "x.csv", ImportOptions{})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("import while locked: %v", err)
	}
	release()
	if wmCount(t, s) != 0 {
		t.Fatal("a failed import stored tasks")
	}
	if rep, err := s.ImportTasks(t.Context(), strings.NewReader(doc), "x.csv", ImportOptions{}); err != nil || rep.Imported != 2 {
		t.Fatalf("after release: %v %s", err, rep.Summary())
	}
}

func TestNormalizeCategory(t *testing.T) {
	cases := map[string]string{
		"Information": Information, " info ": Information, "QA": Information, "question-answering": Information, "Question Answering": Information,
		"nav": Navigation, "Navigate": Navigation, "NAVIGATION": Navigation, "browse": Navigation,
		"interact": Interaction, "Interaction": Interaction, "action": Interaction, "Form": Interaction, "transaction": Interaction,
		"": "", "shopping": "", "information retrieval system": "",
	}
	for in, want := range cases {
		got, ok := NormalizeCategory(in)
		if got != want || ok != (want != "") {
			t.Errorf("NormalizeCategory(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// wmParquet is a small valid task file in Parquet.
func wmParquet(t testing.TB) []byte {
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

// TestImportHostileFiles: files made to break the reader get a clear
// error, never a panic or a huge allocation.
func TestImportHostileFiles(t *testing.T) {
	s := wmStore(t)
	good := wmParquet(t)
	if rep, err := s.PreviewImport(t.Context(), bytes.NewReader(good), "ok.parquet", ImportOptions{}); err != nil || rep.Imported != 2 {
		t.Fatalf("the valid Parquet file: %v %s", err, rep.Summary())
	}
	hugeFooter := bytes.Clone(good)
	binary.LittleEndian.PutUint32(hugeFooter[len(hugeFooter)-8:], 0xfffffff0)
	cases := []struct {
		name    string
		content []byte
		want    string
	}{
		{"bom.json", []byte("\xef\xbb\xbf"), "is empty"},
		{"bom-space.json", []byte("\xef\xbb\xbf \n"), "is empty"},
		{"bom.jsonl", []byte("\xef\xbb\xbf"), "is empty"},
		{"bom.csv", []byte("\xef\xbb\xbf"), "is empty"},
		{"numbers.json", []byte(`[1, 2, "three"]`), "each element of the array must be a JSON object with the task's fields"},
		{"truncated.parquet", good[:len(good)/2], "truncated or not a Parquet file"},
		{"footer.parquet", hugeFooter, "truncated or not a Parquet file"},
		{"tail.parquet", good[len(good)-20:], "truncated or not a Parquet file"},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := s.PreviewImport(t.Context(), bytes.NewReader(c.content), c.name, ImportOptions{})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrImportFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\n   want an ErrImportFile mentioning %q", c.name, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: reading %d bytes allocated %d MB", c.name, len(c.content), grew>>20)
		}
	}
}
