package hfexport

import (
	"context"
	"fmt"
	"sort"
	"strconv"
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
	har                                   harStats
	grounding                             groundingStats
	checks                                checkStats
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

// renderCard writes README.md: the YAML front matter (configs and the same
// features as the Parquet files) and prose written from the data. It holds no
// time of export, so the same data gives the same card.
func renderCard(o *Options, splits []SplitCount, s *cardStats) string {
	name := strings.TrimSpace(o.Name)
	if name == "" {
		name = DefaultName
	}
	var totalEp, totalSteps int
	for _, sp := range splits {
		totalEp += sp.Episodes
		totalSteps += sp.Steps
	}
	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "pretty_name: %s\n", yamlScalar(name))
	fmt.Fprintf(&b, "license: %s\n", yamlScalar(o.License))
	b.WriteString("task_categories:\n- reinforcement-learning\n- image-text-to-text\n")
	b.WriteString("tags:\n- web-agents\n- gui-agents\n- browser\n- trajectories\n- screenshots\n- demonstrations\n- waymark\n")
	fmt.Fprintf(&b, "size_categories:\n- %s\n", sizeCategory(totalSteps))
	b.WriteString("configs:\n")
	for _, cfg := range []string{"steps", "episodes"} {
		fmt.Fprintf(&b, "- config_name: %s\n", cfg)
		if cfg == "steps" {
			b.WriteString("  default: true\n")
		}
		b.WriteString("  data_files:\n")
		for _, sp := range splits {
			if cfg == "steps" && sp.Steps == 0 {
				continue
			}
			fmt.Fprintf(&b, "  - split: %s\n    path: %s/%s-*.parquet\n", sp.Name, cfg, sp.Name)
		}
	}
	b.WriteString("dataset_info:\n")
	for _, cfg := range []struct {
		name string
		fs   []feature
	}{{"steps", stepsFeatures}, {"episodes", episodesFeatures}} {
		fmt.Fprintf(&b, "- config_name: %s\n  features:\n", cfg.name)
		writeFeaturesYAML(&b, cfg.fs, 2)
		b.WriteString("  splits:\n")
		for _, sp := range splits {
			n := sp.Episodes
			if cfg.name == "steps" {
				n = sp.Steps
				if n == 0 {
					continue
				}
			}
			fmt.Fprintf(&b, "  - name: %s\n    num_examples: %d\n", sp.Name, n)
		}
	}
	b.WriteString("---\n\n")

	fmt.Fprintf(&b, "# %s\n\n", name)
	humans, agents := 0, 0
	for a := range s.annotators {
		if strings.HasPrefix(a, "agent:") {
			agents++
		} else {
			humans++
		}
	}
	fmt.Fprintf(&b, "%d episodes (%d steps) of browser tasks, each a goal in plain words and the "+
		"sequence of actions taken in a real Chromium to reach it, with a screenshot of what the actor saw "+
		"before every action. %s\n\n", totalEp, totalSteps, who(humans, agents))
	if s.intervened > 0 {
		fmt.Fprintf(&b, "Shared control: in %s a person took over from the agent (%s in all, %s by the person), "+
			"corrected it by hand and handed control back; each step's `actor` says who acted (`agent:<name>` or "+
			"`human:<name>`) and `num_interventions` counts an episode's takeovers.\n\n",
			plural(s.intervened, "episode", "episodes"), plural(s.interventions, "takeover", "takeovers"), plural(s.takenSteps, "step", "steps"))
	}

	b.WriteString("## How it was collected\n\n")
	b.WriteString("The episodes were recorded with Waymark (a desktop recorder for browser " +
		"demonstrations). A person (or an agent connected over the OpenEnv WebSocket protocol) sees a live " +
		"Chromium page of exactly 800×600 CSS pixels at device scale 1 and acts on it with a small typed action " +
		"vocabulary; every action, the page's screenshot (a lossless PNG) and URL after it, and the step's timings " +
		"were stored as they happened. Reviewers then labelled each episode with an outcome, for failures the " +
		"first failing step and a failure type, a reason in their own words, and flags on single steps " +
		"(`mistake`: wrong but recovered from; `unnecessary`: a harmless detour).\n\n")
	if !s.first.IsZero() {
		first, last := s.first.UTC().Format("2006-01-02"), s.last.UTC().Format("2006-01-02")
		if first == last {
			fmt.Fprintf(&b, "Episodes in this export were recorded on %s (UTC).\n\n", first)
		} else {
			fmt.Fprintf(&b, "Episodes in this export started between %s and %s (UTC).\n\n", first, last)
		}
	}
	if o.IncludeUnreviewed {
		b.WriteString("Finished episodes are included; those without an agreed outcome (never reviewed, or " +
			"reviewers disagreeing) are included with a null `outcome`.")
	} else {
		b.WriteString("Finished episodes with an outcome are included: a single review, reviews that all " +
			"agree, or a settling label for reviews that disagreed.")
	}
	b.WriteString(" Interrupted episodes (the recording stopped before the actor ended it: a crash, a closed program) " +
		"are included only when reviewers gave them an outcome; their `status` is `interrupted` and `end_reason` " +
		"says why the recording stopped.")
	if s.interrupted > 0 {
		fmt.Fprintf(&b, " %s in this export %s interrupted.", plural(s.interrupted, "episode", "episodes"),
			map[bool]string{true: "was", false: "were"}[s.interrupted == 1])
	}
	b.WriteString("\n\n")
	b.WriteString("Episodes are exported as edited. While recording, an annotator can undo the last step (the page is " +
		"then brought back by replaying the steps kept); in review, a reviewer can remove a step or trim the steps " +
		"after one. Edited steps are never deleted from the recording: they are left out of the export, and the " +
		"episode's `edited`, `num_edits` and `removed_steps` say what was left out. An interrupted episode can be " +
		"resumed (its steps replayed in a fresh browser, then recorded on): `resumed_at` says where. A branch " +
		"continues another episode from one of its steps (`parent_episode_id`, `branch_step`).")
	if n := s.edited + s.resumed + s.branches; n > 0 {
		fmt.Fprintf(&b, " In this export: %d edited, %d resumed, %d %s.", s.edited, s.resumed, s.branches,
			map[bool]string{true: "branch", false: "branches"}[s.branches == 1])
	}
	b.WriteString("\n\n")
	if len(o.Categories)+len(o.Outcomes)+len(o.Annotators) > 0 {
		b.WriteString("The export was filtered to")
		var parts []string
		if len(o.Categories) > 0 {
			parts = append(parts, " categories "+strings.Join(o.Categories, ", "))
		}
		if len(o.Outcomes) > 0 {
			parts = append(parts, " outcomes "+strings.Join(o.Outcomes, ", "))
		}
		if len(o.Annotators) > 0 {
			parts = append(parts, " "+plural(len(o.Annotators), "chosen annotator", "chosen annotators"))
		}
		b.WriteString(strings.Join(parts, ";") + ".\n\n")
	}

	if n := s.failureStepsRemoved; n > 0 {
		fmt.Fprintf(&b, "%s first failing step was removed by an edit after it was labelled: %s `failure_step` and "+
			"`failure_type` are null (the outcome is kept). Review %s again to label the edited episode's failing step.\n\n",
			plural(n, "failure's", "failures'"), map[bool]string{true: "its", false: "their"}[n == 1],
			map[bool]string{true: "it", false: "them"}[n == 1])
	}
	if s.badImages > 0 {
		fmt.Fprintf(&b, "%s stored by the recorder %s not a PNG and %s left empty (null).\n\n",
			plural(s.badImages, "screenshot", "screenshots"), map[bool]string{true: "was", false: "were"}[s.badImages == 1],
			map[bool]string{true: "is", false: "are"}[s.badImages == 1])
	}
	b.WriteString("## Action space and coordinates\n\n")
	b.WriteString("Every `x`, `y` is a pixel of the 800×600 viewport (and of the screenshot): `0 ≤ x < 800`, " +
		"`0 ≤ y < 600`, origin at the top left. Times are UTC; durations are milliseconds. The `action` column " +
		"holds the typed action (fields an operation does not use are null), `action_json` the exact JSON the " +
		"browser engine received, and `browsergym_action` the same action in BrowserGym's coordinate action " +
		"space. Text typed into password and payment fields (`type=password`, or autocomplete " +
		"`current-password`, `new-password`, `cc-number`, `cc-csc`) is recorded as `[redacted]`, unless the " +
		"task asked to keep it.\n\n")
	b.WriteString("| op | fields | meaning | BrowserGym | count |\n|---|---|---|---|---|\n")
	for _, r := range []struct {
		op                  action.Op
		fields, meaning, bg string
	}{
		{action.Click, "x, y", "left click at a viewport pixel", "`mouse_click(x, y)`"},
		{action.Type, "text", "type into the focused element", "`keyboard_type(\"text\")`"},
		{action.Key, "text", "press one key (ENTER, TAB, ESCAPE, BACKSPACE, CTRL+A, UP, DOWN, LEFT, RIGHT)", "`keyboard_press(\"Enter\")`"},
		{action.Scroll, "dy", "wheel scroll by dy pixels (positive: down) at the pointer", "`scroll(0, dy)`"},
		{action.Back, "", "history back", "`go_back()`"},
		{action.Wait, "", "wait, then observe", fmt.Sprintf("`noop(%d)`", WaitMS)},
		{action.Finish, "text", "end the episode, with the answer if the task asks for one", "`send_msg_to_user(\"text\")`"},
		{action.Goto, "url", "open a URL (extended set)", "`goto(\"url\")`"},
		{action.DoubleClick, "x, y", "double click (extended set)", "`mouse_dblclick(x, y)`"},
		{action.Move, "x, y", "move the pointer (extended set)", "`mouse_move(x, y)`"},
		{action.Drag, "x, y, x2, y2", "drag from x,y to x2,y2 (extended set)", "`mouse_drag_and_drop(x, y, x2, y2)`"},
	} {
		if s.ops[r.op] == 0 && (r.op == action.Goto || r.op == action.DoubleClick || r.op == action.Move || r.op == action.Drag) {
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d |\n", r.op, r.fields, r.meaning, r.bg, s.ops[r.op])
	}
	b.WriteString("\n")
	sets := sortedKeys(s.actionSets)
	fmt.Fprintf(&b, "Action sets used: %s.\n\n", joinCounts(sets, s.actionSets, "episodes"))
	writeHARCard(&b, o, &s.har)
	writeGroundingCard(&b, &s.grounding)

	b.WriteString("## Contents\n\n")
	b.WriteString("| category | episodes | steps |\n|---|---|---|\n")
	for _, c := range dataset.Categories {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", c, s.episodesByCat[c], s.stepsByCat[c])
	}
	b.WriteString("\n| outcome | episodes |\n|---|---|\n")
	for _, oc := range dataset.Outcomes {
		fmt.Fprintf(&b, "| %s | %d |\n", oc, s.outcomes[oc])
	}
	if s.outcomes[""] > 0 {
		fmt.Fprintf(&b, "| (none: null) | %d |\n", s.outcomes[""])
	}
	b.WriteString("\n| split | tasks | episodes | steps |\n|---|---|---|---|\n")
	for _, sp := range splits {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", sp.Name, sp.Tasks, sp.Episodes, sp.Steps)
	}
	fmt.Fprintf(&b, "\nSplits are made per task by a hash of the task id (about %s of the tasks in `test`), so all "+
		"episodes of a task are in the same split and a task keeps its split when the dataset grows.\n\n",
		strconv.FormatFloat(100*o.TestFraction, 'f', -1, 64)+"%")

	b.WriteString("## Annotators and review\n\n")
	fmt.Fprintf(&b, "%s recorded the episodes (%s, %s); %s labelled them. "+
		"%d of %d episodes have at least one review.", plural(len(s.annotators), "annotator", "annotators"),
		plural(humans, "person", "people"), plural(agents, "agent", "agents"), plural(s.reviewers, "reviewer", "reviewers"),
		s.reviewed, totalEp)
	if s.multiReviewed > 0 {
		fmt.Fprintf(&b, " %d episodes were reviewed by two or more people; their reviews agreed on the outcome for %d "+
			"of them (%s).", s.multiReviewed, s.agreed, pct(s.agreed, s.multiReviewed))
		if s.kappaOK {
			fmt.Fprintf(&b, " Fleiss' kappa over those reviews is %.2f.", s.kappa)
		} else {
			b.WriteString(" Fleiss' kappa is undefined here (every review gave the same outcome).")
		}
	} else {
		b.WriteString(" No episode was reviewed more than once, so agreement between reviewers cannot be measured.")
	}
	if s.settled > 0 {
		fmt.Fprintf(&b, " %s settled by a final label.", plural(s.settled, "disagreement was", "disagreements were"))
	}
	if s.unresolved > 0 {
		fmt.Fprintf(&b, " %s whose reviewers disagree %s a null outcome.", plural(s.unresolved, "episode", "episodes"), map[bool]string{true: "has", false: "have"}[s.unresolved == 1])
	}
	b.WriteString(" Annotator names are kept as recorded in the `annotator` column.\n\n")
	writeCheckCard(&b, &s.checks)

	b.WriteString("## Configs\n\n")
	b.WriteString("- **steps** (default): one row per action of the edited episode. `screenshot` and `url` are the " +
		"observation the actor saw before acting (the page after the previous step; after an undo, the page after " +
		"the last step kept); `next_url` is the URL after the action; `error`, `done`, `timestamp` and " +
		"`duration_ms` describe the step itself. `step_index` numbers the exported actions 1, 2, 3, … without gaps; " +
		"`recorded_step` is the step's number in the recording, which skips the steps an edit left out (the " +
		"screenshot's `path` uses it too). `review_flags` lists the flags the label's review put on the step " +
		"(`mistake`, `unnecessary`): an empty list when none, null when the episode has no outcome. `note` is the " +
		"annotator's note on the step, empty when none. `actor` says who took the action: `agent:<name>` or " +
		"`human:<name>` (a person who took over an agent's episode acts in it under their own name).\n")
	b.WriteString("- **episodes**: one row per episode with its goal, category, outcome (ClassLabel: " +
		strings.Join(asStrings(dataset.Outcomes), ", ") + "; null when there is none), review figures, final answer, final " +
		"screenshot, and `steps`, an image-free list of the actions with the URL each was taken on. `status` is " +
		"`finished` or `interrupted` and `end_reason` says how the episode ended. `failure_step` and " +
		"`failure_type` (failures only) and `review_reason` (the reviewer's words, possibly empty) come from the " +
		"same review as the outcome: the settling label of a disagreement, else the newest of the agreeing " +
		"reviews. Without an outcome (never reviewed, or reviewers disagreeing and not settled) they are null, " +
		"and so are the steps' `review_flags`. `failure_step` is a `step_index` of the edited episode (0 for the " +
		"start page); when an edit removed the failing step after the review, `failure_step` and `failure_type` are both null. `num_steps` counts the exported " +
		"actions, and each entry of `steps` has both `step_index` and `recorded_step`. " +
		"`edited` is true when steps were left out; `num_edits` counts the undo, remove, restore and trim edits " +
		"(a restore puts a step back); `removed_steps` lists the `recorded_step` numbers left out and `resumed_at` " +
		"the recorded steps after which recording went on after an interruption (both empty lists when none). " +
		"`parent_episode_id` and `branch_step` are null unless the episode is a branch: then they name the episode " +
		"it continues and that episode's `recorded_step` it continued from. `reference_time` (ISO 8601 with its UTC " +
		"offset), `timezone` (IANA name) and `locale` (BCP 47) are the clock, time zone and locale the task set for " +
		"the page; empty when the task set none (the browser's own were used). `num_interventions` counts the times " +
		"someone other than the `annotator` took over (runs of consecutive exported steps by another actor): 0 for " +
		"an episode one actor did alone.\n\n")

	b.WriteString("## How to load\n\n```python\nfrom datasets import load_dataset\n\n")
	b.WriteString("steps = load_dataset(\"path/or/hub-id\")               # the default config: steps\n")
	b.WriteString("episodes = load_dataset(\"path/or/hub-id\", \"episodes\")\n")
	b.WriteString("row = steps[\"train\"][0]\nrow[\"screenshot\"]        # PIL image, 800×600\nrow[\"browsergym_action\"] # e.g. 'mouse_click(312, 188)'\n")
	b.WriteString("steps[\"train\"].features[\"category\"].int2str(row[\"category\"])\n```\n\n")

	b.WriteString("## Licence\n\n")
	if o.License == "other" {
		b.WriteString("The licence is `other`: the publisher did not choose a standard licence; ask them before reuse. ")
	} else {
		fmt.Fprintf(&b, "The dataset is published under `%s`. ", o.License)
	}
	b.WriteString("Screenshots show web pages whose content belongs to their owners.\n")
	return b.String()
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
