package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"waymark/dataset/taskfile"
	"waymark/engine"
	"waymark/engine/action"
)

// BrowserGym-style task manifests (pi-chrome's task-manifest.json) import
// as tasks: ImportTasks recognises one by its keys (taskfile.IsManifest)
// and maps each entry so:
//
//	taskId (else id)         → Task.SourceID
//	goal (else the text of goalObject's messages) → Task.Goal
//	setupUrl (else startUrl) → Task.StartURL; $SEED and ${SEED} become the seed (0 without
//	                           one), $RUN_ID and ${RUN_ID} become "waymark"; a relative
//	                           address is resolved against ImportOptions.BaseURL
//	locale, timezoneId       → Task.Locale, Task.Timezone
//	category, tags           → Task.Category (see manifestCategory)
//	answer (Waymark's)       → an answer check
//	validateScript           → run in the page at the episode's end (and after each step
//	                           with validateEachStep: true); its reward is the automatic
//	                           hint with the check's, the result episodes.validate_json
//	viewport                 → must be 800×600 at scale 1 (Waymark's), else refused
//	the rest (seed, goalObject, cheatScript, maxSteps, tags, difficulty, humanBaseline,
//	actionSubsets, allowedActions, other keys) → kept in Task.Manifest (tasks.manifest_json)

// Manifest is a task's BrowserGym-style manifest fields (nil for tasks not
// imported from a manifest).
type Manifest = taskfile.Manifest

// manifestRunID replaces $RUN_ID in a manifest's start URL: a task's start
// URL is fixed, and each episode gets a fresh browser profile anyway.
const manifestRunID = "waymark"

// infoActions are the actions of a task that only reads and answers.
var infoActions = []string{"send_msg_to_user", "report_infeasible", "noop", "scroll", "scroll_at", "goto", "go_back",
	"go_forward", "tab_focus", "new_tab", "tab_close", "hover", "mouse_move", "focus"}

// manifestCategory finds a manifest task's Waymark category: its category
// value when Waymark knows it (information, navigation, interaction or a
// synonym, see NormalizeCategory), else the first tag Waymark knows, else
// the default category, else inferred: information when it has an answer,
// or allowedActions that only read and answer (send_msg_to_user, scroll,
// goto, go_back, …); otherwise interaction, since a manifest task is graded
// by its validate script on the state of the page the person changes.
func manifestCategory(m *Manifest, def string) string {
	if c, ok := NormalizeCategory(m.Category); ok {
		m.CategoryFrom = "category"
		return c
	}
	for _, t := range m.Tags {
		if c, ok := NormalizeCategory(t); ok {
			m.CategoryFrom = "tags"
			return c
		}
	}
	if def != "" {
		m.CategoryFrom = "default"
		return def
	}
	m.CategoryFrom = "inferred"
	if m.Answer != "" {
		return Information
	}
	if len(m.AllowedActions) > 0 && slices.Contains(m.AllowedActions, "send_msg_to_user") {
		reads := true
		for _, a := range m.AllowedActions {
			reads = reads && slices.Contains(infoActions, a)
		}
		if reads {
			return Information
		}
	}
	return Interaction
}

// manifestStartURL fills the placeholders and resolves a relative address.
func manifestStartURL(m *Manifest, base string) (string, string, error) {
	field, u := "setupUrl", m.SetupURL
	if u == "" {
		field, u = "startUrl", m.StartURL
	}
	if u == "" {
		return field, "", errors.New("the task has no setupUrl (nor startUrl): give the page the task starts on")
	}
	seed := "0"
	if m.Seed != nil {
		seed = strconv.FormatInt(*m.Seed, 10)
	}
	u = strings.NewReplacer("${SEED}", seed, "$SEED", seed, "${RUN_ID}", manifestRunID, "$RUN_ID", manifestRunID).Replace(u)
	if ref, err := url.Parse(u); err == nil && ref.Scheme != "" && ref.Scheme != "http" && ref.Scheme != "https" {
		// javascript:, data:, file:, about:… are no page a task can
		// start on (nor relative addresses).
		shown := u
		if len(shown) > 80 {
			shown = strings.ToValidUTF8(shown[:80], "") + "…"
		}
		return field, "", fmt.Errorf("%q is a %s: address, not a web page: a task starts on an http or https address", shown, ref.Scheme)
	}
	if strings.Contains(u, "://") {
		return field, u, nil
	}
	if base == "" {
		return field, "", fmt.Errorf("%q is a relative address; give the address the manifest's pages are served at (waymark tasks import FILE --base-url http://127.0.0.1:8765/)", u)
	}
	b, err := url.Parse(base)
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" {
		return field, "", fmt.Errorf("the base URL %q is not an http(s) address", base)
	}
	ref, err := url.Parse(u)
	if err != nil {
		return field, "", fmt.Errorf("%q is not an address: %v", u, err)
	}
	return field, b.ResolveReference(ref).String(), nil
}

// manifestTask turns a manifest entry into a task, or says why it cannot
// (naming the task and the field).
func manifestTask(tr taskfile.Row, def, base string) (Task, string) {
	m, err := taskfile.ParseManifest(tr)
	if err != nil {
		return Task{Goal: m.Goal}, err.Error()
	}
	name := m.Name(tr.Row)
	t := Task{Goal: m.Goal, SourceID: m.TaskID, Locale: m.Locale, Timezone: m.TimezoneID}
	if t.SourceID == "" {
		t.SourceID = m.ID
	}
	if strings.TrimSpace(t.Goal) == "" {
		return t, fmt.Sprintf("task %s, field goal: the task has no goal (nor goalObject text); write what the person should do", name)
	}
	field, u, err := manifestStartURL(&m, base)
	if err != nil {
		return t, fmt.Sprintf("task %s, field %s: %v", name, field, err)
	}
	t.StartURL = u
	if err := ValidateTimezone(t.Timezone); err != nil {
		return t, fmt.Sprintf("task %s, field timezoneId: %v", name, err)
	}
	if err := ValidateLocale(t.Locale); err != nil {
		return t, fmt.Sprintf("task %s, field locale: %v", name, err)
	}
	t.Category = manifestCategory(&m, def)
	if m.Answer != "" {
		t.Check = &action.Check{Kind: action.CheckKindAnswer, Answer: m.Answer}
	}
	if m.ValidateEachStep && m.ValidateScript == "" {
		return t, fmt.Sprintf("task %s, field validateEachStep: there is no validateScript to run", name)
	}
	if err := ValidateTask(&t); err != nil {
		return t, fmt.Sprintf("task %s: %s", name, strings.TrimPrefix(err.Error(), ErrInvalidTask.Error()+": "))
	}
	t.Manifest = &m
	return t, ""
}

// manifestMapping is the report's field → key mapping of a manifest.
func manifestMapping(columns []string) map[string]string {
	has := func(k string) string {
		for _, c := range columns {
			if strings.EqualFold(c, k) {
				return c
			}
		}
		return ""
	}
	first := func(keys ...string) string {
		for _, k := range keys {
			if c := has(k); c != "" {
				return c
			}
		}
		return ""
	}
	return map[string]string{
		FieldGoal: first("goal", "goalObject"), FieldURL: first("setupUrl", "startUrl"), FieldCategory: has("category"),
		FieldID: first("taskId", "id"), FieldLocale: has("locale"), FieldTimezone: has("timezoneId"), FieldAnswer: has("answer"),
		FieldRedact: has("redact"),
	}
}

// manifestJSON is the tasks.manifest_json value of a task.
func manifestJSON(m *Manifest) any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return string(b)
}

// parseManifestColumn reads tasks.manifest_json (nil when NULL or unreadable).
func parseManifestColumn(v sql.NullString) *Manifest {
	if !v.Valid || v.String == "" {
		return nil
	}
	var m Manifest
	if err := json.Unmarshal([]byte(v.String), &m); err != nil {
		return nil
	}
	return &m
}

// TaskValidator is the validate script a task's episodes run (nil when its
// manifest has none).
func TaskValidator(t Task) *action.Validator {
	if t.Manifest == nil || strings.TrimSpace(t.Manifest.ValidateScript) == "" {
		return nil
	}
	return &action.Validator{Script: t.Manifest.ValidateScript, EachStep: t.Manifest.ValidateEachStep}
}

// taskManifestOptions gives an episode its task's validate script and seed.
func taskManifestOptions(t Task, opts *engine.ResetOptions) {
	if opts.Validate == nil {
		opts.Validate = TaskValidator(t)
	}
	if opts.Seed == nil && t.Manifest != nil && t.Manifest.Seed != nil {
		s := *t.Manifest.Seed
		opts.Seed = &s
	}
}

// saveValidation keeps an observation's validate result with its episode
// (episodes.validate_json): the last one wins, so at the end it is the
// end's.
func (s *Store) saveValidation(ctx context.Context, episodeID string, v *action.Validation) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `UPDATE episodes SET validate_json=? WHERE id=?`, string(b), episodeID)
	return s.explainWriteError(err)
}

// EpisodeValidation reads an episode's stored validate result (nil when
// its task has no validate script, or it has not run).
func (s *Store) EpisodeValidation(ctx context.Context, episodeID string) (*action.Validation, error) {
	var v sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT validate_json FROM episodes WHERE id=?`, episodeID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("episode %s: %w", episodeID, ErrNotFound)
	}
	if err != nil || !v.Valid {
		return nil, err
	}
	var out action.Validation
	if err := json.Unmarshal([]byte(v.String), &out); err != nil {
		return nil, fmt.Errorf("episode %s: its validate result is unreadable: %w", episodeID, err)
	}
	return &out, nil
}

// ManifestTasks lists the tasks imported from a manifest (archived ones
// too), in import order.
func (s *Store) ManifestTasks(ctx context.Context) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.manifest_json IS NOT NULL ORDER BY t.created_at, t.rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// FindTaskRef finds a task by its id, else by its source id (a manifest's
// taskId); several tasks with that source id are refused by name.
func (s *Store) FindTaskRef(ctx context.Context, ref string) (Task, error) {
	t, err := s.GetTask(context.Background(), ref)
	if !errors.Is(err, ErrNotFound) {
		return t, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.source_id=? ORDER BY t.created_at`, ref)
	if err != nil {
		return Task{}, err
	}
	defer rows.Close()
	var found []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return Task{}, err
		}
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return Task{}, err
	}
	switch len(found) {
	case 0:
		return Task{}, fmt.Errorf("no task has the id or taskId %q (see waymark tasks list): %w", ref, ErrNotFound)
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, f := range found {
		ids[i] = f.ID
	}
	return Task{}, fmt.Errorf("%d tasks have the taskId %q; give one of their ids: %s", len(found), ref, strings.Join(ids, ", "))
}
