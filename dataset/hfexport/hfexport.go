// Package hfexport writes a Waymark store as a Hugging Face dataset folder:
// Parquet shards with embedded screenshots for two configs (steps, episodes)
// and a README.md dataset card whose YAML declares the configs and the same
// features the Parquet files carry.
//
// The export streams: it holds one episode's metadata and at most two
// screenshots at a time, plus one Parquet row group (≤ 100 rows or ~64 MB of
// image bytes). It writes into a hidden folder beside the target and renames
// it into place at the end, so a full disk, a cancel or a crash never leaves
// a half-written dataset under the target name. The same store and options
// give byte-identical files.
package hfexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"waymark/dataset"
	"waymark/dataset/exportdir"
)

// DefaultTestFraction is the share of tasks put in the test split.
const DefaultTestFraction = 0.1

// DefaultMaxShardBytes is the size at which a shard is closed (at an episode
// boundary), datasets' own push_to_hub default.
const DefaultMaxShardBytes = 500 << 20

// MarkerFile marks a folder as written by Waymark's exporter; --force only
// replaces folders that carry it.
const MarkerFile = exportdir.MarkerFile

// exportKind is the Hugging Face export's folder: its marker's format, and
// the card and folders a previous export holds besides the files it lists.
var exportKind = exportdir.Kind{Format: "waymark-hf-dataset", Name: "Waymark export", Also: []string{"README.md", "steps", "episodes"}}

// Row-group limits: readers such as the Hugging Face dataset viewer load a
// whole row group at a time, so groups of embedded screenshots stay small.
const (
	maxGroupRows = 100
)

var maxGroupImageBytes int64 = 64 << 20

// Options choose what to export and where.
type Options struct {
	// Out is the dataset folder to create.
	Out string
	// Categories, Outcomes and Annotators filter episodes (empty: all).
	Categories []string
	Outcomes   []string
	Annotators []string
	// IncludeUnreviewed adds finished episodes without an outcome (never
	// reviewed, or reviews that disagree) with a null outcome.
	IncludeUnreviewed bool
	// TestFraction is the share of tasks (not episodes) in the test split,
	// 0…1; DefaultTestFraction is the usual choice.
	TestFraction float64
	// License is a Hugging Face licence id (cc-by-4.0, mit, …) or "other".
	License string
	// Name is the card's pretty_name ("" gives a default).
	Name string
	// Force replaces a previous Waymark export at Out (never other files).
	Force bool
	// MaxShardBytes closes a shard once it reaches this size (0: 500 MB).
	MaxShardBytes int64
	// HAR writes har/<episode id>.har for each episode recorded with
	// network capture (har.go).
	HAR bool
	// RequireRedaction refuses to export when an episode chosen was
	// recorded without a redaction policy (or with it off), naming them.
	RequireRedaction bool
	// NoExplorations leaves out the explorations (episodes recorded
	// without a goal); the tasks cut from them are exported as usual.
	NoExplorations bool
	// explorationsLeft counts the explorations NoExplorations left out.
	explorationsLeft int
}

// Progress is reported while exporting.
type Progress struct {
	Episodes, TotalEpisodes int
	Steps, TotalSteps       int
	// Bytes written so far.
	Bytes int64
}

// Fraction is the share done, by steps (episodes when there are no steps).
func (p Progress) Fraction() float64 {
	if p.TotalSteps > 0 {
		return float64(p.Steps) / float64(p.TotalSteps)
	}
	if p.TotalEpisodes > 0 {
		return float64(p.Episodes) / float64(p.TotalEpisodes)
	}
	return 0
}

// SplitCount is what one split holds.
type SplitCount struct {
	Name                   string
	Tasks, Episodes, Steps int
}

// Result describes a finished export.
type Result struct {
	Dir      string
	Episodes int
	Steps    int
	Splits   []SplitCount
	// Files are the dataset's files, relative to Dir, sorted.
	Files []string
	Bytes int64
	// Replaced is true when a previous Waymark export was replaced.
	Replaced bool
	// BadImages counts stored screenshots that were not PNGs and were
	// written as null images (the store is not changed).
	BadImages int
	// FailureStepsRemoved counts failures whose first failing step an
	// edit removed after the review: their failure_step and failure_type
	// are written as null.
	FailureStepsRemoved int
}

// Errors a caller can test with errors.Is; their messages say what to do.
var (
	ErrBadOptions      = errors.New("invalid export options")
	ErrNothingToExport = errors.New("nothing to export")
	// ErrNotRedacted: RequireRedaction, and an episode was recorded
	// without a redaction policy.
	ErrNotRedacted  = errors.New("recorded without a redaction policy")
	ErrOutputExists = exportdir.ErrOutputExists
	ErrDiskFull     = errors.New("the disk is full")
	ErrCancelled    = errors.New("export cancelled")
)

// Export writes the episodes chosen by o as a Hugging Face dataset folder at
// o.Out. progress (may be nil) is called from Export's goroutine.
func Export(ctx context.Context, store *dataset.Store, o Options, progress func(Progress)) (Result, error) {
	o.License = strings.ToLower(strings.TrimSpace(o.License))
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	if o.MaxShardBytes <= 0 {
		o.MaxShardBytes = DefaultMaxShardBytes
	}
	target, replace, err := exportKind.Target(o.Out, o.Force)
	if err != nil {
		return Result{}, err
	}
	eps, err := selectEpisodes(ctx, store, &o)
	if err != nil {
		return Result{}, cancelled(ctx, err, target)
	}
	if len(eps) == 0 {
		return Result{}, fmt.Errorf("%w: %s", ErrNothingToExport, store.NoneLabeled(ctx, o.labelFilter()))
	}
	if o.RequireRedaction {
		if err := requireRedaction(eps); err != nil {
			return Result{}, err
		}
	}

	part, err := exportdir.Begin(target, 0o755)
	if err != nil {
		return Result{}, err
	}
	x := &exporter{ctx: ctx, store: store, o: &o, root: part.Dir, eps: eps, progress: progress}
	res, err := x.run()
	if err == nil {
		err = part.Commit(replace)
	}
	if err != nil {
		part.Abort()
		return Result{}, explainWriteError(ctx, err, target)
	}
	res.Dir = target
	res.Replaced = replace
	return res, nil
}

func cancelled(ctx context.Context, err error, target string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: nothing was written to %s", ErrCancelled, target)
	}
	return err
}

func explainWriteError(ctx context.Context, err error, target string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: nothing was written to %s", ErrCancelled, target)
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w while writing the export (%v); nothing was written to %s — free some space or choose a folder on another disk, then export again", ErrDiskFull, err, target)
	}
	return fmt.Errorf("%v; nothing was written to %s", err, target)
}

// countingWriter counts bytes into a shared total.
type countingWriter struct {
	w     io.Writer
	n     int64
	total *int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	*c.total += int64(n)
	return n, err
}

// wrapFile lets tests inject a failing writer (e.g. one that returns ENOSPC).
var wrapFile func(io.Writer) io.Writer

// FormatBytes writes a byte count for people: "1.2 GB", "3.4 MB", "56 KB".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// requireRedaction names the episodes recorded without a redaction policy
// (their engine record has none).
func requireRedaction(eps []*episodeInfo) error {
	var bad []string
	for _, e := range eps {
		var info struct {
			Redaction json.RawMessage `json:"redaction"`
		}
		if json.Unmarshal([]byte(e.EngineJSON), &info) != nil || len(info.Redaction) == 0 || string(info.Redaction) == "null" {
			bad = append(bad, e.ID)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	list := strings.Join(bad[:min(len(bad), 20)], ", ")
	if len(bad) > 20 {
		list += fmt.Sprintf(" and %d more", len(bad)-20)
	}
	return fmt.Errorf("%w: %d of the %d episodes chosen (%s); nothing was exported. Leave them out (filter by annotator or category), or export without --require-redaction knowing their screenshots and text may show personal data",
		ErrNotRedacted, len(bad), len(eps), list)
}
