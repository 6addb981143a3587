package dataset

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"waymark/engine/action"
)

// The review queue: which reviewable episodes a reviewer sees, in which
// state, and the lists its filters offer. The writes are in review.go.

// Queue states. An episode can be in several (e.g. unreviewed by me and in
// conflict between two others).
const (
	// QueueUnreviewed: I have no current review and it is not settled.
	QueueUnreviewed = "unreviewed"
	// QueueMine: I have a current review.
	QueueMine = "mine"
	// QueueConflict: its current reviews disagree on the outcome (more than
	// one distinct outcome) and no settling label exists.
	QueueConflict = "conflict"
	// QueueSettled: a settling label exists.
	QueueSettled = "settled"
	// QueueExplorations: explorations (recorded without a goal). They are
	// in no other state: an exploration has no outcome to label; the
	// tasks cut from it are reviewed as tasks.
	QueueExplorations = "explorations"
)

// QueueStates lists the states in display order.
var QueueStates = []string{QueueUnreviewed, QueueMine, QueueConflict, QueueSettled, QueueExplorations}

// Queue sort orders.
const (
	SortNewest    = "newest"
	SortOldest    = "oldest"
	SortTask      = "task"
	SortAnnotator = "annotator"
)

// Annotator filter values besides an exact name.
const (
	AnnotatorPeople = "@people" // every annotator not named "agent:…"
	AnnotatorAgents = "@agents" // every "agent:…"
)

// QueueFilter selects episodes for review. Zero fields do not filter.
type QueueFilter struct {
	Reviewer  string // "me": who is asking (for unreviewed / mine)
	State     string // one of QueueStates, or "" for all
	Category  string
	Annotator string // exact name, AnnotatorPeople or AnnotatorAgents
	TaskID    string
	Search    string // substring of the goal (case-insensitive)
	// Interventions keeps only episodes in which someone other than the
	// annotator took over (a person correcting an agent).
	Interventions bool
	From, To      time.Time
	Sort          string // SortNewest (default), SortOldest, SortTask, SortAnnotator
	Limit         int    // 0: no limit
	Offset        int
}

// QueueItem is one episode in the review queue.
type QueueItem struct {
	EpisodeID   string
	TaskID      string
	Goal        string
	Category    string
	Annotator   string
	Status      Status
	EndReason   action.EndReason
	FinalAnswer string
	NumSteps    int
	AutoReward  *float64
	StartedAt   time.Time
	// NumReviews counts current non-settling reviews; Outcomes are their
	// distinct outcomes.
	NumReviews int
	Outcomes   []Outcome
	MyOutcome  Outcome // "" when I have not reviewed it
	Settled    bool
	// Outcome is the episode's outcome as the export sees it: the settling
	// label, else the one all reviews agree on, else "".
	Outcome Outcome
	// ParentEpisodeID and BranchStep: a branch's parent episode and the
	// parent's step it continued from ("" and nil when not a branch).
	ParentEpisodeID string
	BranchStep      *int
	// NumInterventions counts the times someone other than the annotator
	// took over (see CountInterventions).
	NumInterventions int
	// Intent says where the episode's goal came from (IntentPlanned, …).
	// A task cut from an exploration names it and its span, and Cut is
	// what was checked of it (nil when its check cannot be read).
	// ActualTask is what a planned episode actually did, when it differs.
	Intent           string
	ExplorationID    string
	SpanFrom, SpanTo int
	Cut              *HindsightCheck
	ActualTask       string
}

// In reports whether the item is in a queue state.
func (it QueueItem) In(state string) bool {
	expl := it.Intent == IntentExploration
	switch state {
	case "":
		return true
	case QueueExplorations:
		return expl
	}
	if expl {
		return false
	}
	switch state {
	case QueueUnreviewed:
		return it.MyOutcome == "" && !it.Settled
	case QueueMine:
		return it.MyOutcome != ""
	case QueueConflict:
		return len(it.Outcomes) > 1 && !it.Settled
	case QueueSettled:
		return it.Settled
	}
	return false
}

// Queue is the answer of ReviewQueue.
type Queue struct {
	Items []QueueItem
	// Total is the number of items in the chosen state before Limit/Offset.
	Total int
	// Counts gives, per state, how many episodes match the other filters.
	Counts map[string]int
	// Intents counts the episodes matching the other filters by where
	// their goal came from (the tasks counted are those they demonstrate),
	// and the cut tasks by what their check showed.
	Intents IntentCounts
}

// ReviewQueue lists reviewable episodes matching the filter, with counts per
// state. Only finished or interrupted episodes are listed.
func (s *Store) ReviewQueue(ctx context.Context, f QueueFilter) (Queue, error) {
	all, err := s.queueAll(ctx, f)
	if err != nil {
		return Queue{}, err
	}
	q := Queue{Counts: map[string]int{}}
	for _, it := range all {
		for _, st := range QueueStates {
			if it.In(st) {
				q.Counts[st]++
			}
		}
		if it.In(f.State) {
			q.Items = append(q.Items, it)
		}
	}
	q.Intents = countQueueIntents(all)
	q.Total = len(q.Items)
	if f.Offset > 0 {
		q.Items = q.Items[min(f.Offset, len(q.Items)):]
	}
	if f.Limit > 0 && len(q.Items) > f.Limit {
		q.Items = q.Items[:f.Limit]
	}
	return q, nil
}

// countQueueIntents counts queue items by intent, as CountIntents counts
// the store's.
func countQueueIntents(items []QueueItem) IntentCounts {
	var c IntentCounts
	planned, cut := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		switch it.Intent {
		case IntentExploration:
			c.Explorations++
		case IntentHindsight:
			c.Hindsight++
			cut[it.TaskID] = true
			c.countCheck(it.Cut)
		default:
			c.Planned++
			planned[it.TaskID] = true
			if it.ActualTask != "" {
				c.WithActualTask++
			}
		}
	}
	c.PlannedTasks, c.HindsightTasks = len(planned), len(cut)
	return c
}

// NextUnreviewed returns the first episode after afterEpisodeID, in the
// filter's sort order and within its filters (State is ignored), that the
// reviewer has not reviewed and that is not settled, wrapping around to the
// start. afterEpisodeID may be "" (start at the top). ok is false when none is
// left.
func (s *Store) NextUnreviewed(ctx context.Context, f QueueFilter, afterEpisodeID string) (item QueueItem, ok bool, err error) {
	f.State = ""
	all, err := s.queueAll(ctx, f)
	if err != nil {
		return QueueItem{}, false, err
	}
	start := 0
	for i, it := range all {
		if it.EpisodeID == afterEpisodeID {
			start = i + 1
			break
		}
	}
	for k := range all {
		it := all[(start+k)%len(all)]
		if it.EpisodeID != afterEpisodeID && it.In(QueueUnreviewed) {
			return it, true, nil
		}
	}
	return QueueItem{}, false, nil
}

func (s *Store) queueAll(ctx context.Context, f QueueFilter) ([]QueueItem, error) {
	where := []string{`e.status IN ` + reviewableStatuses}
	args := []any{f.Reviewer}
	if f.Category != "" {
		where = append(where, `t.category = ?`)
		args = append(args, f.Category)
	}
	switch f.Annotator {
	case "":
	case AnnotatorAgents:
		where = append(where, `e.annotator LIKE 'agent:%'`)
	case AnnotatorPeople:
		where = append(where, `e.annotator NOT LIKE 'agent:%'`)
	default:
		where = append(where, `e.annotator = ?`)
		args = append(args, f.Annotator)
	}
	if f.TaskID != "" {
		where = append(where, `e.task_id = ?`)
		args = append(args, f.TaskID)
	}
	if f.Search != "" {
		where = append(where, `t.goal LIKE ? ESCAPE '\'`)
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(f.Search)
		args = append(args, "%"+esc+"%")
	}
	if !f.From.IsZero() {
		where = append(where, `e.started_at >= ?`)
		args = append(args, FormatTime(f.From))
	}
	if !f.To.IsZero() {
		where = append(where, `e.started_at < ?`)
		args = append(args, FormatTime(f.To))
	}
	if f.Interventions {
		where = append(where, interventionsSQL+` > 0`)
	}
	order := `e.started_at DESC, e.id`
	switch f.Sort {
	case SortOldest:
		order = `e.started_at, e.id`
	case SortTask:
		order = `t.goal, e.started_at, e.id`
	case SortAnnotator:
		order = `e.annotator, e.started_at, e.id`
	}
	q := `WITH r AS (
		SELECT episode_id, COUNT(*) AS n, GROUP_CONCAT(DISTINCT outcome) AS outs,
		       MAX(CASE WHEN reviewer = ?1 THEN outcome END) AS mine
		FROM current_reviews WHERE settles = 0 GROUP BY episode_id
	), st AS (
		SELECT episode_id, outcome FROM current_reviews c WHERE settles = 1
		AND created_at = (SELECT MAX(created_at) FROM current_reviews c2 WHERE c2.settles = 1 AND c2.episode_id = c.episode_id)
	)
	SELECT e.id, e.task_id, t.goal, t.category, e.annotator, e.status, e.end_reason, e.final_answer, e.num_steps, e.auto_reward, e.started_at,
	       COALESCE(r.n, 0), COALESCE(r.outs, ''), COALESCE(r.mine, ''), st.outcome,
	       COALESCE(e.parent_episode_id, ''), e.branch_step, ` + interventionsSQL + `,
	       e.intent_origin, COALESCE(e.exploration_id, ''), COALESCE(e.span_from, 0), COALESCE(e.span_to, 0), COALESCE(e.hindsight_json, ''), e.actual_task
	FROM episodes e JOIN tasks t ON t.id = e.task_id
	LEFT JOIN r ON r.episode_id = e.id LEFT JOIN st ON st.episode_id = e.id
	WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("review queue: %w", err)
	}
	defer rows.Close()
	var out []QueueItem
	for rows.Next() {
		var it QueueItem
		var started, outs string
		var reward sql.NullFloat64
		var settled sql.NullString
		var branch sql.NullInt64
		var cut string
		if err := rows.Scan(&it.EpisodeID, &it.TaskID, &it.Goal, &it.Category, &it.Annotator, &it.Status, &it.EndReason, &it.FinalAnswer,
			&it.NumSteps, &reward, &started, &it.NumReviews, &outs, &it.MyOutcome, &settled, &it.ParentEpisodeID, &branch, &it.NumInterventions,
			&it.Intent, &it.ExplorationID, &it.SpanFrom, &it.SpanTo, &cut, &it.ActualTask); err != nil {
			return nil, err
		}
		if cut != "" {
			var h HindsightCheck
			if json.Unmarshal([]byte(cut), &h) == nil {
				it.Cut = &h
			}
		}
		if branch.Valid {
			k := int(branch.Int64)
			it.BranchStep = &k
		}
		if reward.Valid {
			v := reward.Float64
			it.AutoReward = &v
		}
		it.StartedAt = ParseTime(started)
		if outs != "" {
			for _, o := range strings.Split(outs, ",") {
				it.Outcomes = append(it.Outcomes, Outcome(o))
			}
			sort.Slice(it.Outcomes, func(i, j int) bool {
				return slices.Index(Outcomes, it.Outcomes[i]) < slices.Index(Outcomes, it.Outcomes[j])
			})
		}
		switch {
		case settled.Valid:
			it.Settled = true
			it.Outcome = Outcome(settled.String)
		case len(it.Outcomes) == 1:
			it.Outcome = it.Outcomes[0]
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// Annotators lists the distinct annotators of reviewable episodes, sorted.
func (s *Store) Annotators(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT annotator FROM episodes WHERE status IN `+reviewableStatuses+` ORDER BY annotator`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
