package benchexport

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path"
	"strconv"

	"waymark/dataset"
	"waymark/engine/action"
)

// AgentRewardBench (McGill-NLP/agent-reward-bench): its cleaned
// trajectories, screenshots and annotations, laid out as its Hugging Face
// dataset is, with the export folder as the download root:
//
//	trajectories/cleaned/<benchmark>/<agent>/<agent>_on_<benchmark>/<task_id>.json
//	trajectories/screenshots/<benchmark>/<agent>/<task_id>/screenshot_step_<n>.png
//	annotations.csv          one row per reviewer per episode, primary first
//	annotations_settled.csv  one row per episode with a settled outcome
//	splits.csv               task_id, benchmark, split (every episode "test")
//
// The task id is "<benchmark>.<episode id>" (the benchmark is the part
// before the first '.', as AgentRewardBench reads it). Step n of a
// trajectory is the page the n-th action was chosen on (Waymark's step n,
// the start page for n = 0) with that action, BrowserGym-written; the last
// step has no action, as AgentLab's do.

type arbWriter struct {
	x        *exporter
	ann, set bytes.Buffer
	annW     *csv.Writer
	setW     *csv.Writer
	splits   bytes.Buffer
}

// arbColumns are annotations.csv's columns: AgentRewardBench's own, then
// Waymark's (its readers read by column name).
var arbColumns = []string{"annotator_name", "benchmark", "task_id", "model_name", "exp_name",
	"trajectory_success", "trajectory_side_effect", "trajectory_optimality", "trajectory_looping",
	"annotator_type", "episode_id", "outcome", "reviewed_at", "guidelines_version", "guidelines_sha256"}

func newARB(x *exporter) *arbWriter {
	w := &arbWriter{x: x}
	w.annW, w.setW = csv.NewWriter(&w.ann), csv.NewWriter(&w.set)
	w.annW.Write(arbColumns)
	w.setW.Write(arbColumns)
	w.splits.WriteString("task_id,benchmark,split\n")
	return w
}

// arbSuccess is AgentRewardBench's trajectory_success: a not-executable
// episode did not succeed; an invalid task has nothing to judge
// ("Unsure", which its scorer leaves out).
func arbSuccess(o string) string {
	switch dataset.Outcome(o) {
	case dataset.OutcomeSuccess:
		return "Successful"
	case dataset.OutcomeFailure, dataset.OutcomeNotExecutable:
		return "Unsuccessful"
	}
	return "Unsure"
}

// arbYesNo is a side-effect or looping answer; unanswered is "Unsure" (its
// scorer cannot read an empty cell).
func arbYesNo(v string) string {
	switch v {
	case dataset.JudgeYes:
		return "Yes"
	case dataset.JudgeNo:
		return "No"
	}
	return "Unsure"
}

var arbOptimality = []string{"1. Complete Failure", "2. Suboptimal", "3. Somewhat Optimal", "4. Completely Optimal"}

func arbOpt(v *int) string {
	if v == nil || *v < 1 || *v > 4 {
		return "Unsure"
	}
	return arbOptimality[*v-1]
}

func (w *arbWriter) taskID(e *episode) string { return w.x.o.Benchmark + "." + e.ID }

func (w *arbWriter) episode(e *episode) error {
	b := w.x.o.Benchmark
	tid := w.taskID(e)
	exp := e.Agent + "_on_" + b
	shotDir := path.Join("trajectories/screenshots", b, e.Agent, tid)
	var steps []map[string]any
	for i, st := range e.Steps {
		shot := path.Join(shotDir, fmt.Sprintf("screenshot_step_%d.png", i))
		if len(st.Screenshot) > 0 {
			if err := w.x.writeFile(shot, st.Screenshot); err != nil {
				return err
			}
		} else {
			shot = ""
		}
		s := map[string]any{
			"num": i, "reasoning": nil, "action": nil, "screenshot_path": nullIfEmpty(shot), "url": st.URL,
			"open_pages_urls": []string{st.URL}, "focused_element": nil, "last_action_error": st.Error,
			"stats": map[string]any{}, "axtree": nil, "axtree_pruned": nil, "axtree_obj": nil,
			"chat_messages": []any{}, "bounding_boxes": map[string]any{}, "extra_element_properties": map[string]any{},
			"waymark_step": st.Index,
		}
		if i+1 < len(e.Steps) {
			next := e.Steps[i+1]
			if a := actionOf(next); a != nil {
				s["action"] = nullIfEmpty(action.BrowserGym(*a))
			}
			if t := thoughtOf(next); t != "" {
				s["reasoning"] = t
			}
		}
		if xs := e.Extras[i]; xs != nil {
			s["axtree"], s["axtree_pruned"] = nullIfEmpty(xs.AXTreeTxt), nullIfEmpty(xs.AXTreeTxt)
			if len(xs.OpenPagesURLs) > 0 {
				s["open_pages_urls"] = xs.OpenPagesURLs
			}
			s["focused_element"] = nullIfEmpty(xs.FocusedBid)
			if xs.ElementProps != nil {
				s["bounding_boxes"], s["extra_element_properties"] = xs.ElementProps, xs.ElementProps
			}
		}
		steps = append(steps, s)
	}
	reward := 0.0
	if e.AutoReward != nil {
		reward = *e.AutoReward
	}
	var errMsg any
	if e.EndReason != action.EndFinished {
		errMsg = "episode ended: " + string(e.EndReason)
	}
	var seed any
	if e.Task.Manifest != nil && e.Task.Manifest.Seed != nil {
		seed = *e.Task.Manifest.Seed
	}
	traj := map[string]any{
		"benchmark": b, "agent": e.Agent, "model": e.Annotator, "valid": true, "experiment": exp,
		"goal": e.Goal + "\n", "seed": seed, "model_args": map[string]any{}, "flags": map[string]any{},
		"summary_info": map[string]any{
			"n_steps": len(e.Steps) - 1, "cum_reward": reward, "cum_raw_reward": reward, "err_msg": errMsg, "stack_trace": nil,
			"terminated": e.EndReason == action.EndFinished, "truncated": e.EndReason == action.EndStepLimit,
		},
		"package_version": "waymark",
		"steps":           steps,
		"waymark": map[string]any{
			"episode_id": e.ID, "task_id": e.TaskID, "source_id": e.Task.SourceID, "category": e.Category,
			"start_url": e.StartURL, "annotator": e.Annotator, "final_answer": answerOf(e), "end_reason": string(e.EndReason),
			"auto_reward": e.AutoReward,
		},
	}
	if err := w.x.writeJSON(path.Join("trajectories/cleaned", b, e.Agent, exp, tid+".json"), traj); err != nil {
		return err
	}
	row := func(cw *csv.Writer, l Label, kind string) {
		cw.Write([]string{l.Reviewer, b, tid, e.Agent, exp, arbSuccess(l.Outcome), arbYesNo(l.SideEffect), arbOpt(l.Optimality),
			arbYesNo(l.Looping), kind, e.ID, l.Outcome, l.Time, versionText(l.GuidelinesVersion), l.GuidelinesSHA256})
	}
	for i, l := range e.Reviews {
		kind := "secondary"
		if i == 0 {
			kind = "primary"
		}
		row(w.annW, l, kind)
	}
	if e.Settled != nil && e.Settled.Outcome != "" {
		name := e.Settled.Reviewer
		if name == "" {
			name = "agreement"
		}
		l := *e.Settled
		l.Reviewer = name
		row(w.setW, l, "settled")
	}
	fmt.Fprintf(&w.splits, "%s,%s,test\n", tid, b)
	return nil
}

func versionText(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (w *arbWriter) finish() error {
	w.annW.Flush()
	w.setW.Flush()
	if err := w.x.writeFile("annotations.csv", w.ann.Bytes()); err != nil {
		return err
	}
	if err := w.x.writeFile("annotations_settled.csv", w.set.Bytes()); err != nil {
		return err
	}
	return w.x.writeFile("splits.csv", w.splits.Bytes())
}
