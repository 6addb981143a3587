package hfexport

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"waymark/dataset"
	"waymark/engine/action"
)

// cardTemplate is the dataset card's text; renderCard passes it the
// figures (cardView).
//
//go:embed card.md.tmpl
var cardTemplate string

var cardTmpl = template.Must(template.New("card").Funcs(template.FuncMap{
	"yaml":   yamlScalar,
	"plural": plural,
	"pct":    pct,
}).Parse(cardTemplate))

// cardView is what the card says, worked out from the options, the split
// counts and the export's figures.
type cardView struct {
	O                               *Options
	Name, SizeCategory              string
	Splits                          []SplitCount
	StepSplits                      []SplitCount // the splits that have steps
	StepsFeatures, EpisodesFeatures string       // YAML, indented for dataset_info
	TotalEp, TotalSteps             int
	Humans, Agents                  int
	Who                             string
	// Intervened episodes had someone take over from the agent,
	// Interventions times in all, with TakenSteps steps.
	Intervened, Interventions, TakenSteps int
	// Archived episodes replay offline; Offline were replayed so,
	// Hermetic of them faithfully.
	Archived, Offline, Hermetic            int
	Redaction                              string // the redaction line
	First, Last                            string // dates of the first and last start ("" when unknown)
	Interrupted, Edited, Resumed, Branches int
	Filters                                string // " categories a, b; outcomes c" ("" when none)
	FailureStepsRemoved, BadImages         int
	Ops                                    []opRow
	ActionSets                             string
	// The sections other files write.
	HARSection, GroundingSection, CheckSection string
	Categories, Outcomes                       []countRow
	NoOutcome                                  int
	TestPercent                                string
	Annotators, Reviewers, Reviewed            int
	MultiReviewed, Agreed, Settled, Unresolved int
	Kappa                                      float64
	KappaOK                                    bool
	// ReviewerLabels of LabelEpisodes episodes are in labels.jsonl, with
	// SettledLabels settled ones with an outcome; Guidelines are the
	// guidelines files their labels name.
	ReviewerLabels, LabelEpisodes, SettledLabels int
	Guidelines                                   []string
	OutcomeNames                                 string
}

// opRow is one row of the card's action table.
type opRow struct {
	Op                          action.Op
	Fields, Meaning, BrowserGym string
	Count                       int
}

// countRow is a name with its episodes (and steps).
type countRow struct {
	Name            string
	Episodes, Steps int
}

// cardOps are the card's action table, in its order; the extended set's
// operations are listed only when the export holds them.
var cardOps = []opRow{
	{action.Click, "x, y", "left click at a viewport pixel", "`mouse_click(x, y)`", 0},
	{action.Type, "text", "type into the focused element", "`keyboard_type(\"text\")`", 0},
	{action.Key, "text", "press one key (ENTER, TAB, ESCAPE, BACKSPACE, CTRL+A, UP, DOWN, LEFT, RIGHT)", "`keyboard_press(\"Enter\")`", 0},
	{action.Scroll, "dy", "wheel scroll by dy pixels (positive: down) at the pointer", "`scroll(0, dy)`", 0},
	{action.Back, "", "history back", "`go_back()`", 0},
	{action.Wait, "", "wait, then observe", fmt.Sprintf("`noop(%d)`", WaitMS), 0},
	{action.Finish, "text", "end the episode, with the answer if the task asks for one", "`send_msg_to_user(\"text\")`", 0},
	{action.Goto, "url", "open a URL (extended set)", "`goto(\"url\")`", 0},
	{action.DoubleClick, "x, y", "double click (extended set)", "`mouse_dblclick(x, y)`", 0},
	{action.Move, "x, y", "move the pointer (extended set)", "`mouse_move(x, y)`", 0},
	{action.Drag, "x, y, x2, y2", "drag from x,y to x2,y2 (extended set)", "`mouse_drag_and_drop(x, y, x2, y2)`", 0},
}

// cardText writes README.md: the YAML front matter (configs and the same
// features as the Parquet files) and prose written from the data. It holds no
// time of export, so the same data gives the same card. An error is a
// fault of the template.
func cardText(o *Options, splits []SplitCount, s *cardStats) (string, error) {
	v := cardView{O: o, Name: strings.TrimSpace(o.Name), Splits: splits, Intervened: s.intervened, Interventions: s.interventions, TakenSteps: s.takenSteps,
		Archived: s.archived, Offline: s.offline, Hermetic: s.hermetic, Redaction: s.redactionLine(stepsTotal(s)),
		Interrupted: s.interrupted, Edited: s.edited, Resumed: s.resumed, Branches: s.branches,
		FailureStepsRemoved: s.failureStepsRemoved, BadImages: s.badImages,
		NoOutcome:   s.outcomes[""],
		TestPercent: strconv.FormatFloat(100*o.TestFraction, 'f', -1, 64) + "%",
		Annotators:  len(s.annotators), Reviewers: s.reviewers, Reviewed: s.reviewed,
		MultiReviewed: s.multiReviewed, Agreed: s.agreed, Settled: s.settled, Unresolved: s.unresolved,
		Kappa: s.kappa, KappaOK: s.kappaOK,
		ReviewerLabels: s.labels.reviewer, LabelEpisodes: s.labels.episodes, SettledLabels: s.labels.settled, Guidelines: s.labels.guidelines,
		OutcomeNames: strings.Join(asStrings(dataset.Outcomes), ", "),
	}
	if v.Name == "" {
		v.Name = DefaultName
	}
	for _, sp := range splits {
		v.TotalEp += sp.Episodes
		v.TotalSteps += sp.Steps
		if sp.Steps > 0 {
			v.StepSplits = append(v.StepSplits, sp)
		}
	}
	v.SizeCategory = sizeCategory(v.TotalSteps)
	var fs strings.Builder
	writeFeaturesYAML(&fs, stepsFeatures, 2)
	v.StepsFeatures = fs.String()
	fs.Reset()
	writeFeaturesYAML(&fs, episodesFeatures, 2)
	v.EpisodesFeatures = fs.String()
	for a := range s.annotators {
		if strings.HasPrefix(a, "agent:") {
			v.Agents++
		} else {
			v.Humans++
		}
	}
	v.Who = who(v.Humans, v.Agents)
	if !s.first.IsZero() {
		v.First, v.Last = s.first.UTC().Format("2006-01-02"), s.last.UTC().Format("2006-01-02")
	}
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
	v.Filters = strings.Join(parts, ";")
	for _, r := range cardOps {
		r.Count = s.ops[r.Op]
		if r.Count == 0 && (r.Op == action.Goto || r.Op == action.DoubleClick || r.Op == action.Move || r.Op == action.Drag) {
			continue
		}
		v.Ops = append(v.Ops, r)
	}
	v.ActionSets = joinCounts(sortedKeys(s.actionSets), s.actionSets, "episodes")
	var sec strings.Builder
	writeHARCard(&sec, o, &s.har)
	v.HARSection = sec.String()
	sec.Reset()
	writeGroundingCard(&sec, &s.grounding)
	v.GroundingSection = sec.String()
	sec.Reset()
	writeCheckCard(&sec, &s.checks)
	v.CheckSection = sec.String() + s.intents.section(o.explorationsLeft)
	for _, c := range dataset.Categories {
		v.Categories = append(v.Categories, countRow{c, s.episodesByCat[c], s.stepsByCat[c]})
	}
	for _, oc := range dataset.Outcomes {
		v.Outcomes = append(v.Outcomes, countRow{Name: string(oc), Episodes: s.outcomes[oc]})
	}
	var b strings.Builder
	if err := cardTmpl.Execute(&b, v); err != nil {
		return "", fmt.Errorf("writing the dataset card: %w", err)
	}
	return b.String(), nil
}
