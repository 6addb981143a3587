package hfexport

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"waymark/dataset"
	"waymark/engine/action"
)

// cardStats gathers, during the export, the figures the card's prose cites.
type cardStats struct {
	episodesByCat map[string]int
	stepsByCat    map[string]int
	outcomes      map[dataset.Outcome]int // "" = no outcome
	annotators    map[string]int
	ops           map[action.Op]int
	actionSets    map[string]int
	first, last   time.Time
	multiReviewed int // episodes with ≥ 2 current reviews
	agreed        int // … whose reviews all agree
	settled       int // conflicts settled by a settling label
	unresolved    int // conflicts exported with a null outcome
	reviewers     int
	badImages     int // stored screenshots that were not PNGs
	// failures whose failing step an edit removed (step and type null)
	failureStepsRemoved int
	kappa               float64 // Fleiss' kappa over multiply reviewed episodes
	kappaOK             bool
	reviewed            int // exported episodes with ≥ 1 review
	interrupted         int // exported episodes whose recording was interrupted
	edited              int // exported episodes with removed steps
	resumed             int // exported episodes resumed after an interruption
	branches            int // exported episodes that continue another from a step
	// intervened episodes had someone other than their annotator take
	// over, interventions times in all, with takenSteps steps.
	intervened, interventions, takenSteps int
	// archived episodes replay offline from their own recorded traffic;
	// offline of them were replayed so, hermetic of those faithfully (the
	// newest offline replay: every step matched, every request served).
	archived, offline, hermetic int
	// redactBoxes are the boxes blacked out of the exported steps'
	// screenshots; policies counts the exported episodes by redaction
	// policy ("" for none).
	redactBoxes int
	policies    map[string]int
	har         harStats
	grounding   groundingStats
	checks      checkStats
	intents     intentStats // planned, explorations, hindsight (intent.go)
	labels      labelStats  // labels.jsonl (labels.go)
}

func (s *cardStats) init() {
	s.episodesByCat = map[string]int{}
	s.stepsByCat = map[string]int{}
	s.outcomes = map[dataset.Outcome]int{}
	s.annotators = map[string]int{}
	s.ops = map[action.Op]int{}
	s.actionSets = map[string]int{}
}

func (s *cardStats) add(e *episodeInfo, steps int, start time.Time, edited, resumed bool) {
	if edited {
		s.edited++
	}
	if resumed {
		s.resumed++
	}
	if e.ParentEpisodeID != "" {
		s.branches++
	}
	s.episodesByCat[e.Category]++
	s.stepsByCat[e.Category] += steps
	if e.Outcome != "" {
		s.outcomes[e.Outcome]++
	} else {
		s.outcomes[""]++
	}
	s.annotators[e.Annotator]++
	s.checks.add(e)
	s.actionSets[string(e.ActionSet)]++
	if !start.IsZero() {
		if s.first.IsZero() || start.Before(s.first) {
			s.first = start
		}
		if start.After(s.last) {
			s.last = start
		}
	}
	if e.NumReviews > 0 {
		s.reviewed++
	}
	if e.Status == dataset.StatusInterrupted {
		s.interrupted++
	}
	if e.NumReviews >= 2 {
		s.multiReviewed++
		if !e.Conflict {
			s.agreed++
		}
	}
	if e.Conflict {
		if e.Outcome != "" {
			s.settled++
		} else {
			s.unresolved++
		}
	}
}

// addArchive counts an exported episode's replay archive and its newest
// offline replay.
func (s *cardStats) addArchive(ctx context.Context, store *dataset.Store, id string) error {
	ok, err := store.HasArchive(ctx, id)
	if err != nil || !ok {
		return err
	}
	s.archived++
	runs, err := store.ReplayRuns(ctx, id)
	if err != nil {
		return err
	}
	for _, r := range runs { // newest first
		if r.Fidelity != nil {
			s.offline++
			if r.Fidelity.Hermetic && r.OK() {
				s.hermetic++
			}
			break
		}
	}
	return nil
}

// addPolicy counts an exported episode's redaction policy.
func (s *cardStats) addPolicy(engineJSON string) {
	var info struct {
		Redaction *struct {
			Name string `json:"name"`
		} `json:"redaction"`
	}
	name := ""
	if json.Unmarshal([]byte(engineJSON), &info) == nil && info.Redaction != nil {
		name = info.Redaction.Name
		if name == "" {
			name = "unnamed"
		}
	}
	if s.policies == nil {
		s.policies = map[string]int{}
	}
	s.policies[name]++
}

// redactionLine says what the card says of redaction: the boxes over the
// steps, by policy, and the episodes recorded without one.
func (s *cardStats) redactionLine(steps int) string {
	var names []string
	for n := range s.policies {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%q (%d episodes)", n, s.policies[n]))
	}
	if len(parts) == 0 {
		return "Redaction: none of the episodes was recorded with a redaction policy; their screenshots, trees and traffic may show personal data."
	}
	line := fmt.Sprintf("Redaction: %d boxes blacked out over %d steps; policy %s.", s.redactBoxes, steps, strings.Join(parts, ", "))
	if n := s.policies[""]; n > 0 {
		line += fmt.Sprintf(" %d episodes were recorded without a policy: their screenshots, trees and traffic may show personal data.", n)
	}
	return line
}

func (s *cardStats) addInterventions(n, steps int) {
	if n > 0 {
		s.intervened++
	}
	s.interventions += n
	s.takenSteps += steps
}

// loadReviewers counts the distinct reviewers of the exported episodes and
// computes Fleiss' kappa (for varying numbers of raters) over those with two
// or more current, non-settling reviews.
func (s *cardStats) loadReviewers(ctx context.Context, store *dataset.Store, eps []*episodeInfo) error {
	ids := make(map[string]bool, len(eps))
	for _, e := range eps {
		ids[e.ID] = true
	}
	who := map[string]bool{}
	var order []string
	counts := map[string]map[dataset.Outcome]int{}
	for r, err := range store.AllCurrentReviews(ctx) {
		if err != nil {
			return fmt.Errorf("reading reviewers: %w", err)
		}
		ep := r.EpisodeID
		if !ids[ep] {
			continue
		}
		who[r.Reviewer] = true
		if r.Settles {
			continue
		}
		if counts[ep] == nil {
			counts[ep] = map[dataset.Outcome]int{}
			order = append(order, ep)
		}
		counts[ep][r.Outcome]++
	}
	s.reviewers = len(who)
	s.kappa, s.kappaOK = fleiss(order, counts)
	return nil
}

// fleiss is Fleiss' kappa over items rated by two or more raters, in a fixed
// order so the figure is the same on every export.
func fleiss(order []string, counts map[string]map[dataset.Outcome]int) (float64, bool) {
	var sumP float64
	var items int
	total := map[dataset.Outcome]int{}
	var ratings int
	for _, ep := range order {
		c := counts[ep]
		n := 0
		for _, o := range dataset.Outcomes {
			n += c[o]
		}
		if n < 2 {
			continue
		}
		agree := 0
		for _, o := range dataset.Outcomes {
			agree += c[o] * (c[o] - 1)
			total[o] += c[o]
		}
		sumP += float64(agree) / float64(n*(n-1))
		ratings += n
		items++
	}
	if items == 0 {
		return 0, false
	}
	pBar := sumP / float64(items)
	var pe float64
	for _, o := range dataset.Outcomes {
		p := float64(total[o]) / float64(ratings)
		pe += p * p
	}
	if pe == 1 {
		return 0, false // every rating in one class: kappa is undefined
	}
	return (pBar - pe) / (1 - pe), true
}

func sizeCategory(n int) string {
	switch {
	case n < 1_000:
		return "n<1K"
	case n < 10_000:
		return "1K<n<10K"
	case n < 100_000:
		return "10K<n<100K"
	case n < 1_000_000:
		return "100K<n<1M"
	case n < 10_000_000:
		return "1M<n<10M"
	case n < 100_000_000:
		return "10M<n<100M"
	}
	return "100M<n<1B"
}

// DefaultName is the card's title when none is given.
const DefaultName = "Waymark browser task demonstrations"

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func who(humans, agents int) string {
	switch {
	case agents == 0:
		return fmt.Sprintf("All episodes are human demonstrations, by %s.", plural(humans, "annotator", "annotators"))
	case humans == 0:
		return fmt.Sprintf("All episodes are agent rollouts, by %s.", plural(agents, "agent", "agents"))
	}
	return fmt.Sprintf("They mix human demonstrations (%s) and agent rollouts (%s); the `annotator` column says which (agents are named `agent:<name>`).",
		plural(humans, "person", "people"), plural(agents, "agent", "agents"))
}

func sortedKeys(m map[string]int) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

func joinCounts(keys []string, m map[string]int, unit string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d %s)", k, m[k], unit)
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// stepsTotal is the number of exported steps.
func stepsTotal(s *cardStats) int {
	n := 0
	for _, v := range s.stepsByCat {
		n += v
	}
	return n
}
