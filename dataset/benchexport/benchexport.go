// Package benchexport writes reviewed episodes in the layouts web-agent
// benchmarks and LLM judges read, so a team can calibrate a judge against
// its own reviewers on its own tasks: AgentRewardBench (a trajectory JSON
// per episode and annotations.csv), Online-Mind2Web (the v2 submission:
// result.json and its screenshots per episode, with the human labels
// beside them) and WebArena-Verified (agent_response.json and network.har
// per episode). Every format also carries labels.jsonl: each reviewer's own
// label of each episode (reviewer, time, the guidelines version in force)
// beside the settled label, and the text of every guidelines version they
// name. Labels are never written into the files a judge reads as its input.
//
// Like the Hugging Face export it reads the store only through its API,
// writes into a hidden folder beside the target and renames it into place
// at the end, and its files are readable by their owner only.
package benchexport

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"waymark/dataset"
	"waymark/dataset/exportdir"
)

// Format is a benchmark layout.
type Format string

// The formats.
const (
	AgentRewardBench Format = "agentrewardbench"
	OnlineMind2Web   Format = "online-mind2web"
	WebArenaVerified Format = "webarena-verified"
)

// Formats lists the formats in the order menus show them.
var Formats = []Format{AgentRewardBench, OnlineMind2Web, WebArenaVerified}

// Title is the benchmark's own name.
func (f Format) Title() string {
	switch f {
	case AgentRewardBench:
		return "AgentRewardBench"
	case OnlineMind2Web:
		return "Online-Mind2Web"
	case WebArenaVerified:
		return "WebArena-Verified"
	}
	return string(f)
}

// ParseFormat reads a format's name, case and punctuation aside
// ("AgentRewardBench", "agent-reward-bench", "arb"; "online-mind2web",
// "om2w", "webjudge"; "webarena-verified", "wav").
func ParseFormat(s string) (Format, error) {
	k := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.ToLower(s))
	switch k {
	case "agentrewardbench", "arb":
		return AgentRewardBench, nil
	case "onlinemind2web", "om2w", "mind2web", "webjudge":
		return OnlineMind2Web, nil
	case "webarenaverified", "wav", "webarena":
		return WebArenaVerified, nil
	}
	return "", fmt.Errorf("%w: unknown format %q: choose agentrewardbench, online-mind2web or webarena-verified", ErrBadOptions, s)
}

// Errors of Export; the messages say what to do.
var (
	ErrBadOptions      = errors.New("invalid export options")
	ErrNothingToExport = errors.New("nothing to export")
	ErrOutputExists    = exportdir.ErrOutputExists
	ErrCancelled       = errors.New("export cancelled")
)

// DefaultBenchmark is the benchmark name AgentRewardBench's files give
// Waymark's episodes (its task ids are "<benchmark>.<episode id>").
const DefaultBenchmark = "waymark"

// Options choose what to export and where.
type Options struct {
	Format Format
	// Out is the folder to create.
	Out string
	// Categories, Outcomes and Annotators filter episodes (empty: all).
	Categories, Outcomes, Annotators []string
	// IncludeUnreviewed adds finished episodes without an outcome (never
	// reviewed, or reviews that disagree).
	IncludeUnreviewed bool
	// Force replaces a previous Waymark export of a benchmark format at Out.
	Force bool
	// Benchmark is AgentRewardBench's benchmark name ("" gives
	// DefaultBenchmark): letters, digits, '_' and '-'.
	Benchmark string
}

// Progress is reported after each episode.
type Progress struct {
	Episodes, TotalEpisodes int
	Bytes                   int64
}

// Fraction is the share of episodes written.
func (p Progress) Fraction() float64 {
	if p.TotalEpisodes == 0 {
		return 0
	}
	return float64(p.Episodes) / float64(p.TotalEpisodes)
}

// Result says what was written.
type Result struct {
	Dir    string
	Format Format
	// Episodes written; Settled of them have a settled outcome; Labels is
	// the number of reviewers' own labels written (labels.jsonl).
	Episodes, Settled, Labels int
	// Files written (slash-separated, relative to Dir) and their bytes.
	Files []string
	Bytes int64
	// Replaced: a previous export at Dir was replaced (Force).
	Replaced bool
	// NoTraffic lists the episodes written without network.har
	// (WebArena-Verified): recorded without network capture, or with no
	// request captured.
	NoTraffic []string
	// KeyPoints counts the episodes whose task has key points
	// (Online-Mind2Web's result.json carries them).
	KeyPoints int
}

// MarkerFile marks a folder as a Waymark export (the Hugging Face export's
// marker has the same name); Force replaces only folders that carry one of
// a benchmark format.
const MarkerFile = exportdir.MarkerFile

// exportKind is a benchmark layout's folder.
var exportKind = exportdir.Kind{Format: "waymark-benchmark-export", Name: "Waymark benchmark export"}

type marker struct {
	Format    string   `json:"format"`
	Benchmark string   `json:"benchmark"`
	Files     []string `json:"files"`
}

func (o *Options) validate() error {
	if !slices.Contains(Formats, o.Format) {
		_, err := ParseFormat(string(o.Format))
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: format %q is written by name: use %s", ErrBadOptions, o.Format, strings.Join(formatNames(), ", "))
	}
	if strings.TrimSpace(o.Out) == "" {
		return fmt.Errorf("%w: choose an output folder", ErrBadOptions)
	}
	for _, c := range o.Categories {
		if !slices.Contains(dataset.Categories, c) {
			return fmt.Errorf("%w: unknown category %q (choose from %s)", ErrBadOptions, c, strings.Join(dataset.Categories, ", "))
		}
	}
	for _, c := range o.Outcomes {
		if !slices.Contains(dataset.Outcomes, dataset.Outcome(c)) {
			var names []string
			for _, o := range dataset.Outcomes {
				names = append(names, string(o))
			}
			return fmt.Errorf("%w: unknown outcome %q (choose from %s)", ErrBadOptions, c, strings.Join(names, ", "))
		}
	}
	if o.Benchmark == "" {
		o.Benchmark = DefaultBenchmark
	}
	for _, r := range o.Benchmark {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("%w: benchmark name %q: use letters, digits, '_' and '-' only (AgentRewardBench splits its task ids at the first '.')", ErrBadOptions, o.Benchmark)
		}
	}
	return nil
}

func formatNames() []string {
	var s []string
	for _, f := range Formats {
		s = append(s, string(f))
	}
	return s
}

// Export writes the episodes o chooses into o.Out in o.Format. progress,
// if not nil, is called after each episode.
func Export(ctx context.Context, store *dataset.Store, o Options, progress func(Progress)) (Result, error) {
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	target, replace, err := exportKind.Target(o.Out, o.Force)
	if err != nil {
		return Result{}, err
	}
	f := dataset.LabelFilter{Categories: o.Categories, Annotators: o.Annotators, IncludeUnreviewed: o.IncludeUnreviewed}
	for _, n := range o.Outcomes {
		f.Outcomes = append(f.Outcomes, dataset.Outcome(n))
	}
	var eps []dataset.LabeledEpisode
	for l, err := range store.LabeledEpisodes(ctx, f) {
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("%w: nothing was written to %s", ErrCancelled, target)
			}
			return Result{}, fmt.Errorf("reading the episodes to export: %w", err)
		}
		eps = append(eps, l)
	}
	if len(eps) == 0 {
		return Result{}, fmt.Errorf("%w: %s", ErrNothingToExport, store.NoneLabeled(ctx, f))
	}
	// Episodes in the order they were recorded (then by id), so a task's
	// first attempt by an agent comes first.
	slices.SortStableFunc(eps, func(a, b dataset.LabeledEpisode) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})

	part, err := exportdir.Begin(target, 0o700)
	if err != nil {
		return Result{}, err
	}
	x := &exporter{ctx: ctx, store: store, o: &o, root: part.Dir, res: Result{Format: o.Format}}
	if err := x.run(eps, progress); err != nil {
		part.Abort()
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%w: nothing was written to %s", ErrCancelled, target)
		}
		return Result{}, fmt.Errorf("%w (nothing was written to %s)", err, target)
	}
	if err := part.Commit(replace); err != nil {
		part.Abort()
		return Result{}, fmt.Errorf("cannot put the export in place at %s: %w", target, err)
	}
	x.res.Dir, x.res.Replaced = target, replace
	return x.res, nil
}
