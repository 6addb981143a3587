package hfexport

import (
	"context"
	"slices"
	"testing"

	"waymark/dataset"
)

// The split decides the order before the id does: a test-split episode whose
// id sorts first still comes after every train-split one. Task "a" falls in
// the test split at a fraction of 0.35 (its hash fraction is 0.308), task
// "task-04" in the train split (0.399), as TestContractSplitOfTask pins.
func TestSelectionSplitBeforeID(t *testing.T) {
	f := newFixture(t, makePNGs(t, 2, false))
	f.task("a", dataset.Categories[0])
	f.task("task-04", dataset.Categories[1])
	for _, e := range []struct{ id, task string }{
		{"e1", "a"}, {"e2", "task-04"}, {"e3", "a"}, {"e4", "task-04"}, {"e5", "a"}, {"e6", "task-04"},
	} {
		f.episode(e.id, e.task, "alice", dataset.StatusFinished, 2)
		f.review(e.id, "rita", dataset.OutcomeSuccess, false)
	}
	o := opts(t.TempDir())
	o.TestFraction = 0.35
	eps, err := selectEpisodes(context.Background(), f.store, &o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range eps {
		got = append(got, e.split+":"+e.ID)
	}
	want := []string{"train:e2", "train:e4", "train:e6", "test:e1", "test:e3", "test:e5"}
	if !slices.Equal(got, want) {
		t.Errorf("selection order %v, want %v", got, want)
	}
}

// When every finished episode has an outcome, the message does not ask for
// reviews: with filters it says to loosen them, without it adds nothing.
func TestNoneLabeledAllReviewed(t *testing.T) {
	f := newFixture(t, makePNGs(t, 2, false))
	f.task("task-00", "information")
	f.episode("ep-1", "task-00", "alice", dataset.StatusFinished, 2)
	f.review("ep-1", "rita", dataset.OutcomeSuccess, false)
	ctx := context.Background()
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Categories: []string{"navigation"}}, "the store has 1 finished episode, 1 with an outcome; none of them matches category navigation; loosen the filters"},
		{Options{}, "the store has 1 finished episode, 1 with an outcome"},
	} {
		if got := f.store.NoneLabeled(ctx, c.o.labelFilter()); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.o, got, c.want)
		}
	}
}
