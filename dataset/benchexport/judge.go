package benchexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"waymark/dataset"
	"waymark/dataset/labels"
)

// A judge's verdicts on exported episodes, read back from the layouts the
// benchmarks' judges write, and the judge's agreement with the people who
// reviewed the same episodes: the figures `waymark review stats` gives the
// automatic checks (dataset.CheckAgreement), with F1, NPV and TNR as
// AgentRewardBench reports them.

// Verdict is a judge's verdict on one episode. A nil answer is one the
// judge did not give.
type Verdict struct {
	// Source is the file (and line) it was read from.
	Source    string
	EpisodeID string
	// Judge is the judge's name where the file gives it.
	Judge               string
	Success             *bool
	SideEffect, Looping *bool
	Optimality          *int
}

// ReadVerdicts reads a judge's verdicts from path:
//   - AgentRewardBench's judgments: a folder (every .json under it, as
//     trajectories/judgments/<benchmark>/<agent>/<judge>/<task id>.json) or
//     one judgment file; the episode is the file name's task id
//     ("<benchmark>.<episode id>"), the verdict the response's <success>,
//     <side>, <optimal> and <loop> tags (or "Status:" of its AER judges, the
//     cumulative reward of its functional judge);
//   - Online-Mind2Web's auto-evaluation results: JSON lines (or a JSON
//     list) of objects with task_id (the episode's id) and predicted_label
//     (1 success, 0 failure).
//
// problems lists what could not be read, file by file; the error is for a
// path that cannot be read at all or holds no verdict.
func ReadVerdicts(path string) (vs []Verdict, problems []string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("judge verdicts: %w", err)
	}
	if fi.IsDir() {
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(strings.ToLower(p), ".json") {
				return nil
			}
			more, probs := readVerdictFile(p)
			vs, problems = append(vs, more...), append(problems, probs...)
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("judge verdicts: %w", err)
		}
	} else {
		vs, problems = readVerdictFile(path)
	}
	if len(vs) == 0 {
		msg := fmt.Sprintf("no judge verdict found in %s: give AgentRewardBench judgment files (a folder of <benchmark>.<episode id>.json) or Online-Mind2Web's auto-eval results (JSON lines with task_id and predicted_label)", path)
		if len(problems) > 0 {
			msg += "; " + problems[0]
		}
		return nil, problems, errors.New(msg)
	}
	return vs, problems, nil
}

func readVerdictFile(p string) ([]Verdict, []string) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", p, err)}
	}
	b = bytes.TrimSpace(b)
	var one map[string]any
	if json.Unmarshal(b, &one) == nil {
		if _, ok := one["predicted_label"]; ok {
			return om2wVerdicts([]map[string]any{one}, p, false)
		}
		v, err := arbVerdict(one, p)
		if err != nil {
			return nil, []string{err.Error()}
		}
		return []Verdict{v}, nil
	}
	var list []map[string]any
	if json.Unmarshal(b, &list) == nil {
		return om2wVerdicts(list, p, false)
	}
	// JSON lines.
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var probs []string
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			probs = append(probs, fmt.Sprintf("%s: a line is not JSON (%v)", p, err))
			m = nil
		}
		list = append(list, m)
	}
	vs, more := om2wVerdicts(list, p, true)
	return vs, append(probs, more...)
}

func om2wVerdicts(list []map[string]any, p string, lines bool) ([]Verdict, []string) {
	var vs []Verdict
	var probs []string
	for i, m := range list {
		if m == nil {
			continue
		}
		src := p
		if lines || len(list) > 1 {
			src = fmt.Sprintf("%s:%d", p, i+1)
		}
		id := fmt.Sprint(m["task_id"])
		lab, ok := m["predicted_label"].(float64)
		if m["task_id"] == nil || !ok || (lab != 0 && lab != 1) {
			probs = append(probs, fmt.Sprintf("%s: not an Online-Mind2Web verdict (task_id and predicted_label 0 or 1)", src))
			continue
		}
		s := lab == 1
		vs = append(vs, Verdict{Source: src, EpisodeID: id, Success: &s})
	}
	return vs, probs
}

// arbVerdict reads an AgentRewardBench judgment.
func arbVerdict(j map[string]any, p string) (Verdict, error) {
	stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	v := Verdict{Source: p, EpisodeID: stem}
	if _, id, ok := strings.Cut(stem, "."); ok {
		v.EpisodeID = id
	}
	v.Judge, _ = j["judge"].(string)
	if v.Judge == "functional" {
		r, ok := dig(j, "trajectory_info", "summary_info", "cum_reward").(float64)
		if !ok {
			return v, fmt.Errorf("%s: a functional judgment without trajectory_info.summary_info.cum_reward", p)
		}
		s := r > 0.5
		v.Success = &s
		return v, nil
	}
	choices, _ := dig(j, "response", "choices").([]any)
	if len(choices) == 0 {
		return v, fmt.Errorf("%s: not an AgentRewardBench judgment (no response.choices; an error file of a failed judge call?)", p)
	}
	msg, _ := dig(choices[0].(map[string]any), "message", "content").(string)
	v.Success = yesNo(tag(msg, "success"))
	v.SideEffect = yesNo(tag(msg, "side"))
	v.Looping = yesNo(tag(msg, "loop"))
	if o := strings.TrimSpace(tag(msg, "optimal")); o != "" {
		if n, err := strconv.Atoi(o[:1]); err == nil && n >= 1 && n <= 4 {
			v.Optimality = &n
		}
	}
	if v.Success == nil { // AER's "Status: success", NNetNav's "Reward: 1-5"
		if m := statusRe.FindStringSubmatch(msg); m != nil {
			v.Success = yesNo(m[1])
		} else if m := rewardRe.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			s := n >= 4
			v.Success = &s
		}
	}
	if v.Success == nil {
		return v, fmt.Errorf("%s: the judge's response gives no success verdict (<success>…</success>, Status: or Reward:)", p)
	}
	return v, nil
}

var (
	statusRe = regexp.MustCompile(`(?mi)^\s*Status:\s*"?([A-Za-z]+)`)
	rewardRe = regexp.MustCompile(`(?m)Reward:\s*([1-5])`)
)

func dig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func tag(s, name string) string {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "</"+name+">")
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// yesNo reads AgentRewardBench's answers: successful, success, yes are
// yes; unsuccessful, failure, no are no; anything else is no answer.
func yesNo(s string) *bool {
	s = strings.Trim(strings.ToLower(strings.TrimSpace(s)), `"'.`)
	var v bool
	switch s {
	case "successful", "success", "yes":
		v = true
	case "unsuccessful", "unsuccesful", "failure", "no":
		v = false
	default:
		return nil
	}
	return &v
}

// Figures are the agreement figures of a judge with people: the automatic
// checks' figures (the judge in the check's place) with F1, NPV (of the
// judge's "no", the share people call no) and TNR (of the people's "no",
// the share the judge called no). NaN where undefined.
type Figures struct {
	dataset.CheckFigures
	F1, NPV, TNR float64
}

// Extend adds F1, NPV and TNR to f.
func Extend(f dataset.CheckFigures) Figures {
	r := func(a, b int) float64 {
		if b == 0 {
			return math.NaN()
		}
		return float64(a) / float64(b)
	}
	return Figures{CheckFigures: f, F1: r(2*f.TP, 2*f.TP+f.FP+f.FN), NPV: r(f.TN, f.TN+f.FN), TNR: r(f.TN, f.TN+f.FP)}
}

// Question is one question a judge and people both answered (success, side
// effect, looping), with the agreement overall, per task category and per
// task.
type Question struct {
	Name      string
	Agreement dataset.CheckAgreement
}

// JudgeAgreement is a judge's agreement with the people.
type JudgeAgreement struct {
	// Verdicts read; Matched of them name an episode of this store that
	// people gave an outcome.
	Verdicts, Matched int
	// Unknown lists the verdicts' episode ids this store does not have.
	Unknown []string
	// NoOutcome counts verdicts on episodes without a settled outcome
	// (never reviewed, or an unsettled conflict); InvalidTask those on
	// episodes labelled invalid task (left out, as the checks' are).
	NoOutcome, InvalidTask int
	// Duplicates counts verdicts on an episode already judged (the first
	// counts).
	Duplicates int
	// Questions: success first, then side effect and looping where the
	// judge answered them.
	Questions []Question
}

// Agree measures the verdicts against the people's settled labels: the
// settling label where reviewers disagreed, else what they agree on. For
// success, people's yes is the outcome success and no is failure or not
// executable; for side effect and looping, their yes or no (unsure and
// unanswered are left out).
func Agree(ctx context.Context, store *dataset.Store, vs []Verdict) (JudgeAgreement, error) {
	ja := JudgeAgreement{Verdicts: len(vs)}
	eps := map[string]dataset.LabeledEpisode{}
	for l, err := range store.LabeledEpisodes(ctx, dataset.LabelFilter{IncludeUnreviewed: true}) {
		if err != nil {
			return ja, fmt.Errorf("reading the reviewed episodes: %w", err)
		}
		eps[l.ID] = l
	}
	set, err := labels.NewSet(ctx, store)
	if err != nil {
		return ja, err
	}
	var success, side, loop []dataset.CheckItem
	seen := map[string]bool{}
	for _, v := range vs {
		l, ok := eps[v.EpisodeID]
		if !ok {
			if _, err := store.GetEpisode(ctx, v.EpisodeID); err != nil {
				ja.Unknown = append(ja.Unknown, v.EpisodeID)
			} else {
				ja.NoOutcome++ // interrupted and never labelled, recording, or discarded
			}
			continue
		}
		if seen[v.EpisodeID] {
			ja.Duplicates++
			continue
		}
		seen[v.EpisodeID] = true
		if l.Outcome == "" {
			ja.NoOutcome++
			continue
		}
		if l.Outcome == dataset.OutcomeInvalidTask {
			ja.InvalidTask++
			continue
		}
		ja.Matched++
		item := dataset.CheckItem{TaskID: l.TaskID, Goal: l.Goal, Category: l.Category}
		if v.Success != nil {
			it := item
			it.Passed, it.Success = *v.Success, l.Outcome == dataset.OutcomeSuccess
			success = append(success, it)
		}
		if v.SideEffect == nil && v.Looping == nil {
			continue
		}
		revs, err := store.CurrentReviews(ctx, l.ID)
		if err != nil {
			return ja, err
		}
		_, settled := set.Of(ctx, l, revs)
		for _, q := range []struct {
			judge  *bool
			people string
			list   *[]dataset.CheckItem
		}{{v.SideEffect, settled.SideEffect, &side}, {v.Looping, settled.Looping, &loop}} {
			if q.judge == nil || (q.people != dataset.JudgeYes && q.people != dataset.JudgeNo) {
				continue
			}
			it := item
			it.Passed, it.Success = *q.judge, q.people == dataset.JudgeYes
			*q.list = append(*q.list, it)
		}
	}
	sort.Strings(ja.Unknown)
	ja.Questions = append(ja.Questions, Question{Name: "success", Agreement: dataset.ComputeCheckAgreement(success)})
	if len(side) > 0 {
		ja.Questions = append(ja.Questions, Question{Name: "side effect", Agreement: dataset.ComputeCheckAgreement(side)})
	}
	if len(loop) > 0 {
		ja.Questions = append(ja.Questions, Question{Name: "looping", Agreement: dataset.ComputeCheckAgreement(loop)})
	}
	return ja, nil
}
