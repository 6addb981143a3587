package benchexport

import (
	"encoding/json"
	"slices"
	"strconv"

	"waymark/dataset"
)

// Label is one line of labels.jsonl: a reviewer's own label of an episode
// (Kind "reviewer"), or the episode's settled label (Kind "settled": the
// settling label where reviewers disagreed, else what the reviewers agree
// on). Step numbers are the store's step indices (0 is the start page).
type Label struct {
	Kind      string `json:"kind"`
	EpisodeID string `json:"episode_id"`
	TaskID    string `json:"task_id"`
	// Primary: the reviewer label AgentRewardBench's annotations.csv puts
	// first (see labelsOf).
	Primary bool `json:"primary,omitempty"`
	// Reviewer is the reviewer's name (their id in Waymark). For a settled
	// label: who wrote the settling label, or "" when the reviewers agreed.
	Reviewer string `json:"reviewer"`
	ReviewID string `json:"review_id,omitempty"`
	// SettledBy is "settling_label", "agreement" or "" (an unsettled
	// conflict: no outcome).
	SettledBy string `json:"settled_by,omitempty"`
	// Time is when the review was saved (RFC 3339, UTC).
	Time string `json:"time,omitempty"`
	// GuidelinesVersion and GuidelinesSHA256 name the review guidelines
	// in force when it was saved (guidelines/v<N>-<sha>.md); 0 and "" for a
	// review saved before the guidelines were versioned.
	GuidelinesVersion int    `json:"guidelines_version"`
	GuidelinesSHA256  string `json:"guidelines_sha256"`
	// Outcome is success, failure, not_executable or invalid_task ("" for
	// an unsettled conflict).
	Outcome     string `json:"outcome"`
	FailureStep *int   `json:"failure_step"`
	FailureType string `json:"failure_type"`
	Reason      string `json:"reason"`
	// SideEffect and Looping are yes, no, unsure or "" (not answered, or
	// reviewers who answered disagree); Optimality 1-4 or null.
	SideEffect string `json:"side_effect"`
	Looping    string `json:"looping"`
	Optimality *int   `json:"optimality"`
	// KeySteps are the steps whose screenshots were marked key evidence.
	KeySteps   []int             `json:"key_steps"`
	StepLabels map[string]string `json:"step_labels"`
}

// labelsOf turns an episode's current reviews into labels: the reviewers'
// own, primary first, and the settled one (nil when the episode has no
// review).
//
// The primary label is the one AgentRewardBench scores a judge against: the
// earliest review whose outcome is the settled outcome, else (an unsettled
// conflict, or a settling label no reviewer agreed with) the earliest
// review. The others follow in the order they were saved.
func (x *exporter) labelsOf(e *episode, revs []dataset.Review) ([]Label, *Label) {
	var own []dataset.Review
	var settling *dataset.Review
	for i := range revs {
		if revs[i].Settles {
			if settling == nil || revs[i].CreatedAt.After(settling.CreatedAt) {
				settling = &revs[i]
			}
			continue
		}
		own = append(own, revs[i])
	}
	slices.SortStableFunc(own, func(a, b dataset.Review) int { return a.CreatedAt.Compare(b.CreatedAt) })
	if len(own) == 0 && settling == nil {
		return nil, nil
	}
	primary := 0
	if e.Outcome != "" {
		for i, r := range own {
			if r.Outcome == e.Outcome {
				primary = i
				break
			}
		}
	}
	var out []Label
	if len(own) > 0 {
		out = append(out, x.label(e, own[primary], "reviewer"))
		out[0].Primary = true
		for i, r := range own {
			if i != primary {
				out = append(out, x.label(e, r, "reviewer"))
			}
		}
	}
	// The settled label.
	var s Label
	switch {
	case settling != nil:
		s = x.label(e, *settling, "settled")
		s.SettledBy = "settling_label"
	case e.Outcome != "":
		// Every reviewer agrees on the outcome: the newest review gives the
		// failure fields, reason and key screenshots (as the episode_outcomes
		// view does); each other answer is the one every reviewer who gave
		// it agrees on.
		s = x.label(e, own[len(own)-1], "settled")
		s.SettledBy, s.Reviewer, s.ReviewID = "agreement", "", ""
		s.SideEffect = agreed(own, func(r dataset.Review) string { return r.SideEffect })
		s.Looping = agreed(own, func(r dataset.Review) string { return r.Looping })
		s.Optimality = nil
		if o := agreed(own, func(r dataset.Review) string {
			if r.Optimality == 0 {
				return ""
			}
			return strconv.Itoa(r.Optimality)
		}); o != "" {
			v, _ := strconv.Atoi(o)
			s.Optimality = &v
		}
		s.StepLabels = map[string]string{}
	default:
		s = Label{Kind: "settled", EpisodeID: e.ID, TaskID: e.TaskID, StepLabels: map[string]string{}}
	}
	if e.Outcome != "" {
		// The store's settled outcome and failure fields (episode_outcomes).
		s.Outcome, s.FailureStep, s.FailureType = string(e.Outcome), e.FailureStep, e.FailureType
	}
	if s.SettledBy != "" {
		if sl, err := x.store.SettledStepLabels(x.ctx, e.ID); err == nil {
			for k, v := range sl {
				s.StepLabels[strconv.Itoa(k)] = v
			}
		}
	}
	return out, &s
}

// agreed is the value every review that gives one agrees on ("" if none
// gives one or they differ).
func agreed(rs []dataset.Review, get func(dataset.Review) string) string {
	v := ""
	for _, r := range rs {
		switch g := get(r); {
		case g == "":
		case v == "":
			v = g
		case v != g:
			return ""
		}
	}
	return v
}

func (x *exporter) label(e *episode, r dataset.Review, kind string) Label {
	l := Label{Kind: kind, EpisodeID: e.ID, TaskID: e.TaskID, Reviewer: r.Reviewer, ReviewID: r.ID,
		Time: r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), GuidelinesSHA256: r.GuidelinesID,
		Outcome: string(r.Outcome), FailureStep: r.FailureStep, FailureType: r.FailureType, Reason: r.Reason,
		SideEffect: r.SideEffect, Looping: r.Looping, KeySteps: r.KeySteps, StepLabels: map[string]string{}}
	if l.KeySteps == nil {
		l.KeySteps = []int{}
	}
	if v, ok := x.versions[r.GuidelinesID]; ok {
		l.GuidelinesVersion = v.Version
	}
	if r.Optimality > 0 {
		v := r.Optimality
		l.Optimality = &v
	}
	for k, v := range r.StepLabels {
		l.StepLabels[strconv.Itoa(k)] = v
	}
	return l
}

// writeLabel adds a line to labels.jsonl.
func (x *exporter) writeLabel(l Label) {
	if l.KeySteps == nil {
		l.KeySteps = []int{}
	}
	if l.GuidelinesSHA256 != "" {
		if _, ok := x.versions[l.GuidelinesSHA256]; ok {
			x.usedGuidelines[l.GuidelinesSHA256] = true
		}
	}
	b, _ := json.Marshal(l)
	x.labels.Write(b)
	x.labels.WriteByte('\n')
}
