package app

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/parquet-go/parquet-go"

	"waymark/dataset/hfexport"
	"waymark/ui/exporttab"
)

// Hostile input, one table per entry point, one subtest per row: what was
// given and what the user is told. Each row drives the real command in
// process (tasks import, play with a real headless Chromium, export) or the
// real Export tab. Rows that were bugs once are marked "was:".

// hostileParquet is a valid two-row task file in Parquet.
func hostileParquet(t *testing.T) []byte {
	type row struct {
		Goal     string `parquet:"goal"`
		URL      string `parquet:"url"`
		Category string `parquet:"category"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{{"Open the cart", "http://shop.waymark.test/", "nav"}, {"Find the FAQ", "http://shop.waymark.test/", "nav"}}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestHostileTaskFiles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	pq := hostileParquet(t)
	hugeFooter := bytes.Clone(pq)
	binary.LittleEndian.PutUint32(hugeFooter[len(hugeFooter)-8:], 0xfffffff0)
	os.Mkdir(filepath.Join(dir, "folder.csv"), 0o755)
	rows := []struct {
		name, file string
		content    []byte
		code       int    // exit code
		want       string // in stdout or stderr
	}{
		// was: index out of range in the importer (a panic)
		{"BOM only, .json", "bom.json", []byte("\xef\xbb\xbf"), 1, "is empty (it holds only a UTF-8 byte-order mark)"},
		{"BOM only, .csv", "bom.csv", []byte("\xef\xbb\xbf\n"), 1, "is empty (it holds only a UTF-8 byte-order mark)"},
		// was: bytes.Reader.ReadAt: negative offset
		{"truncated Parquet", "cut.parquet", pq[:len(pq)/2], 1, "the file is truncated or not a Parquet file: it does not end with PAR1"},
		// was: a 4 GB allocation from the footer's length
		{"Parquet footer length 4 GB", "footer.parquet", hugeFooter, 1, "its footer says 4294967280 bytes of metadata, but the file has only"},
		{"Parquet tail only", "tail.parquet", pq[len(pq)-12:], 1, "does not start with PAR1"},
		// was: "the file has columns none"
		{"JSON array of numbers", "nums.json", []byte(`[1, 2, "three"]`), 1, "each element of the array must be a JSON object with the task's fields"},
		{"JSON array of arrays", "arrays.json", []byte(`[["goal","url"]]`), 1, "element 1 is a JSON array, not an object"},
		{"empty file", "empty.jsonl", nil, 1, "is empty"},
		{"only spaces", "blank.csv", []byte(" \n\t\n"), 1, "is empty"},
		{"CSV named .parquet", "tasks.parquet", []byte("goal,url,category\nx,http://a.test/,nav\n"), 1, "does not start with PAR1"},
		{"Parquet named .json", "tasks.json", pq, 1, "is not valid UTF-8 text"},
		{"Parquet named .csv", "tasks.csv", pq, 1, "is not valid UTF-8 text"},
		{"UTF-16 CSV", "u16.csv", []byte("\xff\xfeg\x00o\x00a\x00l\x00"), 1, "is UTF-16 text; save it as UTF-8"},
		{"Latin-1 CSV", "latin1.csv", []byte("goal,url,category\nCaf\xe9,http://a.test/,nav\n"), 1, "not valid UTF-8 text (first bad byte on line 2, column 4)"},
		{"NUL bytes only", "nul.csv", bytes.Repeat([]byte{0}, 64), 1, `has no rows (columns found: "\x00\x00`},
		{"NUL in a JSON line", "nul.jsonl", []byte("{\"goal\":\"x\",\"url\":\"http://a.test/\",\"category\":\"nav\"}\x00\n"), 1, "not JSON Lines"},
		{"prose", "notes.jsonl", []byte("buy milk\nand eggs\n"), 1, "not JSON Lines (one JSON object per line)"},
		{"unclosed JSON array", "open.json", []byte(`[{"goal":"x","url":"http://a.test/","category":"nav"}`), 1, "not valid JSON"},
		{"unclosed CSV quote", "quote.csv", []byte("goal,url,category\n\"x,http://a.test/,nav\n"), 1, "not valid CSV"},
		{"huge goal", "huge.jsonl", []byte(`{"goal":"` + strings.Repeat("g", 100_000) + `","url":"http://a.test/","category":"nav"}` + "\n" + `{"goal":"ok","url":"http://a.test/","category":"nav"}`), 0, "the goal is 100000 characters long, at most"},
		{"javascript: start URL", "js.csv", []byte("goal,url,category\nx,javascript:alert(1),nav\ny,http://a.test/,nav\n"), 0, "expected an HTTP(S) URL without credentials"},
		{"URL with a password", "cred.csv", []byte("goal,url,category\nx,http://u:p@a.test/,nav\ny,http://a.test/,nav\n"), 0, "expected an HTTP(S) URL without credentials"},
		{"unknown category", "cat.csv", []byte("goal,url,category\nx,http://a.test/,shopping\ny,http://a.test/,nav\n"), 0, `unknown category "shopping"`},
		{"no goal column", "cols.csv", []byte("name,link\nx,http://a.test/\n"), 1, "no goal column: the file has columns name, link"},
		{"folder", "folder.csv", nil, 1, "is a folder"},
		{"missing file", "missing.csv", nil, 1, "does not exist"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			path := filepath.Join(dir, r.file)
			if r.content != nil || r.name == "empty file" {
				if err := os.WriteFile(path, r.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, out, errs := tasksRun(t, "--db", db, "tasks", "import", path, "--dry-run")
			runtime.ReadMemStats(&after)
			if code != r.code || !strings.Contains(out+errs, r.want) {
				t.Errorf("exit %d (want %d)\nstdout %s\nstderr %s\nwant %q", code, r.code, out, errs, r.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("importing %d bytes allocated %d MB", len(r.content), grew>>20)
			}
		})
	}
}

func TestHostilePlayLines(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<title>form</title><body style="margin:0"><input autofocus style="width:800px;height:600px"></body>`)
	}))
	defer site.Close()
	rows := []struct {
		name, line, want string
	}{
		// was: the second object silently dropped
		{"two actions on one line", `{"op":"wait"}{"op":"finish","text":"too soon"}`, "Invalid JSON: Extra data: line 1 column 14 (char 13)"},
		{"an action and junk", `{"op":"wait"} x`, "Extra data"},
		// was: the whole episode aborted with bufio.Scanner: token too long
		{"10 MB line", `{"op":"type","text":"` + strings.Repeat("a", 10<<20) + `"}`, "more than the 1048576 a line may have"},
		// was: refused as "greater than or equal to 0"
		{"x = 1e30", `{"op":"click","x":1e30,"y":5}`, "x: Input should be less than 800"},
		{"y = -1e30", `{"op":"click","x":5,"y":-1e30}`, "y: Input should be greater than or equal to 0"},
		{"x = 2^64", `{"op":"click","x":18446744073709551616,"y":5}`, "x: Input should be less than 800"},
		{"dy = 1e400", `{"op":"scroll","dy":1e400}`, "dy: Input should be a finite number"},
		// was: typed as U+FFFD
		{"invalid UTF-8 in text", "{\"op\":\"type\",\"text\":\"caf\xe9\"}", "not valid UTF-8"},
		{"NUL byte after the action", "{\"op\":\"wait\"}\x00", "Extra data"},
		{"negative x", `{"op":"click","x":-5,"y":5}`, "x: Input should be greater than or equal to 0"},
		{"x = 800", `{"op":"click","x":800,"y":5}`, "x: Input should be less than 800"},
		{"NaN", `{"op":"click","x":NaN,"y":5}`, "Invalid JSON"},
		{"fractional x", `{"op":"click","x":1.5,"y":5}`, "got a number with a fractional part"},
		{"x as text", `{"op":"click","x":"left","y":5}`, "unable to parse string as an integer"},
		{"unknown op", `{"op":"hover","x":1,"y":1}`, "op: Input should be 'click', 'type', 'key', 'scroll', 'back', 'wait' or 'finish'"},
		{"no op", `{"x":1,"y":1}`, "op: Field required"},
		{"unknown field", `{"op":"wait","speed":3}`, "speed: Extra inputs are not permitted"},
		{"click without y", `{"op":"click","x":1}`, "click needs x and y"},
		{"empty type", `{"op":"type","text":""}`, "type needs text"},
		{"text of 2001 characters", `{"op":"type","text":"` + strings.Repeat("é", 2001) + `"}`, "String should have at most 2000 characters"},
		{"unsupported key", `{"op":"key","text":"F5"}`, "unsupported key"},
		{"scroll 5000", `{"op":"scroll","dy":5000}`, "dy: Input should be less than or equal to 1200"},
		{"extended op in the default set", `{"op":"goto","url":"http://a.test/"}`, "is an extended action; this episode uses the default action set"},
		{"metadata not an object", `{"op":"wait","metadata":[1]}`, "metadata: Input should be a valid dictionary"},
		{"a JSON array", `[{"op":"wait"}]`, "Input should be a valid dictionary or object"},
		{"a JSON string", `"click"`, "Input should be a valid dictionary or object"},
		{"not JSON", `click 10,10`, "Invalid JSON"},
	}
	lines := make([]string, 0, len(rows)+1)
	for _, r := range rows {
		lines = append(lines, r.line)
	}
	// After every refusal the episode goes on: this line runs.
	lines = append(lines, `{"op":"finish","text":"still here"}`)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"play", "--start-url", site.URL + "/", "--display", "headless", "--max-steps", "5"},
		strings.NewReader(strings.Join(lines, "\n")+"\n"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	refusals := map[int]playRefusal{}
	var last map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		if _, ok := m["line"]; ok {
			var ref playRefusal
			json.Unmarshal([]byte(l), &ref)
			refusals[ref.Line] = ref
			continue
		}
		last = m
	}
	for i, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			ref, ok := refusals[i+1]
			if !ok || !strings.Contains(ref.Error, r.want) {
				t.Errorf("line %d: refusal %+v, want one saying %q", i+1, ref, r.want)
			}
		})
	}
	if last["done"] != true || last["answer"] != "still here" || last["step"] != 1.0 {
		t.Errorf("the episode did not go on to the last line: %v", last)
	}
}

func TestHostileExportLicence(t *testing.T) {
	db := filepath.Join(t.TempDir(), "w.db")
	test.NewTempApp(t)
	tab := exporttab.New(nil)
	rows := []struct {
		name, licence string
		ok            bool
		want          string
	}{
		// was: any text went into the card's license: field
		{"free text", "CC BY", false, `"CC BY" is not a Hugging Face licence id (one the Hub accepts in a dataset card); use one such as cc-by-4.0`},
		{"licence name with spaces", "CC BY 4.0", false, `"CC BY 4.0" is not a Hugging Face licence id (one the Hub accepts in a dataset card) (did you mean "cc-by-4.0"?)`},
		{"made-up id", "foo-1.0", false, `"foo-1.0" is not a Hugging Face licence id (one the Hub accepts in a dataset card); use one such as cc-by-4.0`},
		{"SPDX spelling", "CC-BY-4.0 ", true, ""},
		{"mit", "mit", true, ""},
		{"other", "other", true, ""},
		{"odc-by", "odc-by", true, ""},
		{"YAML injection", "mit\nconfigs: []", false, "is not a Hugging Face licence id (one the Hub accepts in a dataset card)"},
		{"empty", " ", false, "choose"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			code, _, errs := tasksRun(t, "--db", db, "export", "--out", filepath.Join(t.TempDir(), "ds"), "--license", r.licence, "--quiet")
			if r.ok {
				if strings.Contains(errs, "licen") || code == 2 {
					t.Errorf("export --license %q: exit %d %s", r.licence, code, errs)
				}
			} else if code != 2 || !strings.Contains(errs, r.want) {
				t.Errorf("export --license %q: exit %d %q, want exit 2 saying %q", r.licence, code, errs, r.want)
			}
			_, err := tabOptions(t, tab, r.licence)
			if r.ok != (err == nil) || (!r.ok && !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(r.want))) {
				t.Errorf("Export tab with licence %q: %v", r.licence, err)
			}
		})
	}
}

// tabOptions types a folder and the licence into the Export tab's form, as a
// person would, and reads the options the Export button would use.
func tabOptions(t *testing.T, tab *exporttab.Tab, licence string) (any, error) {
	t.Helper()
	var form *widget.Form
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Form:
			form = w
		case *container.Scroll:
			walk(w.Content)
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		}
	}
	walk(tab.Content())
	if form == nil {
		t.Fatal("no form in the Export tab")
	}
	var sel *widget.SelectEntry
	for _, it := range form.Items {
		switch it.Text {
		case "Folder":
			for _, c := range it.Widget.(*fyne.Container).Objects {
				if e, ok := c.(*widget.Entry); ok {
					e.SetText(filepath.Join(t.TempDir(), "ds"))
				}
			}
		case "Licence":
			sel = it.Widget.(*widget.SelectEntry)
		}
	}
	if sel == nil {
		t.Fatal("no licence field in the Export tab")
	}
	sel.SetText(licence)
	if err := sel.Validate(); (err == nil) != (strings.TrimSpace(licence) == "" || tabLicenceOK(licence)) {
		t.Errorf("the licence field's validator says %v for %q", err, licence)
	}
	return tab.Options()
}

func hfexportLicences() []string { return hfexport.HubLicenses }

func tabLicenceOK(l string) bool {
	for _, h := range hfexportLicences() {
		if strings.EqualFold(strings.TrimSpace(l), h) {
			return true
		}
	}
	return false
}
