// Package taskfile reads task files (JSON Lines, a JSON array or object,
// CSV with commas or semicolons, TSV, Parquet) into rows of named values.
// It knows nothing of the store: package dataset maps the rows to tasks
// and stores them. Every size a file states about itself is checked before
// it is believed (see parquet.go), so a hostile file gets an error, never a
// panic or a huge allocation.
package taskfile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// RowIssue is a row that was not imported, and why.
type RowIssue struct {
	Row  int    // 1-based data row
	Line int    // line in the file for text formats (0 when not known)
	Goal string // the row's goal, when the importer got that far
	// Reason says what is wrong and, where possible, how to fix it.
	Reason string
}

func (r RowIssue) String() string {
	where := "row " + strconv.Itoa(r.Row)
	if r.Line > 0 {
		where += " (line " + strconv.Itoa(r.Line) + ")"
	}
	return where + ": " + r.Reason
}

// ErrImportFile wraps every reason a whole file cannot be imported (the
// importer then stores nothing).
var ErrImportFile = errors.New("cannot import the file")

func importErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrImportFile, fmt.Sprintf(format, a...))
}

// Table is a task file read into rows of named values.
type Table struct {
	// Format is the format read: jsonl, json, csv, tsv or parquet.
	Format string
	// Columns are the file's columns, in order (for JSON, the keys in the
	// order first seen, each object's new keys sorted).
	Columns []string
	Rows    []Row
	// Issues are the rows that could not even be read.
	Issues []RowIssue
}

// Row is one data row.
type Row struct {
	// Row is the 1-based data row; Line the line in the file for text
	// formats (0 when not known).
	Row, Line int
	// Values maps a column to its cell: a string (CSV, TSV), a decoded
	// JSON value (json.Number for numbers), or a Parquet value.
	Values map[string]any
}

// CellString renders a cell as text (a list is joined with "|"); bad is set for text that is not UTF-8.
func CellString(v any) (s string, bad string) {
	switch x := v.(type) {
	case nil:
		return "", ""
	case string:
		s = x
	case []byte:
		s = string(x)
	case json.Number:
		return x.String(), ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), ""
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), ""
	case bool:
		return strconv.FormatBool(x), ""
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			p, b := CellString(e)
			if b != "" {
				return "", b
			}
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, "|"), ""
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b), ""
	default:
		s = fmt.Sprint(x)
	}
	if !utf8.ValidString(s) {
		return "", "the text is not valid UTF-8; save the file as UTF-8"
	}
	return s, ""
}

// Read reads a task file's rows. name is the file's name, for its
// extension and the messages; format forces "jsonl" (or "ndjson"), "json",
// "csv", "tsv" or "parquet", else it comes from the extension, else from the
// content. When the file as a whole cannot be read the error wraps
// ErrImportFile and says what is wrong.
func Read(data []byte, name, format string) (Table, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Table{}, importErr("%s is empty", name)
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))) == 0 {
		return Table{}, importErr("%s is empty (it holds only a UTF-8 byte-order mark)", name)
	}
	if format == "" {
		format = detectFormat(data, name)
	}
	format = strings.ToLower(format)
	if format == "parquet" {
		return readParquet(data, name)
	}
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}), bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		return Table{}, importErr("%s is UTF-16 text; save it as UTF-8 and import again", name)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line, col := firstInvalidUTF8(data)
		return Table{}, importErr("%s is not valid UTF-8 text (first bad byte on line %d, column %d); save it as UTF-8 and import again", name, line, col)
	}
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') >= 0 {
		// Classic Mac OS line endings (CR only): the lines are CR-separated.
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	}
	switch format {
	case "jsonl", "ndjson":
		return readJSONL(data, name)
	case "json":
		t := bytes.TrimSpace(data)
		if t[0] == '[' {
			return readJSONArray(data, name)
		}
		if tab, err := readJSONObject(data, name); err == nil || errors.Is(err, ErrImportFile) {
			return tab, err
		}
		return readJSONL(data, name)
	case "csv":
		return readCSV(data, name, ',')
	case "tsv":
		return readCSV(data, name, '\t')
	}
	return Table{}, importErr("unknown format %q; use jsonl, json, csv, tsv or parquet", format)
}

func detectFormat(data []byte, name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".json":
		return "json"
	case ".csv":
		return "csv"
	case ".tsv", ".tab":
		return "tsv"
	}
	if bytes.HasPrefix(data, []byte("PAR1")) {
		return "parquet"
	}
	t := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		return "json"
	}
	first, _, _ := bytes.Cut(t, []byte("\n"))
	if bytes.Count(first, []byte("\t")) > 0 && bytes.Count(first, []byte(",")) == 0 {
		return "tsv"
	}
	return "csv"
}

func firstInvalidUTF8(data []byte) (line, col int) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return line, col
}

func (t *Table) addColumns(obj map[string]any) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if !slices.Contains(t.Columns, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	t.Columns = append(t.Columns, keys...)
}

func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a JSON %s, not an object", jsonKind(v))
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

func readJSONL(data []byte, name string) (Table, error) {
	tab := Table{Format: "jsonl"}
	lines := bytes.Split(data, []byte("\n"))
	row, good := 0, 0
	for i, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		row++
		obj, err := decodeObject(l)
		if err != nil {
			tab.Issues = append(tab.Issues, RowIssue{Row: row, Line: i + 1, Reason: "not a JSON object: " + err.Error()})
			continue
		}
		good++
		tab.addColumns(obj)
		tab.Rows = append(tab.Rows, Row{Row: row, Line: i + 1, Values: obj})
	}
	if good == 0 && row > 0 {
		return tab, importErr("%s is not JSON Lines (one JSON object per line): %s", name, tab.Issues[0])
	}
	return tab, nil
}

func readJSONArray(data []byte, name string) (Table, error) {
	tab := Table{Format: "json"}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return tab, importErr("%s is not valid JSON: %v", name, err)
	}
	row := 0
	for dec.More() {
		off := dec.InputOffset()
		var v any
		if err := dec.Decode(&v); err != nil {
			return tab, importErr("%s is not valid JSON (near line %d): %v; fix the file and import again", name, lineAt(data, off), err)
		}
		row++
		start := off
		for start < int64(len(data)) && strings.IndexByte(" \t\r\n,[", data[start]) >= 0 {
			start++
		}
		line := lineAt(data, start)
		obj, ok := v.(map[string]any)
		if !ok {
			tab.Issues = append(tab.Issues, RowIssue{Row: row, Line: line, Reason: fmt.Sprintf("element %d is a JSON %s, not an object", row, jsonKind(v))})
			continue
		}
		tab.addColumns(obj)
		tab.Rows = append(tab.Rows, Row{Row: row, Line: line, Values: obj})
	}
	if _, err := dec.Token(); err != nil {
		return tab, importErr("%s is not valid JSON (the array is not closed): %v", name, err)
	}
	if len(tab.Rows) == 0 && len(tab.Issues) > 0 {
		return tab, importErr(`%s is a JSON array with no object in it (%s); each element of the array must be a JSON object with the task's fields, e.g. [{"goal": "…", "url": "https://…", "category": "navigation"}]`,
			name, tab.Issues[0].Reason)
	}
	return tab, nil
}

// readJSONObject accepts {"data": [ {...}, ... ]}: one key holding the rows.
func readJSONObject(data []byte, name string) (Table, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return Table{}, errors.New("not a single object")
	}
	for _, k := range []string{"data", "rows", "tasks", "examples", "train"} {
		x, present := v[k]
		if arr, ok := x.([]any); ok {
			b, _ := json.Marshal(arr)
			tab, err := readJSONArray(b, name)
			for i := range tab.Rows {
				tab.Rows[i].Line = 0
			}
			return tab, err
		}
		// {"tasks": null} is a manifest without its list, not a task
		// whose field is "tasks"; so is an object with only such a key.
		if present && (k == "tasks" || len(v) == 1) {
			return Table{}, importErr(`%s holds one JSON object whose %q is a JSON %s, not an array of tasks: write {%q: [{"taskId": "…", "goal": "…", "setupUrl": "https://…"}, …]}, or give the tasks as a JSON array`,
				name, k, jsonKind(x), k)
		}
	}
	// A single task object.
	tab := Table{Format: "json"}
	tab.addColumns(v)
	tab.Rows = []Row{{Row: 1, Line: 1, Values: v}}
	return tab, nil
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func readCSV(data []byte, name string, comma rune) (Table, error) {
	tab := Table{Format: "csv"}
	if comma == '\t' {
		tab.Format = "tsv"
	}
	if first, _, _ := bytes.Cut(data, []byte("\n")); comma == ',' && !bytes.ContainsRune(first, ',') && bytes.ContainsRune(first, ';') {
		comma = ';' // spreadsheets in many locales save CSV with semicolons
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return tab, importErr("%s: cannot read the header row: %v", name, err)
	}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			h = "column " + strconv.Itoa(i+1)
		}
		header[i] = h
	}
	tab.Columns = header
	row := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return tab, importErr("%s is not valid CSV: %v; fix the quoting and import again", name, err)
		}
		row++
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			row--
			continue
		}
		if len(rec) > len(header) {
			tab.Issues = append(tab.Issues, RowIssue{Row: row, Line: line, Reason: fmt.Sprintf("%d fields, but the header has %d columns", len(rec), len(header))})
			continue
		}
		vals := make(map[string]any, len(header))
		for i, v := range rec {
			vals[header[i]] = v
		}
		tab.Rows = append(tab.Rows, Row{Row: row, Line: line, Values: vals})
	}
	return tab, nil
}

func readParquet(data []byte, name string) (tab Table, err error) {
	tab.Format = "parquet"
	defer func() {
		if p := recover(); p != nil {
			err = importErr("%s is not a valid Parquet file (%v); check that the file is complete, or save it again", name, p)
		}
	}()
	f, err := openParquet(data)
	if err != nil {
		return tab, importErr("%s is not a readable Parquet file: %v", name, err)
	}
	for _, fl := range f.Schema().Fields() {
		tab.Columns = append(tab.Columns, fl.Name())
	}
	rows := make([]any, f.NumRows())
	reader := parquet.NewGenericReader[any](f)
	n, err := reader.Read(rows)
	reader.Close()
	if err != nil && err != io.EOF {
		return tab, importErr("%s: cannot read its rows (the file is damaged or not a valid Parquet file): %v", name, err)
	}
	for i, r := range rows[:n] {
		obj, ok := r.(map[string]any)
		if !ok {
			tab.Issues = append(tab.Issues, RowIssue{Row: i + 1, Reason: fmt.Sprintf("not a record (%T)", r)})
			continue
		}
		tab.Rows = append(tab.Rows, Row{Row: i + 1, Values: obj})
	}
	return tab, nil
}
