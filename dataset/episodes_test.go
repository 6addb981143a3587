package dataset

import (
	"bytes"
	"errors"
	"image/png"
	"testing"
	"time"

	"waymark/engine/action"
)

func TestEpisodesListFiltersAndCounts(t *testing.T) {
	s := wmStore(t)
	info := wmTask(t, s, "Q", Information, "http://wiki.waymark.test/")
	nav := wmTask(t, s, "N", Navigation, "http://shop.waymark.test/")
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	mk := func(task Task, who string, day int, status Status) string {
		e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: who, StartedAt: base.AddDate(0, 0, day)})
		if err != nil {
			t.Fatal(err)
		}
		if status != StatusRecording {
			if err := s.setStatus(t.Context(), e.ID, status, "x"); err != nil {
				t.Fatal(err)
			}
		}
		return e.ID
	}
	e0 := mk(info, "alice", 0, StatusFinished)
	e1 := mk(nav, "alice", 1, StatusDiscarded)
	e2 := mk(nav, "bob", 2, StatusFinished)
	e3 := mk(info, "agent:gpt", 3, StatusInterrupted)

	ids := func(f EpisodeFilter) []string {
		t.Helper()
		l, err := s.ListEpisodes(t.Context(), f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range l {
			out = append(out, e.ID)
		}
		return out
	}
	eq := func(got, want []string) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if got[i] != want[i] {
				return false
			}
		}
		return true
	}
	checks := []struct {
		f    EpisodeFilter
		want []string
	}{
		{EpisodeFilter{}, []string{e3, e2, e1, e0}},
		{EpisodeFilter{OldestFirst: true}, []string{e0, e1, e2, e3}},
		{EpisodeFilter{Status: StatusFinished}, []string{e2, e0}},
		{EpisodeFilter{Category: Navigation}, []string{e2, e1}},
		{EpisodeFilter{Annotator: "alice"}, []string{e1, e0}},
		{EpisodeFilter{TaskID: info.ID}, []string{e3, e0}},
		{EpisodeFilter{From: base.AddDate(0, 0, 1), To: base.AddDate(0, 0, 3)}, []string{e2, e1}},
		{EpisodeFilter{Agents: "agents"}, []string{e3}},
		{EpisodeFilter{Agents: "people", Limit: 2, Offset: 1}, []string{e1, e0}},
	}
	for _, c := range checks {
		if got := ids(c.f); !eq(got, c.want) {
			t.Errorf("ListEpisodes(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
	ep, err := s.GetEpisode(t.Context(), e2)
	if err != nil || ep.Goal != "N" || ep.Category != Navigation || ep.Annotator != "bob" || !ep.StartedAt.Equal(base.AddDate(0, 0, 2)) {
		t.Fatalf("GetEpisode: %+v %v", ep, err)
	}
	if _, err := s.GetEpisode(t.Context(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing episode: %v", err)
	}
	c, err := s.CountEpisodes(t.Context(), EpisodeFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.Total != 4 || c.ByCategory[Navigation] != 2 || c.ByStatus[StatusFinished] != 2 || c.ByStatus[StatusDiscarded] != 1 ||
		c.ByCategoryStatus[Information][StatusInterrupted] != 1 {
		t.Fatalf("counts %+v", c)
	}
	if c, _ := s.CountEpisodes(t.Context(), EpisodeFilter{Annotator: "alice"}); c.Total != 2 || c.ByCategory[Information] != 1 {
		t.Fatalf("alice's counts %+v", c)
	}
	if _, err := s.CreateEpisode(t.Context(), Episode{TaskID: "missing", Annotator: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("episode of a missing task: %v", err)
	}
	if _, err := s.CreateEpisode(t.Context(), Episode{ID: e0, TaskID: info.ID, Annotator: "x"}); !errors.Is(err, ErrEpisodeExists) {
		t.Fatalf("episode id reused: %v", err)
	}
}

func TestStepsScreenshotsAndThumbnails(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "T", Navigation, "http://shop.waymark.test/")
	e, _ := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "a"})
	shot := wmPagePNG(7)
	a := action.ClickAt(10, 20)
	for i, st := range []Step{
		{EpisodeID: e.ID, Index: 0, URL: "http://shop.waymark.test/", Screenshot: shot},
		{EpisodeID: e.ID, Index: 1, Action: &a, URL: "http://shop.waymark.test/p", Error: string(action.ErrRendererTimeout)},
	} {
		if err := s.AppendStep(t.Context(), st); err != nil {
			t.Fatal(i, err)
		}
	}
	if err := s.AppendStep(t.Context(), Step{EpisodeID: e.ID, Index: 1}); !errors.Is(err, ErrStepExists) {
		t.Fatalf("same step twice: %v", err)
	}
	if err := s.AppendStep(t.Context(), Step{EpisodeID: "nope", Index: 0}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("step of a missing episode: %v", err)
	}
	steps, _ := s.Steps(t.Context(), e.ID)
	if len(steps) != 2 || steps[1].Action == nil || steps[1].Action.String() != "click 10,20" || steps[1].ActionJSON == "" || steps[1].Error != string(action.ErrRendererTimeout) {
		t.Fatalf("steps %+v", steps)
	}
	if ep, _ := s.GetEpisode(t.Context(), e.ID); ep.NumSteps != 1 {
		t.Fatalf("num_steps %d", ep.NumSteps)
	}
	if got, _ := s.Screenshot(t.Context(), e.ID, 0); !bytes.Equal(got, shot) {
		t.Fatal("screenshot changed in the store")
	}
	if got, err := s.Screenshot(t.Context(), e.ID, 1); err != nil || got != nil {
		t.Fatalf("step without screenshot: %d bytes, %v", len(got), err)
	}

	var cached []byte
	s.db.QueryRow(`SELECT thumb FROM steps WHERE episode_id=? AND idx=0`, e.ID).Scan(&cached)
	if cached != nil {
		t.Fatal("a thumbnail was made on append")
	}
	th, err := s.Thumbnail(t.Context(), e.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(th))
	if err != nil || img.Bounds().Dx() != ThumbWidth || img.Bounds().Dy() != ThumbHeight {
		t.Fatalf("thumbnail %v %v", img.Bounds(), err)
	}
	// The header bar of the page (dark blue) is at the top of the thumbnail.
	r, g, b, _ := img.At(80, 2).RGBA()
	if !(b>>8 > 90 && r>>8 < 200 && g>>8 < 100) {
		t.Fatalf("thumbnail top pixel %d,%d,%d is not the page's header", r>>8, g>>8, b>>8)
	}
	s.db.QueryRow(`SELECT thumb FROM steps WHERE episode_id=? AND idx=0`, e.ID).Scan(&cached)
	if !bytes.Equal(cached, th) {
		t.Fatal("the thumbnail was not cached in steps.thumb")
	}
	// Never recomputed: a marker in the cache comes back as is.
	s.db.Exec(`UPDATE steps SET thumb=? WHERE episode_id=? AND idx=0`, []byte("cached"), e.ID)
	if again, _ := s.Thumbnail(t.Context(), e.ID, 0); string(again) != "cached" {
		t.Fatal("the thumbnail was recomputed instead of read from the cache")
	}
	if _, err := s.Thumbnail(t.Context(), e.ID, 1); !errors.Is(err, ErrNoScreenshot) {
		t.Fatalf("thumbnail without screenshot: %v", err)
	}
	if _, err := s.Thumbnail(t.Context(), e.ID, 9); !errors.Is(err, ErrNotFound) {
		t.Fatalf("thumbnail of a missing step: %v", err)
	}
	if _, err := s.ThumbnailImage(t.Context(), e.ID, 0); err == nil {
		t.Fatal("the marker decoded as a PNG")
	}
}

func TestSetEpisodeAnnotator(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Q", Information, "http://wiki.waymark.test/")
	e, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "agent:127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetEpisodeAnnotator(t.Context(), e.ID, "agent:planner"); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetEpisode(t.Context(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotator != "agent:planner" {
		t.Fatalf("annotator = %q, want agent:planner", got.Annotator)
	}
	if err := s.SetEpisodeAnnotator(t.Context(), "no-such-episode", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown episode: err = %v, want ErrNotFound", err)
	}
}
