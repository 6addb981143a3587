package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"waymark/engine/action"
)

// rvStore opens a fresh store in a temp folder.
func rvStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rvPNG makes an 800×600 PNG of one colour, once per colour in the
// package's run (under the race detector encoding one takes a second).
func rvPNG(t testing.TB, c color.Color) []byte {
	t.Helper()
	if b, ok := rvPNGs.Load(c); ok {
		return bytes.Clone(b.([]byte))
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := 0; i < len(img.Pix); i += 4 {
		r, g, b, _ := c.RGBA()
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(r>>8), uint8(g>>8), uint8(b>>8), 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	rvPNGs.Store(c, buf.Bytes())
	return bytes.Clone(buf.Bytes())
}

var rvPNGs sync.Map // color.Color → PNG

// rvTask adds a task through the store's API.
func rvTask(t testing.TB, s *Store, goal, category string) string {
	t.Helper()
	task, err := s.AddTask(t.Context(), Task{Goal: goal, Category: category, StartURL: "http://127.0.0.1/" + uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	return task.ID
}

// rvEpisode records an episode with n actions (n+1 steps with real PNGs)
// through the store's API and leaves it in the given status.
func rvEpisode(t testing.TB, s *Store, taskID, annotator string, status Status, n int, started time.Time) string {
	t.Helper()
	ep, err := s.CreateEpisode(t.Context(), Episode{TaskID: taskID, Annotator: annotator, StartedAt: started})
	if err != nil {
		t.Fatal(err)
	}
	shot := rvPNG(t, color.RGBA{200, 200, 200, 255})
	for i := 0; i <= n; i++ {
		st := Step{EpisodeID: ep.ID, Index: i, URL: "http://127.0.0.1/p", Title: "Page", Screenshot: shot,
			CreatedAt: started.Add(time.Duration(i) * time.Second)}
		if i > 0 {
			a := action.ClickAt(10*i, 10*i)
			st.Action = &a
		}
		if err := s.AppendStep(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	switch status {
	case StatusRecording:
	case StatusDiscarded:
		err = s.DiscardEpisode(t.Context(), ep.ID)
	case StatusInterrupted:
		err = s.InterruptEpisode(t.Context(), ep.ID)
	default:
		// The recorder ends its episodes itself; a test says how this one ended.
		err = s.FinishEpisode(t.Context(), ep.ID, EpisodeEnd{At: started.Add(time.Minute)})
	}
	if err != nil {
		t.Fatal(err)
	}
	return ep.ID
}

func rvIP(v int) *int { return &v }

func rvSave(t testing.TB, s *Store, r Review) Review {
	t.Helper()
	out, err := s.SaveReview(t.Context(), r)
	if err != nil {
		t.Fatalf("SaveReview(%+v): %v", r, err)
	}
	return out
}

func TestReviewPersistenceAndHistory(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Find the price", Information)
	ep := rvEpisode(t, s, task, "ann", StatusFinished, 4, time.Now())

	first := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "alice", Outcome: OutcomeFailure, FailureStep: rvIP(2),
		FailureType: "wrong_element", Reason: "clicked the ad", StepFlags: map[int][]string{1: {FlagUnnecessary}, 3: {FlagMistake, FlagMistake}}})
	second := rvSave(t, s, Review{EpisodeID: ep, Reviewer: "alice", Outcome: OutcomeSuccess, Reason: "on second look it worked",
		FailureStep: rvIP(3), FailureType: "other"})
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "bob", Outcome: OutcomeSuccess})

	// Reopen the file: everything must come from disk.
	path := s.Path()
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()

	hist, err := s2.ReviewHistory(t.Context(), ep, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 {
		t.Fatalf("history has %d rows, want 2", len(hist))
	}
	if hist[0].ID != second.ID || hist[0].SupersededBy != "" {
		t.Errorf("newest history row = %+v, want the current edit %s", hist[0], second.ID)
	}
	if hist[1].ID != first.ID || hist[1].SupersededBy != second.ID {
		t.Errorf("old row superseded_by=%q, want %q", hist[1].SupersededBy, second.ID)
	}
	old := hist[1]
	if old.Outcome != OutcomeFailure || old.FailureStep == nil || *old.FailureStep != 2 || old.FailureType != "wrong_element" || old.Reason != "clicked the ad" {
		t.Errorf("old review not kept as written: %+v", old.Review)
	}
	if got := old.StepFlags; len(got) != 2 || len(got[3]) != 1 || got[3][0] != FlagMistake || got[1][0] != FlagUnnecessary {
		t.Errorf("step flags = %v", got)
	}
	if hist[0].FailureStep != nil || hist[0].FailureType != "" {
		t.Errorf("a success must not keep a failure step/type: %+v", hist[0].Review)
	}
	if !hist[0].CreatedAt.After(hist[1].CreatedAt) {
		t.Errorf("times not increasing: %v then %v", hist[1].CreatedAt, hist[0].CreatedAt)
	}
	cur, err := s2.CurrentReviews(t.Context(), ep)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 2 || cur[0].Reviewer != "alice" || cur[1].Reviewer != "bob" {
		t.Fatalf("current reviews = %+v", cur)
	}
	var stored string
	s2.db.QueryRow(`SELECT step_flags_json FROM reviews WHERE id=?`, first.ID).Scan(&stored)
	if stored != `{"1":["unnecessary"],"3":["mistake"]}` {
		t.Errorf("step_flags_json = %s", stored)
	}
}

func TestReviewRefusals(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Open the page", Navigation)
	ep := rvEpisode(t, s, task, "ann", StatusFinished, 3, time.Now())
	rec := rvEpisode(t, s, task, "ann", StatusRecording, 1, time.Now())
	disc := rvEpisode(t, s, task, "ann", StatusDiscarded, 1, time.Now())
	cases := []struct {
		name string
		r    Review
		want error
	}{
		{"no reviewer", Review{EpisodeID: ep, Outcome: OutcomeSuccess}, ErrNoReviewer},
		{"bad outcome", Review{EpisodeID: ep, Reviewer: "a", Outcome: "maybe"}, ErrBadOutcome},
		{"failure without type", Review{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeFailure, FailureStep: rvIP(1)}, ErrNeedFailureType},
		{"failure without step", Review{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeFailure, FailureType: "other"}, ErrNeedFailureStep},
		{"recording", Review{EpisodeID: rec, Reviewer: "a", Outcome: OutcomeSuccess}, ErrNotReviewable},
		{"discarded", Review{EpisodeID: disc, Reviewer: "a", Outcome: OutcomeSuccess}, ErrNotReviewable},
		{"missing", Review{EpisodeID: "nope", Reviewer: "a", Outcome: OutcomeSuccess}, ErrNotReviewable},
		{"settle without conflict", Review{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeSuccess, Settles: true}, ErrNotInConflict},
	}
	for _, c := range cases {
		var err error
		if c.r.Settles {
			_, err = s.Settle(t.Context(), c.r)
		} else {
			_, err = s.SaveReview(t.Context(), c.r)
		}
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	for _, r := range []Review{
		{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeFailure, FailureStep: rvIP(9), FailureType: "other"},
		{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeFailure, FailureStep: rvIP(1), FailureType: "typo"},
		{EpisodeID: ep, Reviewer: "a", Outcome: OutcomeSuccess, StepFlags: map[int][]string{1: {"great"}}},
	} {
		if _, err := s.SaveReview(t.Context(), r); err == nil {
			t.Errorf("SaveReview(%+v) accepted", r)
		}
	}
	var n int
	s.db.QueryRow(`SELECT COUNT(*) FROM reviews`).Scan(&n)
	if n != 0 {
		t.Errorf("%d reviews stored by refused calls", n)
	}
}

func TestConflictAndSettling(t *testing.T) {
	s := rvStore(t)
	task := rvTask(t, s, "Add to cart", Interaction)
	ep := rvEpisode(t, s, task, "ann", StatusFinished, 5, time.Now())
	outcome := func() (any, bool) {
		var o any
		var conflict bool
		err := s.db.QueryRow(`SELECT outcome, conflict FROM episode_outcomes WHERE episode_id=?`, ep).Scan(&o, &conflict)
		if err != nil {
			t.Fatal(err)
		}
		return o, conflict
	}
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "alice", Outcome: OutcomeSuccess})
	if o, c := outcome(); o != string(OutcomeSuccess) || c {
		t.Fatalf("single review: outcome %v conflict %v", o, c)
	}
	rvSave(t, s, Review{EpisodeID: ep, Reviewer: "bob", Outcome: OutcomeFailure, FailureStep: rvIP(4), FailureType: "missed_step"})
	if o, c := outcome(); o != nil || !c {
		t.Fatalf("disagreement: outcome %v conflict %v, want NULL and conflict", o, c)
	}
	q, err := s.ReviewQueue(t.Context(), QueueFilter{Reviewer: "carol", State: QueueConflict})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 1 || q.Items[0].EpisodeID != ep || q.Counts[QueueConflict] != 1 {
		t.Fatalf("conflict queue = %+v", q)
	}
	st, err := s.Settle(t.Context(), Review{EpisodeID: ep, Reviewer: "carol", Outcome: OutcomeFailure, FailureStep: rvIP(3), FailureType: "wrong_element", Reason: "step 3 clicked the wrong button"})
	if err != nil {
		t.Fatal(err)
	}
	if o, c := outcome(); o != string(OutcomeFailure) || !c {
		t.Fatalf("settled: outcome %v conflict %v", o, c)
	}
	var fs int
	var ft string
	var settled bool
	s.db.QueryRow(`SELECT failure_step, failure_type, settled FROM episode_outcomes WHERE episode_id=?`, ep).Scan(&fs, &ft, &settled)
	if fs != 3 || ft != "wrong_element" || !settled {
		t.Errorf("episode_outcomes after settling: step %d type %q settled %v", fs, ft, settled)
	}
	q, _ = s.ReviewQueue(t.Context(), QueueFilter{Reviewer: "carol"})
	if q.Counts[QueueConflict] != 0 || q.Counts[QueueSettled] != 1 || q.Counts[QueueUnreviewed] != 0 {
		t.Errorf("counts after settling = %v", q.Counts)
	}
	if !q.Items[0].Settled || q.Items[0].Outcome != OutcomeFailure {
		t.Errorf("queue item after settling = %+v", q.Items[0])
	}
	// Re-settling replaces the old settling label.
	st2, err := s.Settle(t.Context(), Review{EpisodeID: ep, Reviewer: "dave", Outcome: OutcomeSuccess})
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := outcome(); o != string(OutcomeSuccess) {
		t.Errorf("re-settled outcome = %v", o)
	}
	var sup string
	s.db.QueryRow(`SELECT superseded_by FROM reviews WHERE id=?`, st.ID).Scan(&sup)
	if sup != st2.ID {
		t.Errorf("old settling label superseded_by = %q, want %q", sup, st2.ID)
	}
	// Settling leaves the reviewers' own reviews in force.
	cur, _ := s.CurrentReviews(t.Context(), ep)
	if len(cur) != 3 {
		t.Errorf("current reviews = %d, want alice, bob and the settling label", len(cur))
	}
}

func TestReviewQueueFiltersAndCounts(t *testing.T) {
	s := rvStore(t)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	info := rvTask(t, s, "Find the opening hours", Information)
	nav := rvTask(t, s, "Go to the contact page", Navigation)
	e1 := rvEpisode(t, s, info, "ann", StatusFinished, 2, t0)
	e2 := rvEpisode(t, s, info, "agent:gpt", StatusFinished, 2, t0.Add(24*time.Hour))
	e3 := rvEpisode(t, s, nav, "ann", StatusInterrupted, 1, t0.Add(48*time.Hour))
	e4 := rvEpisode(t, s, nav, "ben", StatusFinished, 3, t0.Add(72*time.Hour))
	rvEpisode(t, s, nav, "ann", StatusRecording, 1, t0.Add(96*time.Hour))
	rvEpisode(t, s, nav, "ann", StatusDiscarded, 1, t0.Add(120*time.Hour))

	rvSave(t, s, Review{EpisodeID: e1, Reviewer: "me", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: e2, Reviewer: "x", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: e2, Reviewer: "y", Outcome: OutcomeInvalidTask})
	rvSave(t, s, Review{EpisodeID: e4, Reviewer: "x", Outcome: OutcomeNotExecutable})
	rvSave(t, s, Review{EpisodeID: e4, Reviewer: "y", Outcome: OutcomeSuccess})
	if _, err := s.Settle(t.Context(), Review{EpisodeID: e4, Reviewer: "z", Outcome: OutcomeNotExecutable}); err != nil {
		t.Fatal(err)
	}

	ids := func(q Queue) []string {
		var out []string
		for _, it := range q.Items {
			out = append(out, it.EpisodeID)
		}
		return out
	}
	cases := []struct {
		name string
		f    QueueFilter
		want []string
	}{
		{"all newest first", QueueFilter{Reviewer: "me"}, []string{e4, e3, e2, e1}},
		{"oldest", QueueFilter{Reviewer: "me", Sort: SortOldest}, []string{e1, e2, e3, e4}},
		{"unreviewed by me", QueueFilter{Reviewer: "me", State: QueueUnreviewed}, []string{e3, e2}},
		{"mine", QueueFilter{Reviewer: "me", State: QueueMine}, []string{e1}},
		{"conflict", QueueFilter{Reviewer: "me", State: QueueConflict}, []string{e2}},
		{"settled", QueueFilter{Reviewer: "me", State: QueueSettled}, []string{e4}},
		{"category", QueueFilter{Reviewer: "me", Category: Information}, []string{e2, e1}},
		{"agents", QueueFilter{Reviewer: "me", Annotator: AnnotatorAgents}, []string{e2}},
		{"people", QueueFilter{Reviewer: "me", Annotator: AnnotatorPeople}, []string{e4, e3, e1}},
		{"annotator", QueueFilter{Reviewer: "me", Annotator: "ben"}, []string{e4}},
		{"task", QueueFilter{Reviewer: "me", TaskID: nav}, []string{e4, e3}},
		{"search", QueueFilter{Reviewer: "me", Search: "HOURS"}, []string{e2, e1}},
		{"dates", QueueFilter{Reviewer: "me", From: t0.Add(12 * time.Hour), To: t0.Add(60 * time.Hour)}, []string{e3, e2}},
		{"limit offset", QueueFilter{Reviewer: "me", Sort: SortOldest, Offset: 1, Limit: 2}, []string{e2, e3}},
	}
	for _, c := range cases {
		q, err := s.ReviewQueue(t.Context(), c.f)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := ids(q); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	q, _ := s.ReviewQueue(t.Context(), QueueFilter{Reviewer: "me"})
	want := map[string]int{QueueUnreviewed: 2, QueueMine: 1, QueueConflict: 1, QueueSettled: 1}
	for k, v := range want {
		if q.Counts[k] != v {
			t.Errorf("count %s = %d, want %d (all %v)", k, q.Counts[k], v, q.Counts)
		}
	}
	q, _ = s.ReviewQueue(t.Context(), QueueFilter{Reviewer: "me", Category: Navigation})
	if q.Counts[QueueUnreviewed] != 1 || q.Counts[QueueSettled] != 1 || q.Counts[QueueMine] != 0 {
		t.Errorf("navigation counts = %v", q.Counts)
	}

	// Next unreviewed walks the sort order, skips what I reviewed and settled
	// episodes, and wraps around.
	f := QueueFilter{Reviewer: "me", Sort: SortOldest}
	next := func(after string) string {
		it, ok, err := s.NextUnreviewed(t.Context(), f, after)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return ""
		}
		return it.EpisodeID
	}
	if got := next(""); got != e2 {
		t.Errorf("next from top = %s, want e2", got)
	}
	if got := next(e2); got != e3 {
		t.Errorf("next after e2 = %s, want e3", got)
	}
	if got := next(e3); got != e2 {
		t.Errorf("next after e3 = %s, want e2 (wrap)", got)
	}
	rvSave(t, s, Review{EpisodeID: e2, Reviewer: "me", Outcome: OutcomeSuccess})
	rvSave(t, s, Review{EpisodeID: e3, Reviewer: "me", Outcome: OutcomeSuccess})
	if got := next(e3); got != "" {
		t.Errorf("next when all reviewed = %s, want none", got)
	}
}

func TestGuidelines(t *testing.T) {
	s := rvStore(t)
	g, err := s.Guidelines(t.Context())
	if err != nil || g != DefaultGuidelines {
		t.Fatalf("default guidelines: %q, %v", g, err)
	}
	if err := s.SetGuidelines(t.Context(), "# Ours\nBe strict."); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.Guidelines(t.Context()); g != "# Ours\nBe strict." {
		t.Errorf("guidelines = %q", g)
	}
	s.SetGuidelines(t.Context(), "  ")
	if g, _ := s.Guidelines(t.Context()); g != DefaultGuidelines {
		t.Errorf("empty text should restore the default")
	}
}

// BenchmarkReviewQueue10k lists a queue of 10,000 episodes (30% with two
// reviews, some in conflict) with counts, and computes agreement.
func BenchmarkReviewQueue10k(b *testing.B) {
	s := rvStore(b)
	task := rvTask(b, s, "Benchmark task", Navigation)
	tx, err := s.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	for i := range 10000 {
		id := fmt.Sprintf("ep-%05d", i)
		if _, err := tx.Exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, num_steps, started_at) VALUES(?,?,?,?,?,?,?)`,
			id, task, fmt.Sprintf("ann%d", i%7), "default", StatusFinished, 10, FormatTime(t0.Add(time.Duration(i)*time.Second))); err != nil {
			b.Fatal(err)
		}
		if i%10 < 3 {
			for j, who := range []string{"alice", "bob"} {
				out := Outcomes[(i/10+j*(i%3))%2]
				if _, err := tx.Exec(`INSERT INTO reviews(id, episode_id, reviewer, outcome, created_at) VALUES(?,?,?,?,?)`,
					fmt.Sprintf("r-%d-%d", i, j), id, who, out, FormatTime(t0.Add(time.Duration(i)*time.Second))); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Run("queue", func(b *testing.B) {
		for b.Loop() {
			q, err := s.ReviewQueue(b.Context(), QueueFilter{Reviewer: "alice", State: QueueUnreviewed, Limit: 200})
			if err != nil || q.Counts[QueueUnreviewed] != 7000 {
				b.Fatalf("%v %v", err, q.Counts)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/queue")
	})
	b.Run("next", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := s.NextUnreviewed(b.Context(), QueueFilter{Reviewer: "alice"}, "ep-05000"); err != nil || !ok {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/next")
	})
	b.Run("agreement", func(b *testing.B) {
		for b.Loop() {
			ag, err := s.Agreement(b.Context())
			if err != nil || ag.Episodes != 3000 {
				b.Fatalf("%v %d", err, ag.Episodes)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/agreement")
	})
}
