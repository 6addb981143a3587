package dataset

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"waymark/dataset/taskfile"
	"waymark/engine/action"
)

// How an imported file's columns are found for each field (ColumnAliases,
// ImportOptions.Map) and how each row becomes a task (see importer.go).

// Column lists in messages show at most listedColumns names of at most
// listedNameRunes characters each, so a file with 100,000 columns or a
// megabyte-long header still gets a message one can read.
const (
	listedColumns   = 20
	listedNameRunes = 60
)

func listOrNone(cols []string) string {
	if len(cols) == 0 {
		return "none"
	}
	shown := make([]string, 0, min(len(cols), listedColumns))
	for _, c := range cols[:min(len(cols), listedColumns)] {
		if r := []rune(c); len(r) > listedNameRunes {
			c = string(r[:listedNameRunes]) + fmt.Sprintf("… (%d characters)", len(r))
		}
		if strings.IndexFunc(c, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			c = strconv.Quote(c) // NUL and control characters shown, not sent to the terminal
		}
		shown = append(shown, c)
	}
	if len(cols) > listedColumns {
		return fmt.Sprintf("%s and %d more (%d columns)", strings.Join(shown, ", "), len(cols)-listedColumns, len(cols))
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
	none := map[string]bool{}
	for field, col := range explicit {
		f := strings.ToLower(strings.TrimSpace(field))
		if f == "start_url" {
			f = FieldURL
		}
		if !slices.Contains(ImportFields, f) {
			return importErr("--map %s=%s: unknown field %q; the fields are %s", field, col, field, strings.Join(ImportFields, ", "))
		}
		if strings.TrimSpace(col) == "" {
			none[f] = true
			continue
		}
		c, ok := byLower[strings.ToLower(strings.TrimSpace(col))]
		if !ok {
			return importErr("--map %s=%s: the file has no column %q; its columns are %s", field, col, col, listOrNone(columns))
		}
		rep.Mapping[f] = c
	}
	for _, f := range ImportFields {
		if rep.Mapping[f] != "" || none[f] {
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
		return missingColumn(FieldGoal, "no goal column: the file has columns %s; name one of %s, or give --map goal=COLUMN",
			listOrNone(columns), strings.Join(ColumnAliases[FieldGoal], ", "))
	}
	if rep.Mapping[FieldURL] == "" {
		return missingColumn(FieldURL, "no start URL column: the file has columns %s; name one of %s, or give --map url=COLUMN",
			listOrNone(columns), strings.Join(ColumnAliases[FieldURL], ", "))
	}
	return nil
}

// rowMapping is the file's mapping for one row: a field whose column was
// found by its name (not given with --map) and that this row lacks (a JSON
// row without that key) takes the row's own key among the field's
// synonyms, so a file whose rows name fields differently (instruction and
// type in one, goal and category in the next) is read as each row says.
func rowMapping(tr taskfile.Row, mapping map[string]string, explicit map[string]bool) map[string]string {
	var m map[string]string
	for _, f := range ImportFields {
		col := mapping[f]
		if explicit[f] || col == "" {
			continue
		}
		if _, has := tr.Values[col]; has {
			continue
		}
		for _, alias := range ColumnAliases[f] {
			key, ok := rowKey(tr, alias)
			if !ok {
				continue
			}
			if m == nil {
				m = maps.Clone(mapping)
			}
			if slices.Contains(mappedColumns(m), key) {
				continue
			}
			m[f] = key
			break
		}
	}
	if m == nil {
		return mapping
	}
	return m
}

// rowKey finds the row's key named name, case-insensitively.
func rowKey(tr taskfile.Row, name string) (string, bool) {
	if _, ok := tr.Values[name]; ok {
		return name, true
	}
	for _, k := range slices.Sorted(maps.Keys(tr.Values)) {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return k, true
		}
	}
	return "", false
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
func rowTask(tr taskfile.Row, mapping map[string]string, defCategory string) (Task, string) {
	get := func(field string) (string, string) {
		col := mapping[field]
		if col == "" {
			return "", ""
		}
		v, bad := taskfile.CellString(tr.Values[col])
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
		return t, ReasonNoCategory
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
	if rt, _ := get(FieldReferenceTime); rt != "" {
		at, err := ParseReferenceTime(rt)
		if err != nil {
			return t, fmt.Sprintf("column %q: %v", mapping[FieldReferenceTime], err)
		}
		t.ReferenceTime = &at
	}
	t.Timezone, _ = get(FieldTimezone)
	if err := ValidateTimezone(t.Timezone); err != nil {
		return t, fmt.Sprintf("column %q: %v", mapping[FieldTimezone], err)
	}
	t.Locale, _ = get(FieldLocale)
	if err := ValidateLocale(t.Locale); err != nil {
		return t, fmt.Sprintf("column %q: %v", mapping[FieldLocale], err)
	}
	t.Redact, _ = get(FieldRedact)
	if _, _, err := TaskPolicy(t); err != nil {
		return t, fmt.Sprintf("column %q: %v", mapping[FieldRedact], err)
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
