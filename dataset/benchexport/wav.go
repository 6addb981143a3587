package benchexport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/engine/har"
)

// WebArena-Verified (ServiceNow/webarena-verified): the per-task output
// folder its evaluator scores offline, an agent's final response and the
// network trace of the episode's own traffic:
//
//	<agent>/<task>/agent_response.json
//	<agent>/<task>/network.har
//	episodes.csv   which episode is in which folder, with its settled label
//
// <task> is the task's id in the file it was imported from when that is a
// number (WebArena's task ids; the evaluator takes only such folders),
// else the episode's id. An agent's second attempt at a task goes to
// <agent>.run2/<task>, and so on, so each agent folder holds a task once.

type wavWriter struct {
	x     *exporter
	csv   bytes.Buffer
	cw    *csv.Writer
	taken map[string]bool // "<agent folder>/<task>"
}

func newWAV(x *exporter) *wavWriter {
	w := &wavWriter{x: x, taken: map[string]bool{}}
	w.cw = csv.NewWriter(&w.csv)
	w.cw.Write([]string{"episode_id", "folder", "waymark_task_id", "source_id", "annotator", "outcome", "human_success", "network_har", "settled_by"})
	return w
}

// wavTaskType is the kind of work a task's category asks for.
func wavTaskType(category string) string {
	switch category {
	case dataset.Information:
		return "RETRIEVE"
	case dataset.Navigation:
		return "NAVIGATE"
	}
	return "MUTATE"
}

var wavStatuses = []string{"SUCCESS", "ACTION_NOT_ALLOWED_ERROR", "PERMISSION_DENIED_ERROR", "NOT_FOUND_ERROR", "DATA_VALIDATION_ERROR", "UNKNOWN_ERROR"}

// agentResponse is the episode's final response. A final answer that is
// itself such a response (a JSON object with task_type, or the older
// performed_operation, and status) is taken as the agent wrote it;
// otherwise it is built from the task's category (the kind of work), how
// the episode ended (SUCCESS when it finished by its own last action,
// UNKNOWN_ERROR with the end reason otherwise) and the final answer (the
// retrieved data of a retrieve task). Both the field names the evaluator's
// model reads (task_type, retrieved_data) and those its documentation
// shows (action, results) are written.
func agentResponse(e *episode) map[string]any {
	ans := answerOf(e)
	var own map[string]any
	if strings.HasPrefix(ans, "{") && json.Unmarshal([]byte(ans), &own) == nil {
		tt, _ := own["task_type"].(string)
		if tt == "" {
			tt, _ = own["performed_operation"].(string)
		}
		if tt == "" {
			tt, _ = own["action"].(string)
		}
		st, _ := own["status"].(string)
		if tt != "" && slices.Contains(wavStatuses, strings.ToUpper(st)) && slices.Contains([]string{"RETRIEVE", "MUTATE", "NAVIGATE"}, strings.ToUpper(tt)) {
			data, ok := own["retrieved_data"]
			if !ok {
				data = own["results"]
			}
			r := map[string]any{"task_type": strings.ToUpper(tt), "action": strings.ToLower(tt), "status": strings.ToUpper(st),
				"retrieved_data": data, "results": data, "error_details": own["error_details"]}
			return r
		}
	}
	tt := wavTaskType(e.Category)
	r := map[string]any{"task_type": tt, "action": strings.ToLower(tt), "status": "SUCCESS", "retrieved_data": nil, "results": nil, "error_details": nil}
	if e.EndReason != action.EndFinished {
		r["status"] = "UNKNOWN_ERROR"
		r["error_details"] = "the episode ended without the agent's final action: " + string(e.EndReason)
		return r
	}
	if tt == "RETRIEVE" {
		data := []any{}
		if ans != "" {
			data = append(data, ans)
		}
		r["retrieved_data"], r["results"] = data, data
	}
	return r
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (w *wavWriter) episode(e *episode) error {
	task := e.ID
	if isNumber(e.Task.SourceID) {
		task = e.Task.SourceID
	}
	folder := ""
	for run := 1; ; run++ {
		agent := e.Agent
		if run > 1 {
			agent = fmt.Sprintf("%s.run%d", e.Agent, run)
		}
		if k := agent + "/" + task; !w.taken[k] {
			w.taken[k], folder = true, k
			break
		}
	}
	if err := w.x.writeJSON(path.Join(folder, "agent_response.json"), agentResponse(e)); err != nil {
		return err
	}
	hasHAR := false
	if log, err := w.x.store.EpisodeHAR(w.x.ctx, e.ID); err == nil && len(log.Entries) > 0 {
		var b bytes.Buffer
		if err := har.Write(&b, log); err != nil {
			return err
		}
		if err := w.x.writeFile(path.Join(folder, "network.har"), b.Bytes()); err != nil {
			return err
		}
		hasHAR = true
	} else if w.x.ctx.Err() != nil {
		return w.x.ctx.Err()
	}
	if !hasHAR {
		w.x.res.NoTraffic = append(w.x.res.NoTraffic, e.ID)
	}
	outcome, success, by := "", "", ""
	if e.Settled != nil {
		outcome, by = e.Settled.Outcome, e.Settled.SettledBy
		switch dataset.Outcome(outcome) {
		case dataset.OutcomeSuccess:
			success = "1"
		case dataset.OutcomeFailure, dataset.OutcomeNotExecutable:
			success = "0"
		}
	}
	w.cw.Write([]string{e.ID, folder, e.TaskID, e.Task.SourceID, e.Annotator, outcome, success, fmt.Sprint(hasHAR), by})
	return nil
}

func (w *wavWriter) finish() error {
	w.cw.Flush()
	return w.x.writeFile("episodes.csv", w.csv.Bytes())
}
