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
	f := dataset.LabelFilter{Categories: o.Categories, Annotators: o.Annotators, Outcomes: asOutcomes(o.Outcomes), IncludeUnreviewed: o.IncludeUnreviewed}
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

// explainNothing says why no episode matched, with counts that point at the
// filter to loosen.
func explainNothing(ctx context.Context, store *dataset.Store, o *Options) string {
	c, _ := store.CountOutcomes(ctx)
	finished, reviewed, conflicts := c.Finished, c.WithOutcome, c.Conflicts
	var b strings.Builder
	fmt.Fprintf(&b, "the store has %s, %d with an outcome", count(finished, "finished episode"), reviewed)
	if conflicts > 0 {
		fmt.Fprintf(&b, " and %d whose reviews disagree", conflicts)
	}
	if c.Interrupted > 0 {
		fmt.Fprintf(&b, ", and %s, %d with an outcome (interrupted episodes without one are never exported)",
			count(c.Interrupted, "interrupted episode"), c.InterruptedWithOutcome)
	}
	var filters []string
	if len(o.Categories) > 0 {
		filters = append(filters, "category "+strings.Join(o.Categories, "/"))
	}
	if len(o.Outcomes) > 0 {
		filters = append(filters, "outcome "+strings.Join(o.Outcomes, "/"))
	}
	if len(o.Annotators) > 0 {
		filters = append(filters, "annotator "+strings.Join(o.Annotators, "/"))
	}
	if len(filters) > 0 {
		fmt.Fprintf(&b, "; none of them matches %s", strings.Join(filters, ", "))
	}
	switch {
	case finished == 0 && c.InterruptedWithOutcome == 0:
		b.WriteString("; record and finish some episodes first")
		if c.Interrupted > 0 {
			b.WriteString(", or review the interrupted ones")
		}
	case !o.IncludeUnreviewed && reviewed < finished:
		b.WriteString("; review episodes first, or include unreviewed ones (--include-unreviewed)")
	case len(filters) > 0:
		b.WriteString("; loosen the filters")
	}
	return b.String()
}

// count says "1 finished episode", "2 finished episodes".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
