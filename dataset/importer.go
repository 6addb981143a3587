package dataset

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"

	"waymark/engine/action"
)

// Task import: JSON Lines, a JSON array, CSV (comma or semicolon) or TSV with a header row, and
// Parquet (for example a Hugging Face dataset's file).
//
// Columns are found by name, case-insensitively, first match wins:
//
//	goal        goal, task, instruction, intent, question, prompt, confirmed_task, ques
//	url         url, start_url, website, web, start_page
//	category    category, type, task_type, task_category
//	answer      answer, expected_answer, answers, reference_answer   → check kind "answer"
//	url_pattern url_pattern, url_regex                                → check kind "url"
//	check_js    check_js, js_check                                    → check kind "js"
//	id          id, task_id, source_id                                → kept as the task's SourceID
//	keep_secrets keep_secrets   true/false, 1/0, yes/no: keep the text typed into password and payment fields
//
// ImportOptions.Map overrides any of them (field → column).
//
// Category values are normalised (case, spaces, '-' and '_' ignored):
//
//	information  ← information, info, informational, qa, question, question answering, retrieval, lookup
//	navigation   ← navigation, nav, navigate, navigational, browse, browsing, find page, locate
//	interaction  ← interaction, interact, interactive, action, actions, form, forms, transaction, transactional, operation
//
// An empty category takes ImportOptions.DefaultCategory; without one the row
// is skipped. Any other value skips the row, naming the value and the
// accepted ones. A start URL without a scheme that looks like a host name
// ("amazon.com/deals") gets "https://". A list of answers is joined with "|"
// (alternatives). When a row has several checks, the one that fits its
// category wins (answer for information, url_pattern for navigation, check_js
// for interaction), else the first of answer, url_pattern, check_js.

// Import fields.
const (
	FieldGoal       = "goal"
	FieldURL        = "url"
	FieldCategory   = "category"
	FieldAnswer     = "answer"
	FieldURLPattern = "url_pattern"
	FieldCheckJS    = "check_js"
	FieldID         = "id"
	// FieldKeepSecrets opts a task out of redaction (Task.KeepSecrets).
	FieldKeepSecrets = "keep_secrets"
)

// ImportFields lists the fields in the order reports show them.
var ImportFields = []string{FieldGoal, FieldURL, FieldCategory, FieldAnswer, FieldURLPattern, FieldCheckJS, FieldID, FieldKeepSecrets}

// ColumnAliases are the column names recognised for each field, in order of
// preference.
var ColumnAliases = map[string][]string{
	FieldGoal:        {"goal", "task", "instruction", "intent", "question", "prompt", "confirmed_task", "ques"},
	FieldURL:         {"url", "start_url", "website", "web", "start_page"},
	FieldCategory:    {"category", "type", "task_type", "task_category"},
	FieldAnswer:      {"answer", "expected_answer", "answers", "reference_answer"},
	FieldURLPattern:  {"url_pattern", "url_regex"},
	FieldCheckJS:     {"check_js", "js_check"},
	FieldID:          {"id", "task_id", "source_id"},
	FieldKeepSecrets: {"keep_secrets"},
}

var categoryWords = map[string]string{}

func init() {
	for cat, words := range map[string][]string{
		Information: {"information", "info", "informational", "qa", "question", "questionanswering", "retrieval", "lookup"},
		Navigation:  {"navigation", "nav", "navigate", "navigational", "browse", "browsing", "findpage", "locate"},
		Interaction: {"interaction", "interact", "interactive", "action", "actions", "form", "forms", "transaction", "transactional", "operation"},
	} {
		for _, w := range words {
			categoryWords[w] = cat
		}
	}
}

// NormalizeCategory maps a category value of an imported file to one of
// Categories (see the rules above); ok is false for unknown or empty values.
func NormalizeCategory(v string) (string, bool) {
	k := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(v)))
	c, ok := categoryWords[k]
	return c, ok
}

// ImportOptions tune an import.
type ImportOptions struct {
	// Map names the file's column for a field (FieldGoal, FieldURL, …; "start_url" is accepted for url).
	Map map[string]string
	// Source is stored with each task; default: the file's base name.
	Source string
	// DefaultCategory is used for rows with an empty category.
	DefaultCategory string
	// Format forces "jsonl", "json", "csv", "tsv" or "parquet"; default:
	// from the extension, else from the content.
	Format string
}

// RowIssue is a row that was not imported, and why.
type RowIssue struct {
	Row  int // 1-based data row
	Line int // line in the file for text formats (0 when not known)
	Goal string
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

// ImportReport says what an import did, or what a preview would do.
type ImportReport struct {
	File    string
	Format  string
	Source  string
	Columns []string          // the file's columns, in order
	Mapping map[string]string // field → the column used ("" when absent)
	Rows    int               // data rows read
	// Tasks are the imported tasks (in a preview: those that would be).
	Tasks      []Task
	Imported   int
	Skipped    []RowIssue // rows that cannot become a task
	Duplicates []RowIssue // rows whose goal and start URL are already stored or earlier in the file
	ByCategory map[string]int
	Preview    bool
}

// Summary is a one-line account, e.g. "imported 28 of 31 rows (2 skipped, 1 duplicate)".
func (r ImportReport) Summary() string {
	verb := "imported"
	if r.Preview {
		verb = "would import"
	}
	return fmt.Sprintf("%s %d of %d rows from %s (%d skipped, %d duplicates)", verb, r.Imported, r.Rows, r.File, len(r.Skipped), len(r.Duplicates))
}

// ErrImportFile wraps every reason a whole file cannot be imported; nothing
// is stored then.
var ErrImportFile = errors.New("cannot import the file")

func importErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrImportFile, fmt.Sprintf(format, a...))
}

// ImportFile imports the tasks of a file on disk (see ImportTasks).
func (s *Store) ImportFile(path string, opts ImportOptions) (ImportReport, error) {
	f, err := openImportFile(path)
	if err != nil {
		return ImportReport{File: path}, err
	}
	defer f.Close()
	return s.ImportTasks(f, path, opts)
}

// PreviewFile is PreviewImport of a file on disk.
func (s *Store) PreviewFile(path string, opts ImportOptions) (ImportReport, error) {
	f, err := openImportFile(path)
	if err != nil {
		return ImportReport{File: path}, err
	}
	defer f.Close()
	return s.PreviewImport(f, path, opts)
}

func openImportFile(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, importErr("%s does not exist; check the path", path)
		}
		return nil, importErr("cannot read %s: %v", path, err)
	}
	if fi.IsDir() {
		return nil, importErr("%s is a folder; give the task file inside it (.jsonl, .json, .csv or .parquet)", path)
	}
	if IsStoreFile(path) {
		// Opening it here would drop the open store's locks (see IsStoreFile).
		return nil, importErr("%s is the Waymark database in use, not a task file; choose a .jsonl, .json, .csv, .tsv or .parquet file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, importErr("cannot read %s: %v; check its permissions", path, err)
	}
	return f, nil
}

// PreviewImport reads a task file and says what ImportTasks would do (the
// column mapping, the tasks, the rows skipped and why, the duplicates)
// without writing anything.
func (s *Store) PreviewImport(r io.Reader, name string, opts ImportOptions) (ImportReport, error) {
	rep, err := s.planImport(r, name, opts)
	rep.Preview = true
	return rep.ImportReport, err
}

// ImportTasks reads a task file (name gives its file name, for the format
// and the default source) and stores every row that makes a valid task, all
// in one transaction. Rows that cannot become a task, and tasks already
// stored (same goal and start URL), are reported, not imported. When the file
// as a whole cannot be read the error wraps ErrImportFile and nothing is
// stored.
func (s *Store) ImportTasks(r io.Reader, name string, opts ImportOptions) (ImportReport, error) {
	plan, err := s.planImport(r, name, opts)
	rep := plan.ImportReport
	if err != nil || len(rep.Tasks) == 0 {
		return rep, err
	}
	tx, err := s.db.Begin()
	if err != nil {
		return rep, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO tasks (id, goal, category, start_url, source, source_id, check_json, keep_secrets, archived, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,0,?,?) ON CONFLICT (goal, start_url) DO NOTHING`)
	if err != nil {
		return rep, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
	}
	defer ins.Close()
	ts := now()
	kept := rep.Tasks[:0]
	for i, t := range rep.Tasks {
		cj, _ := checkJSON(t.Check)
		res, err := ins.Exec(t.ID, t.Goal, t.Category, t.StartURL, t.Source, t.SourceID, cj, t.KeepSecrets, ts, ts)
		if err != nil {
			return ImportReport{File: rep.File}, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
		}
		if n, _ := res.RowsAffected(); n == 0 { // stored by another program meanwhile
			rep.Duplicates = append(rep.Duplicates, RowIssue{Row: plan.rowOf[i], Goal: t.Goal, Reason: "already stored"})
			rep.ByCategory[t.Category]--
			continue
		}
		t.CreatedAt, t.UpdatedAt = ParseTime(ts), ParseTime(ts)
		kept = append(kept, t)
	}
	if err := tx.Commit(); err != nil {
		return ImportReport{File: rep.File}, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
	}
	rep.Tasks = kept
	rep.Imported = len(kept)
	return rep, nil
}

// table is a file read into rows of named values.
type table struct {
	format  string
	columns []string
	rows    []tableRow
	issues  []RowIssue // rows that could not even be read
}

type tableRow struct {
	row, line int
	values    map[string]any
}

// plannedImport is a report with, for each task, its data row.
type plannedImport struct {
	ImportReport
	rowOf []int
}

func (s *Store) planImport(r io.Reader, name string, opts ImportOptions) (plannedImport, error) {
	rep := plannedImport{ImportReport: ImportReport{File: name, Mapping: map[string]string{}, ByCategory: map[string]int{}}}
	rep.Source = opts.Source
	if rep.Source == "" {
		rep.Source = filepath.Base(name)
	}
	def := ""
	if opts.DefaultCategory != "" {
		c, ok := NormalizeCategory(opts.DefaultCategory)
		if !ok {
			return rep, importErr("the default category %q is not one of %s", opts.DefaultCategory, strings.Join(Categories, ", "))
		}
		def = c
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return rep, importErr("cannot read %s: %v", name, err)
	}
	tab, err := readTable(data, name, opts.Format)
	if err != nil {
		return rep, err
	}
	rep.Format, rep.Columns, rep.Rows = tab.format, tab.columns, len(tab.rows)+len(tab.issues)
	rep.Skipped = append(rep.Skipped, tab.issues...)
	if rep.Rows == 0 {
		return rep, importErr("%s has no rows (columns found: %s)", name, listOrNone(tab.columns))
	}
	if err := resolveColumns(&rep.ImportReport, tab.columns, opts.Map); err != nil {
		return rep, err
	}
	if rep.Mapping[FieldCategory] == "" && def == "" {
		return rep, importErr("%s has no category column (found: %s); name one %s, give --map category=COLUMN, or give a default category (--default-category information|navigation|interaction)",
			name, listOrNone(tab.columns), strings.Join(ColumnAliases[FieldCategory], ", "))
	}
	exists, err := s.db.Prepare(`SELECT archived FROM tasks WHERE goal=? AND start_url=?`)
	if err != nil {
		return rep, err
	}
	defer exists.Close()
	seen := map[string]int{}
	for _, tr := range tab.rows {
		t, issue := rowTask(tr, rep.Mapping, def)
		if issue != "" {
			rep.Skipped = append(rep.Skipped, RowIssue{Row: tr.row, Line: tr.line, Goal: t.Goal, Reason: issue})
			continue
		}
		key := t.Goal + "\x00" + t.StartURL
		if first, ok := seen[key]; ok {
			rep.Duplicates = append(rep.Duplicates, RowIssue{Row: tr.row, Line: tr.line, Goal: t.Goal,
				Reason: fmt.Sprintf("same goal and start URL as row %d", first)})
			continue
		}
		seen[key] = tr.row
		var archived bool
		switch err := exists.QueryRow(t.Goal, t.StartURL).Scan(&archived); {
		case err == nil:
			reason := "already stored"
			if archived {
				reason = "already stored (archived)"
			}
			rep.Duplicates = append(rep.Duplicates, RowIssue{Row: tr.row, Line: tr.line, Goal: t.Goal, Reason: reason})
			continue
		case !errors.Is(err, sql.ErrNoRows):
			return rep, err
		}
		t.ID = uuid.NewString()
		t.Source = rep.Source
		rep.Tasks = append(rep.Tasks, t)
		rep.rowOf = append(rep.rowOf, tr.row)
		rep.ByCategory[t.Category]++
	}
	sort.SliceStable(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Row < rep.Skipped[j].Row })
	rep.Imported = len(rep.Tasks)
	return rep, nil
}

func listOrNone(cols []string) string {
	if len(cols) == 0 {
		return "none"
	}
	shown := make([]string, len(cols))
	for i, c := range cols {
		shown[i] = c
		if strings.IndexFunc(c, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			shown[i] = strconv.Quote(c) // NUL and control characters shown, not sent to the terminal
		}
	}
	return strings.Join(shown, ", ")
}

// resolveColumns fills rep.Mapping from the explicit map, then the aliases.
func resolveColumns(rep *ImportReport, columns []string, explicit map[string]string) error {
	byLower := map[string]string{}
	for _, c := range columns {
		if _, dup := byLower[strings.ToLower(strings.TrimSpace(c))]; !dup {
			byLower[strings.ToLower(strings.TrimSpace(c))] = c
		}
	}
	for field, col := range explicit {
		f := strings.ToLower(strings.TrimSpace(field))
		if f == "start_url" {
			f = FieldURL
		}
		if !slices.Contains(ImportFields, f) {
			return importErr("--map %s=%s: unknown field %q; the fields are %s", field, col, field, strings.Join(ImportFields, ", "))
		}
		c, ok := byLower[strings.ToLower(strings.TrimSpace(col))]
		if !ok {
			return importErr("--map %s=%s: the file has no column %q; its columns are %s", field, col, col, listOrNone(columns))
		}
		rep.Mapping[f] = c
	}
	for _, f := range ImportFields {
		if rep.Mapping[f] != "" {
			continue
		}
		for _, alias := range ColumnAliases[f] {
			if c, ok := byLower[alias]; ok && !slices.Contains(mappedColumns(rep.Mapping), c) {
				rep.Mapping[f] = c
				break
			}
		}
	}
	if rep.Mapping[FieldGoal] == "" {
		return importErr("no goal column: the file has columns %s; name one of %s, or give --map goal=COLUMN",
			listOrNone(columns), strings.Join(ColumnAliases[FieldGoal], ", "))
	}
	if rep.Mapping[FieldURL] == "" {
		return importErr("no start URL column: the file has columns %s; name one of %s, or give --map url=COLUMN",
			listOrNone(columns), strings.Join(ColumnAliases[FieldURL], ", "))
	}
	return nil
}

func mappedColumns(m map[string]string) []string {
	var out []string
	for _, c := range m {
		out = append(out, c)
	}
	return out
}

var hostLike = regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:\d+)?(/.*)?$`)

// rowTask turns a row into a task, or says why it cannot.
func rowTask(tr tableRow, mapping map[string]string, defCategory string) (Task, string) {
	get := func(field string) (string, string) {
		col := mapping[field]
		if col == "" {
			return "", ""
		}
		v, bad := cellString(tr.values[col])
		if bad != "" {
			return "", fmt.Sprintf("column %q: %s", col, bad)
		}
		return strings.TrimSpace(v), ""
	}
	var t Task
	for _, f := range ImportFields {
		if _, bad := get(f); bad != "" {
			return t, bad
		}
	}
	t.Goal, _ = get(FieldGoal)
	if t.Goal == "" {
		return t, fmt.Sprintf("the goal (column %q) is empty", mapping[FieldGoal])
	}
	u, _ := get(FieldURL)
	if u == "" {
		return t, fmt.Sprintf("the start URL (column %q) is empty", mapping[FieldURL])
	}
	if !strings.Contains(u, "://") && hostLike.MatchString(u) {
		u = "https://" + u
	}
	t.StartURL = u
	rawCat, _ := get(FieldCategory)
	switch c, ok := NormalizeCategory(rawCat); {
	case ok:
		t.Category = c
	case rawCat == "" && defCategory != "":
		t.Category = defCategory
	case rawCat == "":
		return t, "the category is empty; give a default category (--default-category information|navigation|interaction)"
	default:
		return t, fmt.Sprintf("unknown category %q; accepted: information (info, qa, question…), navigation (nav, navigate, browse…), interaction (interact, action, form, transaction…)", rawCat)
	}
	t.SourceID, _ = get(FieldID)
	switch ks, _ := get(FieldKeepSecrets); strings.ToLower(ks) {
	case "", "0", "false", "no", "off":
	case "1", "true", "yes", "on":
		t.KeepSecrets = true
	default:
		return t, fmt.Sprintf("column %q: %q is not a yes or no; write true or false", mapping[FieldKeepSecrets], ks)
	}
	answer, _ := get(FieldAnswer)
	pattern, _ := get(FieldURLPattern)
	js, _ := get(FieldCheckJS)
	checks := map[string]*action.Check{}
	if answer != "" {
		checks[Information] = &action.Check{Kind: action.CheckKindAnswer, Answer: answer}
	}
	if pattern != "" {
		checks[Navigation] = &action.Check{Kind: action.CheckKindURL, URL: pattern}
	}
	if js != "" {
		checks[Interaction] = &action.Check{Kind: action.CheckKindJS, JS: js}
	}
	if c, ok := checks[t.Category]; ok {
		t.Check = c
	} else {
		for _, cat := range Categories {
			if c, ok := checks[cat]; ok {
				t.Check = c
				break
			}
		}
	}
	if err := ValidateTask(&t); err != nil {
		return t, strings.TrimPrefix(err.Error(), ErrInvalidTask.Error()+": ")
	}
	return t, ""
}

// cellString renders a cell as text; bad is set for text that is not UTF-8.
func cellString(v any) (s string, bad string) {
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
			p, b := cellString(e)
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

// readTable reads the file's rows in its format.
func readTable(data []byte, name, format string) (table, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return table{}, importErr("%s is empty", name)
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))) == 0 {
		return table{}, importErr("%s is empty (it holds only a UTF-8 byte-order mark)", name)
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
		return table{}, importErr("%s is UTF-16 text; save it as UTF-8 and import again", name)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line, col := firstInvalidUTF8(data)
		return table{}, importErr("%s is not valid UTF-8 text (first bad byte on line %d, column %d); save it as UTF-8 and import again", name, line, col)
	}
	switch format {
	case "jsonl", "ndjson":
		return readJSONL(data, name)
	case "json":
		t := bytes.TrimSpace(data)
		if t[0] == '[' {
			return readJSONArray(data, name)
		}
		if tab, err := readJSONObject(data, name); err == nil {
			return tab, nil
		}
		return readJSONL(data, name)
	case "csv":
		return readCSV(data, name, ',')
	case "tsv":
		return readCSV(data, name, '\t')
	}
	return table{}, importErr("unknown format %q; use jsonl, json, csv, tsv or parquet", format)
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

func (t *table) addColumns(obj map[string]any) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if !slices.Contains(t.columns, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	t.columns = append(t.columns, keys...)
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

func readJSONL(data []byte, name string) (table, error) {
	tab := table{format: "jsonl"}
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
			tab.issues = append(tab.issues, RowIssue{Row: row, Line: i + 1, Reason: "not a JSON object: " + err.Error()})
			continue
		}
		good++
		tab.addColumns(obj)
		tab.rows = append(tab.rows, tableRow{row: row, line: i + 1, values: obj})
	}
	if good == 0 && row > 0 {
		return tab, importErr("%s is not JSON Lines (one JSON object per line): %s", name, tab.issues[0])
	}
	return tab, nil
}

func readJSONArray(data []byte, name string) (table, error) {
	tab := table{format: "json"}
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
			tab.issues = append(tab.issues, RowIssue{Row: row, Line: line, Reason: fmt.Sprintf("element %d is a JSON %s, not an object", row, jsonKind(v))})
			continue
		}
		tab.addColumns(obj)
		tab.rows = append(tab.rows, tableRow{row: row, line: line, values: obj})
	}
	if _, err := dec.Token(); err != nil {
		return tab, importErr("%s is not valid JSON (the array is not closed): %v", name, err)
	}
	if len(tab.rows) == 0 && len(tab.issues) > 0 {
		return tab, importErr(`%s is a JSON array with no object in it (%s); each element of the array must be a JSON object with the task's fields, e.g. [{"goal": "…", "url": "https://…", "category": "navigation"}]`,
			name, tab.issues[0].Reason)
	}
	return tab, nil
}

// readJSONObject accepts {"data": [ {...}, ... ]}: one key holding the rows.
func readJSONObject(data []byte, name string) (table, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return table{}, errors.New("not a single object")
	}
	for _, k := range []string{"data", "rows", "tasks", "examples", "train"} {
		if arr, ok := v[k].([]any); ok {
			b, _ := json.Marshal(arr)
			tab, err := readJSONArray(b, name)
			for i := range tab.rows {
				tab.rows[i].line = 0
			}
			return tab, err
		}
	}
	// A single task object.
	tab := table{format: "json"}
	tab.addColumns(v)
	tab.rows = []tableRow{{row: 1, line: 1, values: v}}
	return tab, nil
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func readCSV(data []byte, name string, comma rune) (table, error) {
	tab := table{format: "csv"}
	if comma == '\t' {
		tab.format = "tsv"
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
	tab.columns = header
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
			tab.issues = append(tab.issues, RowIssue{Row: row, Line: line, Reason: fmt.Sprintf("%d fields, but the header has %d columns", len(rec), len(header))})
			continue
		}
		vals := make(map[string]any, len(header))
		for i, v := range rec {
			vals[header[i]] = v
		}
		tab.rows = append(tab.rows, tableRow{row: row, line: line, values: vals})
	}
	return tab, nil
}

func readParquet(data []byte, name string) (tab table, err error) {
	tab.format = "parquet"
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
		tab.columns = append(tab.columns, fl.Name())
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
			tab.issues = append(tab.issues, RowIssue{Row: i + 1, Reason: fmt.Sprintf("not a record (%T)", r)})
			continue
		}
		tab.rows = append(tab.rows, tableRow{row: i + 1, values: obj})
	}
	return tab, nil
}
