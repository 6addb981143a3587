package dataset

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A review keeps AgentRewardBench's answers (side effect, looping,
// optimality) and the key screenshots, through an edit and its history;
// what is not an answer is refused with the answers named.
func TestReviewJudgeLabels(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Buy the red shoes", Interaction)
	ep := rvEpisode(t, s, task, "agent:gpt", StatusFinished, 4, time.Now().Add(-time.Hour))

	r := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess,
		SideEffect: " Yes", Looping: JudgeNo, Optimality: 2, KeySteps: []int{3, 1, 3}})
	if r.SideEffect != JudgeYes || r.Looping != JudgeNo || r.Optimality != 2 || !slices.Equal(r.KeySteps, []int{1, 3}) {
		t.Fatalf("saved %+v: want side effect yes, looping no, optimality 2, key steps [1 3]", r)
	}
	cur, err := s.CurrentReviews(t.Context(), ep)
	if err != nil || len(cur) != 1 {
		t.Fatalf("CurrentReviews: %v %v", cur, err)
	}
	got := cur[0]
	if got.SideEffect != JudgeYes || got.Looping != JudgeNo || got.Optimality != 2 || !slices.Equal(got.KeySteps, []int{1, 3}) {
		t.Fatalf("read back %+v: want the answers as saved", got)
	}
	// An edit without the answers clears them; the history keeps the old.
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeNotExecutable})
	h, err := s.ReviewHistory(t.Context(), ep, "rita")
	if err != nil || len(h) != 2 {
		t.Fatalf("history: %v %v", h, err)
	}
	if h[0].SideEffect != "" || h[0].Optimality != 0 || h[0].KeySteps != nil || h[1].SideEffect != JudgeYes || h[1].Optimality != 2 {
		t.Fatalf("history %+v / %+v: want the new review unanswered and the old one as saved", h[0].Review, h[1].Review)
	}

	for _, bad := range []struct {
		r    Review
		want string
	}{
		{Review{SideEffect: "maybe"}, "use yes, no or unsure"},
		{Review{Looping: "often"}, "use yes, no or unsure"},
		{Review{Optimality: 5}, "use 1 (complete failure) to 4"},
		{Review{KeySteps: []int{-1}}, "not a step of the episode"},
		{Review{KeySteps: []int{9}}, "past the episode's last step (4)"},
	} {
		bad.r.EpisodeID, bad.r.Reviewer, bad.r.Outcome = ep, "sam", OutcomeFailure
		bad.r.FailureType, bad.r.FailureStep = "other", rvIP(1)
		if _, err := s.SaveReview(t.Context(), bad.r); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("SaveReview(%+v) = %v, want an error saying %q", bad.r, err, bad.want)
		}
	}
}

// Each review names the guidelines in force when it was saved: the default
// text first, an edited text after the edit; both texts are kept as
// versions 1 and 2, and a text put back is its old version again.
func TestGuidelinesVersions(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Find the opening hours", Information)
	ep := rvEpisode(t, s, task, "alice", StatusFinished, 2, time.Now().Add(-time.Hour))
	first := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "rita", Outcome: OutcomeSuccess})
	if first.GuidelinesID != GuidelinesID(DefaultGuidelines) {
		t.Fatalf("first review names guidelines %q, want the default text's %q", first.GuidelinesID, GuidelinesID(DefaultGuidelines))
	}
	if err := s.SetGuidelinesAs(t.Context(), "# House rules\nA success needs the answer on the page.", "lead"); err != nil {
		t.Fatal(err)
	}
	second := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "sam", Outcome: OutcomeSuccess})
	if second.GuidelinesID == first.GuidelinesID || second.GuidelinesID != GuidelinesID("# House rules\nA success needs the answer on the page.") {
		t.Fatalf("second review names %q: want the edited text's id", second.GuidelinesID)
	}
	cur, _ := s.CurrentReviews(t.Context(), ep)
	if cur[0].GuidelinesID != first.GuidelinesID {
		t.Fatalf("the first review now names %q: a review keeps the guidelines it was saved under", cur[0].GuidelinesID)
	}
	if err := s.SetGuidelines(t.Context(), ""); err != nil { // back to the default
		t.Fatal(err)
	}
	vs, err := s.GuidelineVersions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].ID != first.GuidelinesID || vs[0].Version != 1 || vs[1].Version != 2 || vs[1].Editor != "lead" || vs[0].Text != DefaultGuidelines {
		t.Fatalf("versions %+v: want the default text as 1 and lead's as 2, the default not added again", vs)
	}

	// A merge brings the other file's versions with its reviews.
	dir := t.TempDir()
	other, err := Open(filepath.Join(dir, "other.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.SetGuidelinesAs(t.Context(), "# Bob's rules", "bob"); err != nil {
		t.Fatal(err)
	}
	path := closeForMerge(t, other)
	if _, err := s.Merge(t.Context(), path, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	vs, _ = s.GuidelineVersions(t.Context())
	if len(vs) != 3 || vs[2].ID != GuidelinesID("# Bob's rules") || vs[2].Editor != "bob" {
		t.Fatalf("after the merge, versions %+v: want bob's text as version 3", vs)
	}
}

// Versions saved within one millisecond (the default guidelines, stored as
// a store's first edit is saved, then the edit) keep the order they were
// saved in: they were ordered by their time, then by their hash.
func TestGuidelineVersionsSameMillisecond(t *testing.T) {
	s := rvStore(t)
	// Hashes ordered against the order saved: 716e… (the default), then
	// 257c… (the house rules).
	rules := "# House rules\n\nA purchase counts only when the cart shows it."
	if GuidelinesID(rules) > GuidelinesID(DefaultGuidelines) {
		t.Fatal("the test needs the second text's hash to sort first")
	}
	if err := s.SetGuidelines(t.Context(), ""); err != nil { // the default in force
		t.Fatal(err)
	}
	if err := s.SetGuidelinesAs(t.Context(), rules, "lead"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(t.Context(), `UPDATE guideline_versions SET created_at = (SELECT MIN(created_at) FROM guideline_versions)`); err != nil {
		t.Fatal(err)
	}
	vs, err := s.GuidelineVersions(t.Context())
	if err != nil || len(vs) != 2 || vs[0].Text != DefaultGuidelines || vs[1].Text != rules {
		t.Fatalf("versions %+v (%v): want the default as 1, the house rules as 2", vs, err)
	}
}
