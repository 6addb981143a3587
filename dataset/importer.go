package dataset

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"waymark/dataset/taskfile"
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
//	reference_time reference_time   the page's clock at reset, RFC 3339 with an offset (2024-03-15T10:30:00+01:00)
//	timezone    timezone, timezoneId, timezone_id, time_zone   an IANA name (Europe/Berlin)
//	locale      locale      a BCP 47 tag (de-DE)
//	redact      redact, redaction   the task's redaction policy: off, default, or a policy as a JSON object
//
// ImportOptions.Map overrides any of them (field → column; an empty column:
// none, not even a recognised one). A row without the column found for a
// field (a JSON row whose keys are other synonyms) uses its own synonym.
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
	// FieldReferenceTime, FieldTimezone and FieldLocale set the page's
	// clock, time zone and locale (Task.ReferenceTime, Timezone, Locale).
	FieldReferenceTime = "reference_time"
	FieldTimezone      = "timezone"
	FieldLocale        = "locale"
	// FieldRedact is the task's own redaction policy (Task.Redact).
	FieldRedact = "redact"
)

// ImportFields lists the fields in the order reports show them.
var ImportFields = []string{FieldGoal, FieldURL, FieldCategory, FieldAnswer, FieldURLPattern, FieldCheckJS, FieldID, FieldKeepSecrets,
	FieldReferenceTime, FieldTimezone, FieldLocale, FieldRedact}

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
	// timezoneId and locale are the keys of BrowserGym-style manifests.
	FieldReferenceTime: {"reference_time"},
	FieldTimezone:      {"timezone", "timezoneid", "timezone_id", "time_zone"},
	FieldLocale:        {"locale"},
	FieldRedact:        {"redact", "redaction"},
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
	// Map names the file's column for a field (FieldGoal, FieldURL, …; "start_url" is accepted for url);
	// "" gives the field no column.
	Map map[string]string
	// Source is stored with each task; default: the file's base name.
	Source string
	// DefaultCategory is used for rows with an empty category.
	DefaultCategory string
	// Format forces "jsonl", "json", "csv", "tsv" or "parquet"; default:
	// from the extension, else from the content.
	Format string
	// BaseURL resolves a BrowserGym-style manifest's relative setupUrl
	// (see manifest.go).
	BaseURL string
}

// RowIssue is a row that was not imported, and why.
type RowIssue = taskfile.RowIssue

// ImportReport says what an import did, or what a preview would do.
type ImportReport struct {
	File    string
	Format  string
	Source  string
	Columns []string          // the file's columns, in order
	Mapping map[string]string // field → the column used ("" when absent)
	// Used lists per field every column some row was read through, in
	// the file's column order: the mapped column, and in a file whose rows
	// name a field differently (instruction in one, task in the next) each
	// synonym a row used instead. Empty for a manifest.
	Used map[string][]string
	Rows int // data rows read
	// Tasks are the imported tasks (in a preview: those that would be).
	Tasks      []Task
	Imported   int
	Skipped    []RowIssue // rows that cannot become a task
	Duplicates []RowIssue // rows whose goal and start URL are already stored or earlier in the file
	ByCategory map[string]int
	Preview    bool
}

// Unused are the file's columns no row was read through, in order.
func (r ImportReport) Unused() []string {
	var out []string
	for _, c := range r.Columns {
		used := false
		for _, cols := range r.Used {
			used = used || slices.Contains(cols, c)
		}
		for _, m := range r.Mapping { // a manifest's columns, a --map column no row has
			used = used || m == c
		}
		if !used {
			out = append(out, c)
		}
	}
	return out
}

// noteUsed adds the columns row tr is read through (mapping m) to r.Used.
func (r *ImportReport) noteUsed(tr taskfile.Row, m map[string]string) {
	for f, col := range m {
		if _, has := tr.Values[col]; !has || col == "" || slices.Contains(r.Used[f], col) {
			continue
		}
		if r.Used == nil {
			r.Used = map[string][]string{}
		}
		r.Used[f] = append(r.Used[f], col)
		slices.SortStableFunc(r.Used[f], func(a, b string) int {
			return slices.Index(r.Columns, a) - slices.Index(r.Columns, b)
		})
	}
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
var ErrImportFile = taskfile.ErrImportFile

// MaxImportRows is the most rows a Parquet task file may have.
const MaxImportRows = taskfile.MaxRows

func importErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrImportFile, fmt.Sprintf(format, a...))
}

// MissingColumnError is the error (it wraps ErrImportFile) when no column
// gives a field every task needs: FieldGoal, FieldURL, or FieldCategory
// when there is no default category. Its text speaks to the command line;
// a screen can say it in its own words from Field.
type MissingColumnError struct {
	Field string
	err   error
}

func (e *MissingColumnError) Error() string { return e.err.Error() }
func (e *MissingColumnError) Unwrap() error { return e.err }

func missingColumn(field, format string, a ...any) error {
	return &MissingColumnError{Field: field, err: importErr(format, a...)}
}

// ReasonNoCategory is the RowIssue.Reason of a row whose category is empty
// when there is no default category.
const ReasonNoCategory = "the category is empty; give a default category (--default-category information|navigation|interaction)"

// ImportFile imports the tasks of a file on disk (see ImportTasks).
func (s *Store) ImportFile(ctx context.Context, path string, opts ImportOptions) (ImportReport, error) {
	f, err := openImportFile(path)
	if err != nil {
		return ImportReport{File: path}, err
	}
	defer f.Close()
	return s.ImportTasks(ctx, f, path, opts)
}

// PreviewFile is PreviewImport of a file on disk.
func (s *Store) PreviewFile(ctx context.Context, path string, opts ImportOptions) (ImportReport, error) {
	f, err := openImportFile(path)
	if err != nil {
		return ImportReport{File: path}, err
	}
	defer f.Close()
	return s.PreviewImport(ctx, f, path, opts)
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
func (s *Store) PreviewImport(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportReport, error) {
	rep, err := s.planImport(ctx, r, name, opts)
	rep.Preview = true
	return rep.ImportReport, err
}

// ImportTasks reads a task file (name gives its file name, for the format
// and the default source) and stores every row that makes a valid task, all
// in one transaction. Rows that cannot become a task, and tasks already
// stored (same goal and start URL), are reported, not imported. When the file
// as a whole cannot be read the error wraps ErrImportFile and nothing is
// stored.
func (s *Store) ImportTasks(ctx context.Context, r io.Reader, name string, opts ImportOptions) (ImportReport, error) {
	plan, err := s.planImport(ctx, r, name, opts)
	rep := plan.ImportReport
	if err != nil || len(rep.Tasks) == 0 {
		return rep, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return rep, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO tasks (id, goal, category, start_url, source, source_id, check_json, keep_secrets, reference_time, timezone, locale, archived, created_at, updated_at, manifest_json, grader_key, redact)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?) ON CONFLICT (goal, start_url, grader_key) DO NOTHING`)
	if err != nil {
		return rep, fmt.Errorf("nothing was imported: %w", s.explainWriteError(err))
	}
	defer ins.Close()
	ts := now()
	kept := rep.Tasks[:0]
	for i, t := range rep.Tasks {
		cj, _ := checkJSON(t.Check)
		res, err := ins.ExecContext(ctx, t.ID, t.Goal, t.Category, t.StartURL, t.Source, t.SourceID, cj, t.KeepSecrets,
			refTimeValue(t.ReferenceTime), t.Timezone, t.Locale, ts, ts, manifestJSON(t.Manifest), graderKey(t), t.Redact)
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

// plannedImport is a report with, for each task, its data row.
type plannedImport struct {
	ImportReport
	rowOf []int
}

func (s *Store) planImport(ctx context.Context, r io.Reader, name string, opts ImportOptions) (plannedImport, error) {
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
	tab, err := taskfile.Read(data, name, opts.Format)
	if err != nil {
		return rep, err
	}
	rep.Format, rep.Columns, rep.Rows = tab.Format, tab.Columns, len(tab.Rows)+len(tab.Issues)
	rep.Skipped = append(rep.Skipped, tab.Issues...)
	if rep.Rows == 0 {
		return rep, importErr("%s has no rows (columns found: %s)", name, listOrNone(tab.Columns))
	}
	explicit := map[string]bool{}
	for f := range opts.Map {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "start_url" {
			f = FieldURL
		}
		explicit[f] = true
	}
	toTask := func(tr taskfile.Row) (Task, string) { return rowTask(tr, rowMapping(tr, rep.Mapping, explicit), def) }
	if taskfile.IsManifest(tab.Columns) && len(opts.Map) == 0 { // a BrowserGym-style manifest: see manifest.go
		rep.Format, rep.Mapping = "manifest", manifestMapping(tab.Columns)
		toTask = func(tr taskfile.Row) (Task, string) { return manifestTask(tr, def, opts.BaseURL) }
	} else if err := resolveColumns(&rep.ImportReport, tab.Columns, opts.Map); err != nil {
		return rep, err
	}
	if rep.Mapping[FieldCategory] == "" && def == "" && rep.Format != "manifest" {
		return rep, missingColumn(FieldCategory, "%s has no category column (found: %s); name one %s, give --map category=COLUMN, or give a default category (--default-category information|navigation|interaction)",
			name, listOrNone(tab.Columns), strings.Join(ColumnAliases[FieldCategory], ", "))
	}
	exists, err := s.db.PrepareContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.goal=? AND t.start_url=? ORDER BY t.archived`)
	if err != nil {
		return rep, err
	}
	defer exists.Close()
	seen := map[string]int{}
	same := "same goal and start URL"
	if rep.Format == "manifest" {
		same = "same goal, start URL, taskId, validateScript and answer"
	}
	for _, tr := range tab.Rows {
		if rep.Format != "manifest" {
			rep.noteUsed(tr, rowMapping(tr, rep.Mapping, explicit))
		}
		t, issue := toTask(tr)
		if issue != "" {
			rep.Skipped = append(rep.Skipped, RowIssue{Row: tr.Row, Line: tr.Line, Goal: t.Goal, Reason: issue})
			continue
		}
		key := taskIdentity(t)
		if first, ok := seen[key]; ok {
			rep.Duplicates = append(rep.Duplicates, RowIssue{Row: tr.Row, Line: tr.Line, Goal: t.Goal,
				Reason: fmt.Sprintf("%s as row %d", same, first)})
			continue
		}
		seen[key] = tr.Row
		stored, err := storedTwin(ctx, exists, t)
		if err != nil {
			return rep, err
		}
		if stored != nil {
			reason := "already stored"
			if stored.Archived {
				reason = "already stored (archived)"
			}
			rep.Duplicates = append(rep.Duplicates, RowIssue{Row: tr.Row, Line: tr.Line, Goal: t.Goal, Reason: reason})
			continue
		}
		t.ID = uuid.NewString()
		t.Source = rep.Source
		rep.Tasks = append(rep.Tasks, t)
		rep.rowOf = append(rep.rowOf, tr.Row)
		rep.ByCategory[t.Category]++
	}
	sort.SliceStable(rep.Skipped, func(i, j int) bool { return rep.Skipped[i].Row < rep.Skipped[j].Row })
	rep.Imported = len(rep.Tasks)
	return rep, nil
}

// taskIdentity is what makes an imported task the same as another: its
// goal and start URL, and for a manifest task its grader too (two graders
// of one page are two tasks).
func taskIdentity(t Task) string {
	return t.Goal + "\x00" + t.StartURL + "\x00" + graderKey(t)
}

// graderKey is tasks.grader_key: for a manifest task a hash of its taskId,
// validate script and answer, "" for any other task.
func graderKey(t Task) string {
	m := t.Manifest
	if m == nil {
		return ""
	}
	h := sha256.New()
	for _, s := range []string{t.SourceID, m.ValidateScript, m.Answer} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return "m:" + hex.EncodeToString(h.Sum(nil))
}

// storedTwin returns the stored task an imported task t is the same as
// (by taskIdentity; a plain row is the same as any task with its goal and
// start URL), or nil. query selects the tasks with t's goal and start URL.
func storedTwin(ctx context.Context, query *sql.Stmt, t Task) (*Task, error) {
	rows, err := query.QueryContext(ctx, t.Goal, t.StartURL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		o, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		if t.Manifest == nil || (o.Manifest != nil && taskIdentity(o) == taskIdentity(t)) {
			return &o, nil
		}
	}
	return nil, rows.Err()
}
