package hfexport

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"waymark/dataset"
)

// episodeInfo is what the exporter knows of an episode before reading its
// steps (no screenshots), and the split it goes to.
type episodeInfo struct {
	dataset.LabeledEpisode
	split string
}

// splitOf assigns a task to train or test by a hash of its id, so a task's
// episodes never straddle the splits and a task keeps its split as the store
// grows.
func splitOf(taskID string, testFraction float64) string {
	sum := sha256.Sum256([]byte("waymark-split\x00" + taskID))
	u := binary.BigEndian.Uint64(sum[:8]) >> 11 // 53 bits
	if float64(u)/float64(uint64(1)<<53) < testFraction {
		return "test"
	}
	return "train"
}

// selectEpisodes returns the episodes the options choose, ordered by split
// (train first) then episode id.
func selectEpisodes(ctx context.Context, store *dataset.Store, o *Options) ([]*episodeInfo, error) {
	f := o.labelFilter()
	var out []*episodeInfo
	for l, err := range store.LabeledEpisodes(ctx, f) {
		if err != nil {
			return nil, fmt.Errorf("reading the episodes to export: %w", err)
		}
		if o.NoExplorations && l.Intent == dataset.IntentExploration {
			o.explorationsLeft++
			continue
		}
		out = append(out, &episodeInfo{LabeledEpisode: l, split: splitOf(l.TaskID, o.TestFraction)})
	}
	slices.SortStableFunc(out, func(a, b *episodeInfo) int {
		if a.split != b.split {
			return strings.Compare(b.split, a.split) // "train" before "test"
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// labelFilter is the store's filter of the episodes o chooses.
func (o *Options) labelFilter() dataset.LabelFilter {
	return dataset.LabelFilter{Categories: o.Categories, Annotators: o.Annotators, Outcomes: asOutcomes(o.Outcomes), IncludeUnreviewed: o.IncludeUnreviewed}
}

// asOutcomes reads the outcomes chosen by name (checked by validate).
func asOutcomes(names []string) []dataset.Outcome {
	var out []dataset.Outcome
	for _, n := range names {
		out = append(out, dataset.Outcome(n))
	}
	return out
}

// validate checks the options' names against the store's vocabularies.
func (o *Options) validate() error {
	for _, c := range o.Categories {
		if !slices.Contains(dataset.Categories, c) {
			return fmt.Errorf("%w: unknown category %q (choose from %s)", ErrBadOptions, c, strings.Join(dataset.Categories, ", "))
		}
	}
	for _, c := range o.Outcomes {
		if !slices.Contains(dataset.Outcomes, dataset.Outcome(c)) {
			return fmt.Errorf("%w: unknown outcome %q (choose from %s)", ErrBadOptions, c, strings.Join(asStrings(dataset.Outcomes), ", "))
		}
	}
	if o.TestFraction < 0 || o.TestFraction > 1 || o.TestFraction != o.TestFraction {
		return fmt.Errorf("%w: test fraction %v is not between 0 and 1 (0.1 puts about a tenth of the tasks in the test split)", ErrBadOptions, o.TestFraction)
	}
	if err := CheckLicense(o.License); err != nil {
		return err
	}
	if o.License != strings.ToLower(strings.TrimSpace(o.License)) { // Export normalises it first
		return fmt.Errorf("%w: %q is not a Hugging Face licence id (lower-case, like cc-by-4.0, mit, apache-2.0, or \"other\")", ErrBadOptions, o.License)
	}
	if strings.TrimSpace(o.Out) == "" {
		return fmt.Errorf("%w: choose an output folder", ErrBadOptions)
	}
	return nil
}
