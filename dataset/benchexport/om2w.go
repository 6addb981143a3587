package benchexport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
)

// Online-Mind2Web (OSU-NLP-Group/Online-Mind2Web): the v2 submission its
// auto-evaluation (WebJudge) reads, one folder per episode under the
// agent's folder, with the human labels beside the agents' folders:
//
//	<agent>/<episode id>/result.json      schema_version "online-mind2web-v2"
//	<agent>/<episode id>/trajectory/0000.png …
//	human_label.json                       {agent: {episode id: 0|1|2}}: the settled labels
//	human_labels.jsonl                     every reviewer's own label and the settled one
//
// The task id is the episode's id (the judge names its results by the
// folder). action_history step 0 is the start page (NAVIGATE), step k the
// k-th action with the screenshot after it, and the last step is
// "TASK_COMPLETE -> ANSWER: …", as the v2 schema asks.

type om2wWriter struct {
	x      *exporter
	labels map[string]map[string]int
	lines  bytes.Buffer
	// refLen caches the human reference length by task (0: none).
	refLen map[string]int
}

func newOM2W(x *exporter) *om2wWriter {
	return &om2wWriter{x: x, labels: map[string]map[string]int{}}
}

// om2wLabel is Online-Mind2Web's human label: 0 failure, 1 success, 2 not
// executable (an invalid task too: the task could not be done as written).
// ok is false without an outcome.
func om2wLabel(o string) (int, bool) {
	switch dataset.Outcome(o) {
	case dataset.OutcomeSuccess:
		return 1, true
	case dataset.OutcomeFailure:
		return 0, true
	case dataset.OutcomeNotExecutable, dataset.OutcomeInvalidTask:
		return 2, true
	}
	return 0, false
}

func shotName(i int) string { return fmt.Sprintf("%04d.png", i) }

// om2wAction writes a Waymark action the way Mind2Web's action histories
// read: "[role] name -> CLICK" for an element, else the operation and its
// arguments.
func om2wAction(a action.Action, t *action.Target) string {
	elem := ""
	if t != nil && (t.Role != "" || t.Name != "") {
		elem = strings.TrimSpace(fmt.Sprintf("[%s] %s", t.Role, oneLine(t.Name, 80)))
	}
	on := func(op string) string {
		if elem != "" {
			return elem + " -> " + op
		}
		return op
	}
	xy := ""
	if a.X != nil && a.Y != nil {
		xy = fmt.Sprintf(" coords(%d, %d)", *a.X, *a.Y)
	}
	switch a.Op {
	case action.Click:
		if elem != "" {
			return on("CLICK")
		}
		return "CLICK" + xy
	case action.Type, action.InsertText:
		return on("TYPE: " + oneLine(a.Text, 200))
	case action.Key:
		return on("PRESS: " + a.Text)
	case action.Scroll:
		if a.DY < 0 {
			return fmt.Sprintf("SCROLL UP %d", -a.DY)
		}
		return fmt.Sprintf("SCROLL DOWN %d", a.DY)
	case action.Back:
		return "GO_BACK"
	case action.Wait:
		return "WAIT"
	case action.Goto:
		return "NAVIGATE: " + a.URL
	case action.Select:
		return on("SELECT: " + strings.Join(a.Values, ", "))
	}
	if s := action.BrowserGym(a); s != "" {
		return on(strings.ToUpper(string(a.Op)) + " " + s)
	}
	return on(strings.ToUpper(string(a.Op)) + xy)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func (w *om2wWriter) episode(e *episode) error {
	dir := path.Join(e.Agent, e.ID)
	shots := map[int]string{} // kept step position → file
	for i, st := range e.Steps {
		if len(st.Screenshot) == 0 {
			continue
		}
		shots[i] = shotName(i)
		if err := w.x.writeFile(path.Join(dir, "trajectory", shotName(i)), st.Screenshot); err != nil {
			return err
		}
	}
	shot := func(i int) string {
		for ; i >= 0; i-- { // a step without a picture shows the one before it
			if s, ok := shots[i]; ok {
				return s
			}
		}
		return ""
	}
	type step struct {
		Step         int     `json:"step"`
		Screenshot   string  `json:"screenshot"`
		URL          string  `json:"url"`
		Action       string  `json:"action"`
		ActionStatus *string `json:"action_status"`
		Thought      *string `json:"thought"`
		WaymarkStep  int     `json:"waymark_step"`
	}
	status := func(st dataset.Step) *string {
		s := "SUCCESS"
		if st.Error != "" {
			s = "FAILED"
		}
		return &s
	}
	hist := []step{{Step: 0, Screenshot: shot(0), URL: e.Steps[0].URL, Action: "page -> NAVIGATE: " + e.StartURL, WaymarkStep: e.Steps[0].Index}}
	answer := answerOf(e)
	finished := false
	for i := 1; i < len(e.Steps); i++ {
		st := e.Steps[i]
		a := actionOf(st)
		if a == nil {
			continue
		}
		s := step{Step: len(hist), Screenshot: shot(i), URL: st.URL, WaymarkStep: st.Index}
		if t := thoughtOf(st); t != "" {
			s.Thought = &t
		}
		if a.Op == action.Finish {
			s.Action = "TASK_COMPLETE -> ANSWER: " + oneLine(answer, 100000)
			finished = true
		} else {
			s.ActionStatus = status(st)
			s.Action = om2wAction(*a, st.Target) + " | " + *s.ActionStatus
		}
		hist = append(hist, s)
	}
	if !finished {
		// The v2 schema ends every history with TASK_COMPLETE; an episode
		// that ended otherwise (a step limit, an interruption) gets one on
		// its last page.
		last := len(e.Steps) - 1
		hist = append(hist, step{Step: len(hist), Screenshot: shot(last), URL: e.Steps[last].URL,
			Action: "TASK_COMPLETE -> ANSWER: " + oneLine(answer, 100000), WaymarkStep: e.Steps[last].Index})
	}
	var final any
	if answer != "" {
		final = answer
	}
	result := map[string]any{
		"schema_version":        "online-mind2web-v2",
		"task_id":               e.ID,
		"task":                  e.Goal,
		"website":               e.StartURL,
		"reference_length":      w.referenceLength(e),
		"agent_final_answer":    final,
		"final_result_response": final,
		"action_history":        hist,
		"waymark": map[string]any{
			"episode_id": e.ID, "task_id": e.TaskID, "source_id": e.Task.SourceID, "category": e.Category,
			"annotator": e.Annotator, "end_reason": string(e.EndReason),
		},
	}
	if kp := keyPoints(e.Task); kp != "" {
		result["key_points"] = kp
		w.x.res.KeyPoints++
	}
	if err := w.x.writeJSON(path.Join(dir, "result.json"), result); err != nil {
		return err
	}
	// The labels, beside the trajectories (never in result.json, which a
	// judge reads).
	keyShots := func(steps []int) []string {
		out := []string{}
		for i, st := range e.Steps {
			for _, k := range steps {
				if k == st.Index && shots[i] != "" {
					out = append(out, shots[i])
				}
			}
		}
		return out
	}
	put := func(l Label) {
		lab, ok := om2wLabel(l.Outcome)
		var lv any
		if ok {
			lv = lab
		}
		b, _ := json.Marshal(map[string]any{
			"agent": e.Agent, "task_id": e.ID, "kind": l.Kind, "primary": l.Primary, "reviewer": l.Reviewer, "time": l.Time,
			"human_label": lv, "outcome": l.Outcome, "reason": l.Reason, "key_screenshots": keyShots(l.KeySteps),
			"guidelines_version": l.GuidelinesVersion, "guidelines_sha256": l.GuidelinesSHA256,
		})
		w.lines.Write(b)
		w.lines.WriteByte('\n')
	}
	for _, l := range e.Reviews {
		put(l)
	}
	if e.Settled != nil {
		put(*e.Settled)
		if lab, ok := om2wLabel(e.Settled.Outcome); ok {
			if w.labels[e.Agent] == nil {
				w.labels[e.Agent] = map[string]int{}
			}
			w.labels[e.Agent][e.ID] = lab
		}
	}
	return nil
}

// referenceLength is the human reference length Online-Mind2Web asks for:
// the task manifest's reference_length, else the fewest actions among the
// task's episodes by people (not agents) settled as a success; nil when
// there is none.
func (w *om2wWriter) referenceLength(e *episode) any {
	if m := e.Task.Manifest; m != nil {
		for _, k := range []string{"reference_length", "referenceLength"} {
			var n int
			if raw, ok := m.Extra[k]; ok && json.Unmarshal(raw, &n) == nil && n > 0 {
				return n
			}
		}
	}
	if w.refLen == nil {
		w.refLen = map[string]int{}
		f := dataset.LabelFilter{Outcomes: []dataset.Outcome{dataset.OutcomeSuccess}}
		for l, err := range w.x.store.LabeledEpisodes(w.x.ctx, f) {
			if err != nil {
				break
			}
			if best := w.refLen[l.TaskID]; !strings.HasPrefix(l.Annotator, "agent:") && l.NumSteps > 0 && (best == 0 || l.NumSteps < best) {
				w.refLen[l.TaskID] = l.NumSteps
			}
		}
	}
	if n := w.refLen[e.TaskID]; n > 0 {
		return n
	}
	return nil
}

// keyPoints are a task's key points (WebJudge's first stage), where its
// manifest has them (key_points or keyPoints: a text, or a list of texts),
// as WebJudge writes them: one numbered point per line.
func keyPoints(t dataset.Task) string {
	if t.Manifest == nil {
		return ""
	}
	for _, k := range []string{"key_points", "keyPoints"} {
		raw, ok := t.Manifest.Extra[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
		var l []string
		if json.Unmarshal(raw, &l) == nil {
			var b strings.Builder
			for i, p := range l {
				fmt.Fprintf(&b, "%d. %s\n", i+1, strings.TrimSpace(p))
			}
			return strings.TrimSpace(b.String())
		}
	}
	return ""
}

func (w *om2wWriter) finish() error {
	if err := w.x.writeJSON("human_label.json", w.labels); err != nil {
		return err
	}
	return w.x.writeFile("human_labels.jsonl", w.lines.Bytes())
}
