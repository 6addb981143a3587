package hfexport

import (
	"fmt"
	"os"
	"path/filepath"

	"waymark/dataset/labels"
)

// Raw labels: every export writes labels.jsonl beside the Parquet configs,
// the same lines the benchmark exports write (package labels): each
// reviewer's own current label of every exported episode, with their name,
// the time it was saved and the guidelines version in force, primary
// first, then the episode's settled label; and guidelines/v<N>-<sha>.md,
// the text of each guidelines version those labels name. The configs list
// their Parquet files explicitly, so `datasets.load_dataset` never reads
// them. Their step numbers are the store's step indices, the
// `recorded_step` column.

// labelStats is what the card says about labels.jsonl.
type labelStats struct {
	reviewer int // reviewers' own labels
	episodes int // episodes with at least one label line
	settled  int // settled labels with an outcome
	// guidelines are the guidelines files written, oldest version first.
	guidelines []string
}

// addLabels adds episode e's labels to labels.jsonl.
func (x *exporter) addLabels(e *episodeInfo) error {
	if x.labels == nil {
		var err error
		if x.labels, err = labels.NewSet(x.ctx, x.store); err != nil {
			return err
		}
	}
	revs, err := x.store.CurrentReviews(x.ctx, e.ID)
	if err != nil {
		return fmt.Errorf("episode %s: reading its reviews: %w", e.ID, err)
	}
	own, settled := x.labels.Of(x.ctx, e.LabeledEpisode, revs)
	for _, l := range own {
		x.labels.Add(l)
	}
	if settled != nil {
		x.labels.Add(*settled)
		x.stats.labels.episodes++
		if settled.Outcome != "" {
			x.stats.labels.settled++
		}
	}
	x.stats.labels.reviewer += len(own)
	return nil
}

// writeLabels writes labels.jsonl (empty when no exported episode has a
// review) and the guidelines versions its labels name.
func (x *exporter) writeLabels() error {
	var b []byte
	var gs []labels.Guideline
	if x.labels != nil {
		b, gs = x.labels.Bytes(), x.labels.Guidelines()
	}
	if err := x.writeFile(labels.File, b); err != nil {
		return err
	}
	x.files = append(x.files, labels.File)
	for _, g := range gs {
		if err := os.MkdirAll(filepath.Join(x.root, "guidelines"), 0o755); err != nil {
			return err
		}
		if err := x.writeFile(filepath.FromSlash(g.Path), g.Text); err != nil {
			return err
		}
		x.files = append(x.files, g.Path)
		x.stats.labels.guidelines = append(x.stats.labels.guidelines, g.Path)
	}
	return nil
}
