package hfexport

import (
	"context"
	"fmt"
	"strings"

	"waymark/dataset"
)

// Where each exported episode's intent came from: a task written before
// and then performed (planned), a free recording without a goal
// (exploration), or a span of an exploration named afterwards (hindsight).
// The episodes config carries intent_origin, the cut's exploration and
// span, its key points and whether it replays from its start state, and a
// planned episode's actual_task; the card counts planned and hindsight
// tasks apart. Options.NoExplorations leaves the explorations out (the
// tasks cut from them stay).

// intentStats counts the exported episodes by intent.
type intentStats struct {
	planned, explorations, hindsight int
	plannedTasks, hindsightTasks     map[string]bool
	replayable, notReplayable        int
	unchecked, keyPointsFailed       int
	withActual                       int
	left                             int // explorations left out by the option
}

// intentColumns fills the episode row's intent columns and counts it.
func (s *intentStats) add(ctx context.Context, store *dataset.Store, e *episodeInfo, r *episodeRow) error {
	if s.plannedTasks == nil {
		s.plannedTasks, s.hindsightTasks = map[string]bool{}, map[string]bool{}
	}
	intent := e.Intent
	if intent == "" {
		intent = dataset.IntentPlanned
	}
	r.IntentOrigin = str(intent)
	r.ActualTask = str(e.ActualTask)
	r.KeyPoints = []*string{}
	switch intent {
	case dataset.IntentExploration:
		s.explorations++
	case dataset.IntentHindsight:
		s.hindsight++
		s.hindsightTasks[e.TaskID] = true
		r.ExplorationID = str(e.ExplorationID)
		r.SpanFrom, r.SpanTo = i64(int64(e.SpanFrom)), i64(int64(e.SpanTo))
		h, err := store.HindsightCheckOf(ctx, e.ID)
		if err != nil {
			return err
		}
		if h != nil {
			for _, k := range h.KeyPoints {
				r.KeyPoints = append(r.KeyPoints, str(k.KeyPoint))
			}
			if k := h.KeyPointsFailed(); k > 0 {
				s.keyPointsFailed++
			}
		}
		switch {
		case h == nil || h.Replay == nil:
			s.unchecked++ // replayable stays null: not checked
		default:
			v := h.Replay.Replayable
			r.Replayable = &v
			if v {
				s.replayable++
			} else {
				s.notReplayable++
			}
		}
	default:
		s.planned++
		s.plannedTasks[e.TaskID] = true
		if e.ActualTask != "" {
			s.withActual++
		}
	}
	return nil
}

// section is the card's paragraph on planned and hindsight tasks ("" when
// every episode is planned and none says what was actually done).
func (s *intentStats) section(left int) string {
	s.left = left
	if s.explorations == 0 && s.hindsight == 0 && s.withActual == 0 && s.left == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Planned and hindsight tasks\n\n")
	fmt.Fprintf(&b, "%s (%s) were written before they were performed (`intent_origin` `planned`); %s (%s) were named afterwards, "+
		"cut out of free explorations (`intent_origin` `hindsight`, with `exploration_id`, `span_from` and `span_to` naming the exploration's steps).",
		plural(len(s.plannedTasks), "task", "tasks"), plural(s.planned, "episode", "episodes"),
		plural(len(s.hindsightTasks), "task", "tasks"), plural(s.hindsight, "episode", "episodes"))
	if s.hindsight > 0 {
		fmt.Fprintf(&b, " Each was replayed from its start state (the exploration's steps before the span): %d replayable, %d not (`replayable` false), %d not replayed (`replayable` null).",
			s.replayable, s.notReplayable, s.unchecked)
		if s.keyPointsFailed > 0 {
			fmt.Fprintf(&b, " %s a key point that failed its check against the span's last page.", plural(s.keyPointsFailed, "episode has", "episodes have"))
		}
	}
	switch {
	case s.left > 0:
		fmt.Fprintf(&b, " The explorations themselves (%s) were left out.", plural(s.left, "episode", "episodes"))
	case s.explorations > 0:
		fmt.Fprintf(&b, " %s themselves are included (`intent_origin` `exploration`; their goal only names the start page).", plural(s.explorations, "exploration", "explorations"))
	}
	if s.withActual > 0 {
		fmt.Fprintf(&b, " %s say in `actual_task` what was actually done where it differs from the goal.", plural(s.withActual, "planned episode", "planned episodes"))
	}
	b.WriteString("\n\n")
	return b.String()
}
