package hfexport

import (
	"strings"
	"testing"
	"time"
)

// renderCard is a pure function of the options, the split counts and the
// gathered figures; these cases pin the parts of the card whose figures the
// standard store never varies (a split without steps, one recording day,
// no interrupted or edited episode, the filter sentence).
func renderTestCard(t *testing.T, o Options, splits []SplitCount, edit func(s *cardStats)) string {
	t.Helper()
	var s cardStats
	s.init()
	s.annotators["ann"] = 1
	if edit != nil {
		edit(&s)
	}
	return renderCard(&o, splits, &s)
}

func cardWants(t *testing.T, name, card string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(card, w) {
			t.Errorf("%s: card lacks %q", name, w)
		}
	}
	for _, w := range notWant {
		if strings.Contains(card, w) {
			t.Errorf("%s: card has %q", name, w)
		}
	}
}

// A split whose episodes have no step (every step removed, or episodes
// ended at once) is in the episodes config but not in the steps config:
// the steps Parquet files of that split do not exist.
func TestRenderCardSplitWithoutSteps(t *testing.T) {
	card := renderTestCard(t, Options{License: "mit"}, []SplitCount{
		{Name: "train", Tasks: 2, Episodes: 3, Steps: 7},
		{Name: "test", Tasks: 1, Episodes: 1, Steps: 0},
	}, nil)
	cardWants(t, "split without steps", card, []string{
		"configs:\n" +
			"- config_name: steps\n  default: true\n  data_files:\n" +
			"  - split: train\n    path: steps/train-*.parquet\n" +
			"- config_name: episodes\n  data_files:\n" +
			"  - split: train\n    path: episodes/train-*.parquet\n" +
			"  - split: test\n    path: episodes/test-*.parquet\n" +
			"dataset_info:\n",
		"  splits:\n  - name: train\n    num_examples: 7\n- config_name: episodes\n",
		"  splits:\n  - name: train\n    num_examples: 3\n  - name: test\n    num_examples: 1\n---\n",
		"4 episodes (7 steps) of browser tasks",
	}, []string{"steps/test-", "num_examples: 0"})
}

// One recording day is named once; several give a range. Days are UTC.
func TestRenderCardRecordingDates(t *testing.T) {
	splits := []SplitCount{{Name: "train", Tasks: 1, Episodes: 2, Steps: 4}}
	day := time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)
	same := renderTestCard(t, Options{License: "mit"}, splits, func(s *cardStats) {
		s.first, s.last = day, day.Add(14*time.Hour) // 23:00 UTC, still the 4th
	})
	cardWants(t, "one day", same,
		[]string{"Episodes in this export were recorded on 2026-03-04 (UTC).\n\n"},
		[]string{"started between"})
	rng := renderTestCard(t, Options{License: "mit"}, splits, func(s *cardStats) {
		s.first, s.last = day, day.Add(15*time.Hour) // 00:00 UTC on the 5th
	})
	cardWants(t, "two days", rng,
		[]string{"Episodes in this export started between 2026-03-04 and 2026-03-05 (UTC).\n\n"},
		[]string{"were recorded on"})
	none := renderTestCard(t, Options{License: "mit"}, splits, nil)
	cardWants(t, "no dates", none, nil, []string{"were recorded on", "started between"})
}

// The counts of interrupted, edited, resumed and branched episodes are said
// only when there are some, with the exact figures.
func TestRenderCardEditSentences(t *testing.T) {
	splits := []SplitCount{{Name: "train", Tasks: 1, Episodes: 5, Steps: 9}}
	const keptText = "(`parent_episode_id`, `branch_step`)."
	none := renderTestCard(t, Options{License: "mit"}, splits, nil)
	cardWants(t, "nothing edited", none,
		[]string{"says why the recording stopped.\n\n", keptText + "\n\n"},
		[]string{"interrupted.", "In this export:"})
	for _, c := range []struct {
		edited, resumed, branches int
		want                      string
	}{
		{1, 1, 0, " In this export: 1 edited, 1 resumed, 0 branches.\n\n"},
		{0, 1, 1, " In this export: 0 edited, 1 resumed, 1 branch.\n\n"},
		{2, 0, 2, " In this export: 2 edited, 0 resumed, 2 branches.\n\n"},
		{0, 0, 3, " In this export: 0 edited, 0 resumed, 3 branches.\n\n"},
	} {
		card := renderTestCard(t, Options{License: "mit"}, splits, func(s *cardStats) {
			s.edited, s.resumed, s.branches = c.edited, c.resumed, c.branches
		})
		cardWants(t, c.want, card, []string{keptText + c.want}, nil)
	}
	two := renderTestCard(t, Options{License: "mit"}, splits, func(s *cardStats) { s.interrupted = 2 })
	cardWants(t, "two interrupted", two,
		[]string{"says why the recording stopped. 2 episodes in this export were interrupted.\n\n"}, nil)
}

// The filter sentence names each filter given, and is absent without one.
func TestRenderCardFilterSentence(t *testing.T) {
	splits := []SplitCount{{Name: "train", Tasks: 1, Episodes: 1, Steps: 2}}
	none := renderTestCard(t, Options{License: "mit"}, splits, nil)
	cardWants(t, "no filter", none, nil, []string{"filtered to"})
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Categories: []string{"shopping"}, Outcomes: []string{"success"}},
			"The export was filtered to categories shopping; outcomes success.\n\n"},
		{Options{Outcomes: []string{"failure"}, Annotators: []string{"ann"}},
			"The export was filtered to outcomes failure; 1 chosen annotator.\n\n"},
		{Options{Categories: []string{"forms", "search"}, Annotators: []string{"a", "b"}},
			"The export was filtered to categories forms, search; 2 chosen annotators.\n\n"},
		{Options{Annotators: []string{"ann"}},
			"The export was filtered to 1 chosen annotator.\n\n"},
	} {
		c.o.License = "mit"
		card := renderTestCard(t, c.o, splits, nil)
		cardWants(t, c.want, card, []string{c.want}, nil)
	}
}
