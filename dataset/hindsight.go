package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"waymark/engine/action"
	"waymark/engine/har"
)

// Explore first, name the tasks after. A person may record without a goal
// (an exploration: a task of source SourceExplore, whose episodes are
// IntentExploration), then cut spans of its steps out as tasks of their
// own: each span becomes a task (source SourceHindsight) and an episode
// (IntentHindsight) that names the exploration and the span. The cut
// episode's steps are the span's stored steps, copied with everything the
// recording kept (actor, timings, screenshot, grounding, redaction, note,
// network traffic); its step 0 is the page the step before the span led
// to, and a finish step carrying the answer ends it. Whether the span
// still replays from that start state is checked apart (dataset/replay's
// CheckCut) and kept with the episode (HindsightCheck), as is the check of
// its key points; nothing is taken as replayable before it was replayed.

// Where an episode's intent came from (Episode.Intent).
const (
	IntentPlanned     = "planned"     // a task chosen, then performed
	IntentExploration = "exploration" // a free recording started on a URL, without a goal
	IntentHindsight   = "hindsight"   // a span of an exploration, named afterwards
)

// Task sources of explorations and of the tasks cut from them.
const (
	SourceExplore   = "explore"
	SourceHindsight = "hindsight"
)

// ExploreGoal is the goal of the task an exploration of startURL records
// under (an exploration has no goal of its own; the task keeps its start
// page).
func ExploreGoal(startURL string) string {
	g := "Explore " + strings.TrimSpace(startURL)
	if len(g) > maxGoalLen {
		g = strings.ToValidUTF8(g[:maxGoalLen-len("…")], "") + "…"
	}
	return g
}

// ExploreTask is the task an exploration of startURL is recorded under,
// made the first time.
func (s *Store) ExploreTask(ctx context.Context, startURL string) (Task, error) {
	if err := action.CheckURL(startURL); err != nil {
		return Task{}, fmt.Errorf("the start URL of an exploration: %w", err)
	}
	return s.EnsureTask(ctx, Task{Goal: ExploreGoal(startURL), Category: Navigation, StartURL: strings.TrimSpace(startURL), Source: SourceExplore})
}

// CutSpec is a span of an exploration to cut out as a task.
type CutSpec struct {
	ExplorationID string
	// From and To are the exploration's first and last steps of the span
	// (1 ≤ From ≤ To), both kept steps.
	From, To int
	// Instruction is the task's goal, Category its category; KeyPoints
	// the facts or states that show success (see CheckKeyPoints); Answer
	// is required for an information task.
	Instruction, Category string
	KeyPoints             []string
	Answer                string
	// Editor is who cut it (the finish step is theirs).
	Editor string
	// TaskID, when set, is the task the cut demonstrates (Instruction and
	// Category are then the task's); else the task is found by the
	// instruction and the start page, or made.
	TaskID string
}

// ErrNotExploration marks a cut asked of an episode that is no exploration.
var ErrNotExploration = errors.New("not an exploration")

// checkSpan reads the exploration's steps and checks the span: it returns
// the step the span starts from (the last kept step before From) and the
// kept steps of the span.
func (s *Store) checkSpan(ctx context.Context, id string, from, to int) (Episode, int, []Step, error) {
	ep, err := s.GetEpisode(ctx, id)
	if err != nil {
		return Episode{}, 0, nil, err
	}
	if ep.Intent != IntentExploration {
		return ep, 0, nil, fmt.Errorf("%w: episode %s is a %s episode; tasks are cut from explorations (for a planned episode, write what was actually done instead)", ErrNotExploration, id, ep.Intent)
	}
	if ep.Status == StatusDiscarded {
		return ep, 0, nil, fmt.Errorf("exploration %s was discarded; restore it in Review before cutting tasks from it", id)
	}
	steps, err := s.Steps(ctx, id)
	if err != nil {
		return ep, 0, nil, err
	}
	last := 0
	if len(steps) > 0 {
		last = steps[len(steps)-1].Index
	}
	if from < 1 || to < from || to > last {
		return ep, 0, nil, fmt.Errorf("the span %d–%d is not within the exploration's steps 1–%d: choose a first step, then a last step at or after it", from, to, last)
	}
	var span []Step
	for _, st := range steps {
		if st.Index < from || st.Index > to {
			continue
		}
		if st.Removed {
			if st.Index == from || st.Index == to {
				return ep, 0, nil, fmt.Errorf("step %d of the exploration was undone (removed); start and end the span on kept steps", st.Index)
			}
			continue
		}
		if st.Done {
			return ep, 0, nil, fmt.Errorf("step %d ended the exploration (%s); end the span on the step before it", st.Index, actionText(st))
		}
		span = append(span, st)
	}
	if len(span) == 0 {
		return ep, 0, nil, fmt.Errorf("the span %d–%d holds no kept step", from, to)
	}
	return ep, prevKept(steps, from), span, nil
}

func actionText(st Step) string {
	if st.Action != nil {
		return st.Action.String()
	}
	return st.ActionJSON
}

// CutSpan cuts a span of an exploration out as a task and an episode of
// its own: the task (found by its instruction and start page, else made,
// source SourceHindsight, the answer as its check), and the episode
// (IntentHindsight, naming the exploration and the span) whose step 0 is
// the exploration's step before the span, whose steps are the span's kept
// steps, copied, and whose last step is a finish with the answer, taken
// by spec.Editor. The key points are checked against the span's last step
// as stored (its URL, and its page text when grounding kept it); the
// replay from the start state is left to dataset/replay's CheckCut.
func (s *Store) CutSpan(ctx context.Context, spec CutSpec) (Episode, error) {
	spec.Instruction = strings.TrimSpace(spec.Instruction)
	spec.Answer = strings.TrimSpace(spec.Answer)
	switch {
	case spec.Instruction == "":
		return Episode{}, errors.New("write the instruction: what the span accomplished, as a task someone could be given")
	case strings.TrimSpace(spec.Editor) == "":
		return Episode{}, errors.New("no name: set your name in Settings first, the cut is made under it")
	case spec.Category == Information && spec.Answer == "":
		return Episode{}, errors.New("an information task needs its answer: write what the span found out")
	}
	if !validCategory(spec.Category) {
		return Episode{}, fmt.Errorf("the category %q is none of information, navigation, interaction: choose one", spec.Category)
	}
	expl, startIdx, span, err := s.checkSpan(ctx, spec.ExplorationID, spec.From, spec.To)
	if err != nil {
		return Episode{}, err
	}
	var startURL string
	if err := s.db.QueryRowContext(ctx, `SELECT url FROM steps WHERE episode_id=? AND idx=?`, expl.ID, startIdx).Scan(&startURL); err != nil {
		return Episode{}, err
	}
	if action.CheckURL(startURL) != nil {
		return Episode{}, fmt.Errorf("the page before the span (step %d) has the address %q, which no task can start on; start the span where the page before it is a web address", startIdx, startURL)
	}
	var task Task
	if spec.TaskID != "" {
		if task, err = s.GetTask(ctx, spec.TaskID); err != nil {
			return Episode{}, err
		}
	} else {
		t := Task{Goal: spec.Instruction, Category: spec.Category, StartURL: startURL, Source: SourceHindsight}
		if spec.Category == Information {
			t.Check = &action.Check{Kind: action.CheckKindAnswer, Answer: spec.Answer}
		}
		if task, err = s.EnsureTask(ctx, t); err != nil {
			return Episode{}, fmt.Errorf("the task was not saved: %w", err)
		}
	}
	// The key points, checked against the span's last step as stored.
	lastStep := span[len(span)-1]
	text, from := "", ""
	if x, err := s.StepExtras(ctx, expl.ID, lastStep.Index); err == nil && x != nil && x.AXTreeTxt != "" {
		text, from = x.AXTreeTxt, fmt.Sprintf("the page text kept with step %d", lastStep.Index)
	}
	check := HindsightCheck{KeyPoints: CheckKeyPoints(spec.KeyPoints, lastStep.URL, text, from)}
	cj, err := json.Marshal(check)
	if err != nil {
		return Episode{}, err
	}

	from0, to0 := spec.From, spec.To
	ep := Episode{ID: uuid.NewString(), TaskID: task.ID, Annotator: expl.Annotator, ActionSet: expl.ActionSet, EngineJSON: expl.EngineJSON,
		StartedAt: span[0].CreatedAt, Intent: IntentHindsight, ExplorationID: expl.ID, SpanFrom: from0, SpanTo: to0}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	defer tx.Rollback()
	if err := s.insertEpisode(ctx, tx, &ep); err != nil {
		return Episode{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE episodes SET hindsight_json=? WHERE id=?`, string(cj), ep.ID); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	cols, err := stepCopyColumns(ctx, tx)
	if err != nil {
		return Episode{}, err
	}
	copyStep := func(src, dst int) error {
		q := `INSERT INTO steps (episode_id, idx, done, removed, ` + cols + `) SELECT ?, ?, 0, 0, ` + cols + ` FROM steps WHERE episode_id=? AND idx=?`
		if _, err := tx.ExecContext(ctx, q, ep.ID, dst, expl.ID, src); err != nil {
			return s.explainWriteError(err)
		}
		return nil
	}
	if err := copyStep(startIdx, 0); err != nil {
		return Episode{}, err
	}
	// Step 0 is a start page: no action, no element acted on.
	if _, err := tx.ExecContext(ctx, `UPDATE steps SET action_json=NULL, op='', target_json=NULL WHERE episode_id=? AND idx=0`, ep.ID); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	for i, st := range span {
		if err := copyStep(st.Index, i+1); err != nil {
			return Episode{}, err
		}
	}
	n := len(span)
	fin := action.Action{Op: action.Finish, Text: spec.Answer}
	fj, err := fin.MarshalJSON()
	if err != nil {
		return Episode{}, err
	}
	// The finish: the page the span's last step led to, the answer, by
	// the person who named the task.
	if _, err := tx.ExecContext(ctx, `INSERT INTO steps (episode_id, idx, action_json, op, url, title, error, done, screenshot, created_at, removed, redaction_json, actor)
		SELECT ?, ?, ?, ?, url, title, '', 1, screenshot, ?, 0, redaction_json, ? FROM steps WHERE episode_id=? AND idx=?`,
		ep.ID, n+1, string(fj), string(action.Finish), now(), ActorOf(spec.Editor), expl.ID, lastStep.Index); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE episodes SET num_steps=? WHERE id=?`, n+1, ep.ID); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	if err := s.endEpisode(ctx, tx, ep.ID, episodeEnd{status: StatusFinished, reason: action.EndFinished, answer: spec.Answer, finalURL: lastStep.URL}); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	if err := tx.Commit(); err != nil {
		return Episode{}, s.explainWriteError(err)
	}
	if err := s.copySpanHAR(ctx, expl.ID, ep.ID, startIdx, span); err != nil {
		out, _ := s.GetEpisode(ctx, ep.ID)
		return out, fmt.Errorf("the task and its episode were saved, but the span's network traffic was not copied: %w", err)
	}
	return s.GetEpisode(ctx, ep.ID)
}

func validCategory(c string) bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// stepCopyColumns lists the steps table's columns a cut copies (every one
// but those it sets itself), read from the table so a column added later
// is copied too.
func stepCopyColumns(ctx context.Context, tx *sql.Tx) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info('steps') ORDER BY cid`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		switch n {
		case "episode_id", "idx", "done", "removed":
		default:
			cols = append(cols, n)
		}
	}
	return strings.Join(cols, ", "), rows.Err()
}

// copySpanHAR copies the exploration's network entries of the start step
// and the span's steps to the cut, numbered as the cut's steps.
func (s *Store) copySpanHAR(ctx context.Context, explID, cutID string, startIdx int, span []Step) error {
	sum, err := s.HARSummary(ctx, explID)
	if err != nil || sum == nil {
		return err
	}
	entries, err := s.harEntries(ctx, explID, -1)
	if err != nil {
		return err
	}
	to := map[int]int{startIdx: 0}
	for i, st := range span {
		to[st.Index] = i + 1
	}
	var out []har.Entry
	pages := map[string]bool{}
	for _, e := range entries {
		k, ok := to[e.Step]
		if !ok {
			continue
		}
		e.Step = k
		out = append(out, e)
		if e.Pageref != "" {
			pages[e.Pageref] = true
		}
	}
	var ps []har.Page
	for _, p := range sum.Pages {
		if pages[p.ID] {
			ps = append(ps, p)
		}
	}
	c := *sum
	c.Pages, c.Entries = nil, len(out)
	return s.SaveHARChunk(ctx, cutID, out, c, ps)
}

// Cuts lists the episodes cut from exploration id that are not discarded,
// in the order of their spans.
func (s *Store) Cuts(ctx context.Context, id string) ([]Episode, error) {
	eps, err := s.ListEpisodes(ctx, EpisodeFilter{ExplorationID: id, OldestFirst: true})
	if err != nil {
		return nil, err
	}
	out := eps[:0]
	for _, e := range eps {
		if e.Status != StatusDiscarded {
			out = append(out, e)
		}
	}
	return out, nil
}

// AdjustSpan changes the span of a cut: a new cut of the same task and
// exploration is made with the new span (its key points and answer as
// the old one's), the old one is discarded, and both episodes' audit logs
// get a 'span' row saying who, why, and which episode replaced which. The
// new cut is not replayed yet.
func (s *Store) AdjustSpan(ctx context.Context, cutID string, from, to int, editor, why string) (Episode, error) {
	why, err := cleanText(why, "reason", MaxReasonRunes)
	if err != nil {
		return Episode{}, err
	}
	if why == "" {
		return Episode{}, errors.New("say why the span changes: it is kept in the audit log")
	}
	old, err := s.GetEpisode(ctx, cutID)
	if err != nil {
		return Episode{}, err
	}
	if old.Intent != IntentHindsight {
		return Episode{}, fmt.Errorf("episode %s was not cut from an exploration, so it has no span to change", cutID)
	}
	if old.Status == StatusDiscarded {
		return Episode{}, fmt.Errorf("episode %s was already replaced or discarded; change the span of the cut that replaced it", cutID)
	}
	if from == old.SpanFrom && to == old.SpanTo {
		return old, fmt.Errorf("the span is already %d–%d", from, to)
	}
	h, err := s.HindsightCheckOf(ctx, cutID)
	if err != nil {
		return Episode{}, err
	}
	var kps []string
	if h != nil {
		for _, k := range h.KeyPoints {
			kps = append(kps, k.KeyPoint)
		}
	}
	cut, err := s.CutSpan(ctx, CutSpec{ExplorationID: old.ExplorationID, From: from, To: to, Instruction: old.Goal, Category: old.Category,
		KeyPoints: kps, Answer: old.FinalAnswer, Editor: editor, TaskID: old.TaskID})
	if err != nil && cut.ID == "" {
		return Episode{}, err
	}
	tx, terr := s.db.BeginTx(ctx, nil)
	if terr != nil {
		return cut, s.explainWriteError(terr)
	}
	defer tx.Rollback()
	at := now()
	if _, terr := tx.ExecContext(ctx, `INSERT INTO episode_edits (episode_id, step_idx, kind, editor, reason, created_at) VALUES (?,NULL,'span',?,?,?), (?,NULL,'span',?,?,?)`,
		old.ID, editor, fmt.Sprintf("span %d–%d changed to %d–%d, now episode %s: %s", old.SpanFrom, old.SpanTo, from, to, cut.ID, why), at,
		cut.ID, editor, fmt.Sprintf("span changed from %d–%d (episode %s) to %d–%d: %s", old.SpanFrom, old.SpanTo, old.ID, from, to, why), at); terr != nil {
		return cut, s.explainWriteError(terr)
	}
	if _, terr := tx.ExecContext(ctx, `UPDATE episodes SET status='discarded', end_reason='discarded' WHERE id=?`, old.ID); terr != nil {
		return cut, s.explainWriteError(terr)
	}
	// A task cut from this span alone starts where the span now starts
	// (a task that other episodes demonstrate keeps its start page).
	if _, terr := tx.ExecContext(ctx, `UPDATE tasks SET start_url=(SELECT url FROM steps WHERE episode_id=? AND idx=0), updated_at=?
		WHERE id=? AND source='hindsight' AND NOT EXISTS (SELECT 1 FROM episodes WHERE task_id=? AND status<>'discarded' AND id<>?)`,
		cut.ID, at, old.TaskID, old.TaskID, cut.ID); terr != nil && !isUniqueViolation(terr) {
		return cut, s.explainWriteError(terr)
	}
	if terr := tx.Commit(); terr != nil {
		return cut, s.explainWriteError(terr)
	}
	return cut, err
}

// SetActualTask keeps what a planned episode actually did when it differs
// from its task's goal ("" clears it).
func (s *Store) SetActualTask(ctx context.Context, id, actual string) error {
	actual = strings.TrimSpace(actual)
	if len(actual) > maxGoalLen {
		return fmt.Errorf("what was actually done is %d bytes long; write it in at most %d", len(actual), maxGoalLen)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE episodes SET actual_task=? WHERE id=? AND intent_origin='planned'`, actual, id)
	if err != nil {
		return s.explainWriteError(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		ep, err := s.GetEpisode(ctx, id)
		if err != nil {
			return err
		}
		return fmt.Errorf("episode %s is a%s %s episode: only a planned episode records what was actually done (a cut's instruction is what was done)", id, map[bool]string{true: "n"}[ep.Intent == IntentExploration], ep.Intent)
	}
	return nil
}
