// Package labels builds labels.jsonl, the human labels every export that
// carries labels writes beside its own files: each reviewer's own current
// label of an episode (with their name, the time it was saved and the
// guidelines version in force), primary first, then the episode's settled
// label; and the text of each guidelines version those labels name
// (guidelines/v<N>-<sha>.md).
package labels

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"waymark/dataset"
)

// File is the name of the labels file inside an export.
const File = "labels.jsonl"

// Label is one line of labels.jsonl: a reviewer's own label of an episode
// (Kind "reviewer"), or the episode's settled label (Kind "settled": the
// settling label where reviewers disagreed, else what the reviewers agree
// on). Step numbers are the store's step indices (0 is the start page).
type Label struct {
	Kind      string `json:"kind"`
	EpisodeID string `json:"episode_id"`
	TaskID    string `json:"task_id"`
	// Primary: the reviewer label AgentRewardBench's annotations.csv puts
	// first (see Set.Of).
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

// Set turns reviews into labels and gathers the lines of labels.jsonl and
// the guidelines versions they name.
type Set struct {
	store *dataset.Store
	// versions numbers the guidelines versions by id.
	versions map[string]dataset.GuidelineVersion
	// used are the versions the labels added name.
	used  map[string]bool
	lines bytes.Buffer
}

// NewSet reads the store's guidelines versions.
func NewSet(ctx context.Context, store *dataset.Store) (*Set, error) {
	vs, err := store.GuidelineVersions(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the review guidelines' versions: %w", err)
	}
	s := &Set{store: store, versions: map[string]dataset.GuidelineVersion{}, used: map[string]bool{}}
	for _, v := range vs {
		s.versions[v.ID] = v
	}
	return s, nil
}

// Of turns an episode's current reviews into labels: the reviewers' own,
// primary first, and the settled one (nil when the episode has no review).
//
// The primary label is the one AgentRewardBench scores a judge against: the
// earliest review whose outcome is the settled outcome, else (an unsettled
// conflict, or a settling label no reviewer agreed with) the earliest
// review. The others follow in the order they were saved.
func (s *Set) Of(ctx context.Context, e dataset.LabeledEpisode, revs []dataset.Review) ([]Label, *Label) {
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
		out = append(out, s.label(e, own[primary], "reviewer"))
		out[0].Primary = true
		for i, r := range own {
			if i != primary {
				out = append(out, s.label(e, r, "reviewer"))
			}
		}
	}
	// The settled label.
	var st Label
	switch {
	case settling != nil:
		st = s.label(e, *settling, "settled")
		st.SettledBy = "settling_label"
	case e.Outcome != "":
		// Every reviewer agrees on the outcome: the newest review gives the
		// failure fields, reason and key screenshots (as the episode_outcomes
		// view does); each other answer is the one every reviewer who gave
		// it agrees on.
		st = s.label(e, own[len(own)-1], "settled")
		st.SettledBy, st.Reviewer, st.ReviewID = "agreement", "", ""
		st.SideEffect = agreed(own, func(r dataset.Review) string { return r.SideEffect })
		st.Looping = agreed(own, func(r dataset.Review) string { return r.Looping })
		st.Optimality = nil
		if o := agreed(own, func(r dataset.Review) string {
			if r.Optimality == 0 {
				return ""
			}
			return strconv.Itoa(r.Optimality)
		}); o != "" {
			v, _ := strconv.Atoi(o)
			st.Optimality = &v
		}
		st.StepLabels = map[string]string{}
	default:
		st = Label{Kind: "settled", EpisodeID: e.ID, TaskID: e.TaskID, StepLabels: map[string]string{}}
	}
	if e.Outcome != "" {
		// The store's settled outcome and failure fields (episode_outcomes).
		st.Outcome, st.FailureStep, st.FailureType = string(e.Outcome), e.FailureStep, e.FailureType
	}
	if st.SettledBy != "" {
		if sl, err := s.store.SettledStepLabels(ctx, e.ID); err == nil {
			for k, v := range sl {
				st.StepLabels[strconv.Itoa(k)] = v
			}
		}
	}
	return out, &st
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

func (s *Set) label(e dataset.LabeledEpisode, r dataset.Review, kind string) Label {
	l := Label{Kind: kind, EpisodeID: e.ID, TaskID: e.TaskID, Reviewer: r.Reviewer, ReviewID: r.ID,
		Time: r.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), GuidelinesSHA256: r.GuidelinesID,
		Outcome: string(r.Outcome), FailureStep: r.FailureStep, FailureType: r.FailureType, Reason: r.Reason,
		SideEffect: r.SideEffect, Looping: r.Looping, KeySteps: r.KeySteps, StepLabels: map[string]string{}}
	if l.KeySteps == nil {
		l.KeySteps = []int{}
	}
	if v, ok := s.versions[r.GuidelinesID]; ok {
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

// Add adds a line to labels.jsonl.
func (s *Set) Add(l Label) {
	if l.KeySteps == nil {
		l.KeySteps = []int{}
	}
	if l.GuidelinesSHA256 != "" {
		if _, ok := s.versions[l.GuidelinesSHA256]; ok {
			s.used[l.GuidelinesSHA256] = true
		}
	}
	b, _ := json.Marshal(l)
	s.lines.Write(b)
	s.lines.WriteByte('\n')
}

// Bytes is labels.jsonl: the lines added, in order.
func (s *Set) Bytes() []byte { return s.lines.Bytes() }

// Guideline is one guidelines version's file.
type Guideline struct {
	// Path is guidelines/v<N>-<first 12 hex digits of its SHA-256>.md.
	Path string
	Text []byte
}

// Guidelines are the files of the guidelines versions the labels added
// name, oldest version first.
func (s *Set) Guidelines() []Guideline {
	var ids []string
	for id := range s.used {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return s.versions[ids[i]].Version < s.versions[ids[j]].Version })
	out := make([]Guideline, 0, len(ids))
	for _, id := range ids {
		v := s.versions[id]
		out = append(out, Guideline{Path: fmt.Sprintf("guidelines/v%d-%s.md", v.Version, id[:12]), Text: []byte(v.Text)})
	}
	return out
}
