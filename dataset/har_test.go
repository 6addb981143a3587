package dataset

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/har"
)

// capEngine is wmEngine with a network capture: every reset and step makes
// two requests stamped with the engine's step count, one of which finishes
// only at the next call (its body "being read").
type capEngine struct {
	*wmEngine
	count   int // the engine's step count
	late    []har.Entry
	done    []har.Entry
	pages   []har.Page
	session int
}

func (e *capEngine) request(path string, step int) har.Entry {
	return har.Entry{StartedDateTime: fmt.Sprintf("2026-01-01T00:00:%02d.000Z", len(e.done)+len(e.late)+e.session*20),
		Pageref: "page_1", Step: step,
		Request:  har.Request{Method: "GET", URL: "http://wiki.waymark.test" + path},
		Response: har.Response{Status: 200, Content: har.Content{MimeType: "application/json", Text: `{"ok":true}`}}}
}

func (e *capEngine) Reset(ctx context.Context, opts engine.ResetOptions) (engine.Observation, error) {
	e.session++
	e.count, e.late, e.done = 0, nil, nil
	e.pages = []har.Page{{ID: "page_1", Title: opts.StartURL, StartedDateTime: "2026-01-01T00:00:00.000Z", PageTimings: har.PageTimings{OnContentLoad: -1, OnLoad: -1}}}
	e.done = append(e.done, e.request("/", 0))
	e.late = append(e.late, e.request("/api/late", 0))
	return e.wmEngine.Reset(ctx, opts)
}

func (e *capEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	obs, err := e.wmEngine.Step(ctx, a)
	if err == nil {
		e.count++
		e.done = append(e.done, e.request(fmt.Sprintf("/api/step/%d", e.count), e.count))
		e.late = append(e.late, e.request(fmt.Sprintf("/api/late/%d", e.count), e.count))
	}
	return obs, err
}

func (e *capEngine) TakeHAR(final bool) har.Capture {
	out := e.done
	e.done = nil
	// What was late last time is complete now; the newest late one only
	// at the end.
	n := len(e.late) - 1
	if final {
		n = len(e.late)
	}
	out = append(out, e.late[:max(n, 0)]...)
	e.late = e.late[max(n, 0):]
	e.pages[0].PageTimings = har.PageTimings{OnContentLoad: 12, OnLoad: 34}
	return har.Capture{Entries: out, Pages: append([]har.Page(nil), e.pages...),
		Summary: har.Summary{Redacted: true, RedactHeaders: []string{"authorization"}, RedactKeys: []string{"password"}, BodyCap: 1 << 20, EpisodeCap: 64 << 20, BodiesDropped: 2}}
}

var _ engine.NetworkCapture = (*capEngine)(nil)

func harURLs(es []har.Entry) string {
	var b []string
	for _, e := range es {
		b = append(b, fmt.Sprintf("%d %s", e.Step, strings.TrimPrefix(e.Request.URL, "http://wiki.waymark.test")))
	}
	return strings.Join(b, ", ")
}

func TestRecorderStoresHARPerStep(t *testing.T) {
	s := wmStore(t)
	task, err := s.AddTask(t.Context(), Task{Goal: "Look around", Category: Navigation, StartURL: "http://wiki.waymark.test/"})
	if err != nil {
		t.Fatal(err)
	}
	eng := &capEngine{wmEngine: newWMEngine(action.SetDefault, 0)}
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: task.StartURL}); err != nil {
		t.Fatal(err)
	}
	id := rec.EpisodeID()
	for i := 0; i < 2; i++ {
		if _, err := rec.Step(ctx, action.Action{Op: action.Scroll, DY: 100}); err != nil {
			t.Fatal(err)
		}
	}
	// After step 2 (before the end): the late request of step 2 is not in.
	got, err := s.StepRequests(ctx, id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if harURLs(got) != "2 /api/step/2" {
		t.Errorf("step 2 requests before the end = %q", harURLs(got))
	}
	var chunks int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM har_chunks WHERE episode_id=?`, id).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if chunks != 3 {
		t.Errorf("chunks after reset and 2 steps = %d, want 3 (one per step)", chunks)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ = s.StepRequests(ctx, id, 2)
	if harURLs(got) != "2 /api/step/2, 2 /api/late/2" {
		t.Errorf("step 2 requests after the end = %q", harURLs(got))
	}
	got, _ = s.StepRequests(ctx, id, 0)
	if harURLs(got) != "0 /, 0 /api/late" {
		t.Errorf("step 0 requests = %q", harURLs(got))
	}
	log, err := s.EpisodeHAR(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Entries) != 6 || log.Version != "1.2" || log.Creator.Name != "waymark" {
		t.Errorf("log: %d entries, version %q, creator %q", len(log.Entries), log.Version, log.Creator.Name)
	}
	if len(log.Pages) != 1 || log.Pages[0].PageTimings.OnLoad != 34 {
		t.Errorf("pages = %+v, want one with onLoad 34", log.Pages)
	}
	for _, want := range []string{"secrets redacted", "2 later bodies were dropped"} {
		if !strings.Contains(log.Comment, want) {
			t.Errorf("log comment %q lacks %q", log.Comment, want)
		}
	}
	var b strings.Builder
	if err := har.Write(&b, log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"_step": 2`) || !strings.Contains(b.String(), `"cookies": []`) {
		t.Errorf("written HAR lacks _step or empty arrays:\n%.600s", b.String())
	}
}

func TestEpisodeHARWithoutCapture(t *testing.T) {
	s := wmStore(t)
	task, err := s.AddTask(t.Context(), Task{Goal: "Look around", Category: Navigation, StartURL: "http://wiki.waymark.test/"})
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	if _, err := rec.Reset(context.Background(), engine.ResetOptions{StartURL: task.StartURL}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EpisodeHAR(t.Context(), rec.EpisodeID()); err == nil || !strings.Contains(err.Error(), "without network capture") {
		t.Errorf("EpisodeHAR of an episode without capture: %v", err)
	}
	if got, err := s.StepRequests(t.Context(), rec.EpisodeID(), 0); err != nil || len(got) != 0 {
		t.Errorf("StepRequests without capture = %v, %v; want none", got, err)
	}
}

// After an undo the page is brought back by replaying the kept steps: the
// replay's requests are not stored, and the steps recorded next get their
// stored index, not the engine's count.
func TestRecorderHARAfterUndo(t *testing.T) {
	s := wmStore(t)
	task, err := s.AddTask(t.Context(), Task{Goal: "Look around", Category: Navigation, StartURL: "http://wiki.waymark.test/"})
	if err != nil {
		t.Fatal(err)
	}
	eng := &capEngine{wmEngine: newWMEngine(action.SetDefault, 0)}
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: task.StartURL}); err != nil {
		t.Fatal(err)
	}
	id := rec.EpisodeID()
	scroll := action.Action{Op: action.Scroll, DY: 100}
	for i := 0; i < 2; i++ {
		if _, err := rec.Step(ctx, scroll); err != nil {
			t.Fatal(err)
		}
	}
	bring := func(ctx context.Context, inner engine.Engine, opts engine.ResetOptions, ep string) (engine.Observation, int, error) {
		obs, err := inner.Reset(ctx, opts)
		steps, _ := s.Steps(ctx, ep)
		k := 0
		for _, st := range steps {
			if st.Index > 0 && !st.Removed && err == nil {
				obs, err = inner.Step(ctx, *st.Action)
				k = st.Index
			}
		}
		return obs, k, err
	}
	if undone, _, err := rec.Undo(ctx, bring); err != nil || undone != 2 {
		t.Fatalf("undo: %d, %v", undone, err)
	}
	obs, err := rec.Step(ctx, scroll)
	if err != nil || obs.Step != 3 {
		t.Fatalf("step after the undo: %d, %v", obs.Step, err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for step, want := range map[int]string{
		0: "0 /, 0 /api/late",
		1: "1 /api/step/1, 1 /api/late/1",
		2: "2 /api/step/2, 2 /api/late/2", // the undone step keeps its requests
		3: "3 /api/step/2, 3 /api/late/2", // the engine's second step after the replay
	} {
		got, err := s.StepRequests(ctx, id, step)
		if err != nil || harURLs(got) != want {
			t.Errorf("step %d: %q, %v; want %q", step, harURLs(got), err, want)
		}
	}
	log, err := s.EpisodeHAR(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Entries) != 8 || len(log.Pages) != 2 || log.Pages[0].ID != "page_1" || log.Pages[1].ID != "r1.page_1" {
		t.Errorf("%d entries, pages %+v", len(log.Entries), log.Pages)
	}
	if got, _ := s.StepRequests(ctx, id, 3); len(got) > 0 && got[0].Pageref != "r1.page_1" {
		t.Errorf("step 3 pageref %q", got[0].Pageref)
	}
}
