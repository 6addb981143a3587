package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

func actorsOf(t *testing.T, s *Store, ep string) []string {
	t.Helper()
	steps, err := s.Steps(t.Context(), ep)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range steps {
		out = append(out, st.Actor)
	}
	return out
}

func click(x int) engine.Action {
	y := 10
	return action.Action{Op: action.Click, X: &x, Y: &y}
}

// A store from before the actor column (schema 7) upgrades: every stored step gets its episode's annotator as its actor, a
// person's name as human:NAME.
func TestMigrationGivesStepsTheirAnnotator(t *testing.T) {
	path := oldStore(t, 7, `
		INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES ('t1', 'Buy socks', 'interaction', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
		INSERT INTO episodes (id, task_id, annotator, action_set, status, end_reason, num_steps, started_at, ended_at) VALUES
			('e1', 't1', 'ann', 'default', 'finished', 'finished', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z'),
			('e2', 't1', 'agent:bot', 'default', 'finished', 'finished', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z');
		INSERT INTO steps (episode_id, idx, action_json, op, url, created_at) VALUES
			('e1', 0, NULL, '', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z'),
			('e1', 1, '{"op":"click","x":1,"y":2}', 'click', 'http://shop.waymark.test/a', '2026-01-01T00:00:01.000Z'),
			('e2', 0, NULL, '', 'http://shop.waymark.test/', '2026-01-01T00:00:00.000Z'),
			('e2', 1, '{"op":"click","x":1,"y":2}', 'click', 'http://shop.waymark.test/a', '2026-01-01T00:00:01.000Z');`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := actorsOf(t, s, "e1"); !slices.Equal(got, []string{"human:ann", "human:ann"}) {
		t.Fatalf("person's episode: actors %q", got)
	}
	if got := actorsOf(t, s, "e2"); !slices.Equal(got, []string{"agent:bot", "agent:bot"}) {
		t.Fatalf("agent's episode: actors %q", got)
	}
	if ep := mustEpisode(t, s, "e2"); ep.NumInterventions != 0 {
		t.Fatalf("an old episode has %d interventions", ep.NumInterventions)
	}
}

// An agent's episode a person takes over twice: each step is stored with
// who acted, the episode counts two interventions (removed steps do not
// count), the queue's filter finds it, and renaming the agent renames only
// its own steps.
func TestStepActorsAndInterventions(t *testing.T) {
	s := wmStore(t)
	task := wmTask(t, s, "Buy socks", Interaction, "http://shop.waymark.test/")
	ctx := context.Background()
	eng := newWMEngine(action.SetDefault, 0)
	rec := NewRecorder(s, eng, RecorderOptions{TaskID: task.ID, Annotator: "agent:bot"})
	defer rec.Close()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	ep := rec.EpisodeID()
	plan := []string{"", "human:ann", "human:ann", "", "human:ann", ""}
	for i, who := range plan {
		if _, err := rec.StepAs(ctx, click(i+1), who); err != nil {
			t.Fatalf("step %d as %q: %v", i+1, who, err)
		}
	}
	if _, err := rec.StepAs(ctx, click(9), "ann"); err == nil || !strings.Contains(err.Error(), "agent:NAME or human:NAME") {
		t.Fatalf("an actor with no prefix: %v", err)
	}
	want := []string{"agent:bot", "agent:bot", "human:ann", "human:ann", "agent:bot", "human:ann", "agent:bot"}
	if got := actorsOf(t, wmReopen(t, s), ep); !slices.Equal(got, want) {
		t.Fatalf("actors %q, want %q", got, want)
	}
	if e := mustEpisode(t, s, ep); e.NumInterventions != 2 || e.NumSteps != 6 {
		t.Fatalf("episode: %d interventions, %d steps; want 2 and 6", e.NumInterventions, e.NumSteps)
	}
	if _, err := rec.StepAs(ctx, action.Action{Op: action.Finish}, ""); err != nil {
		t.Fatal(err)
	}

	// A person's own episode has no intervention.
	rec2 := NewRecorder(s, newWMEngine(action.SetDefault, 0), RecorderOptions{TaskID: task.ID, Annotator: "ann"})
	defer rec2.Close()
	if _, err := rec2.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	plain := rec2.EpisodeID()
	for _, a := range []engine.Action{click(1), action.Action{Op: action.Finish}} {
		if _, err := rec2.Step(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if got := actorsOf(t, s, plain); !slices.Equal(got, []string{"human:ann", "human:ann", "human:ann"}) {
		t.Fatalf("a person's episode: actors %q", got)
	}
	q, err := s.ReviewQueue(ctx, QueueFilter{Reviewer: "rev", Interventions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 1 || q.Items[0].EpisodeID != ep || q.Items[0].NumInterventions != 2 {
		t.Fatalf("queue with interventions: %+v", q.Items)
	}
	if q, _ := s.ReviewQueue(ctx, QueueFilter{Reviewer: "rev"}); len(q.Items) != 2 {
		t.Fatalf("the whole queue lists %d episodes, want 2", len(q.Items))
	}

	// A reviewer removes the person's step 5 (the second takeover): one
	// intervention is left.
	if err := s.RemoveStep(ctx, ep, 5, "rev", "test"); err != nil {
		t.Fatal(err)
	}
	if e := mustEpisode(t, s, ep); e.NumInterventions != 1 {
		t.Fatalf("after removing the second takeover's only step: %d interventions, want 1", e.NumInterventions)
	}

	if err := s.SetEpisodeAnnotator(ctx, ep, "agent:bot-2"); err != nil {
		t.Fatal(err)
	}
	want = []string{"agent:bot-2", "agent:bot-2", "human:ann", "human:ann", "agent:bot-2", "human:ann", "agent:bot-2", "agent:bot-2"}
	if got := actorsOf(t, s, ep); !slices.Equal(got, want) {
		t.Fatalf("after renaming the agent: actors %q, want %q", got, want)
	}
}

func TestCountInterventions(t *testing.T) {
	for _, c := range []struct {
		actors []string
		want   int
	}{
		{nil, 0},
		{[]string{"agent:a", "agent:a"}, 0},
		{[]string{"human:p"}, 1},
		{[]string{"agent:a", "human:p", "human:p", "agent:a", "human:p"}, 2},
		{[]string{"human:p", "human:q", "agent:a"}, 1},
	} {
		if got := CountInterventions("agent:a", c.actors); got != c.want {
			t.Errorf("%q: %d, want %d", c.actors, got, c.want)
		}
	}
}

// BenchmarkQueueInterventions lists the queue filtered to episodes with
// interventions from 300 agent episodes of 10 steps, each step with a
// 40 KB screenshot: the count comes from the steps_actor index alone (with
// the table's rows, reading actor walks every picture's pages: about
// 35 ms against 1.5 ms here).
func BenchmarkQueueInterventions(b *testing.B) {
	s := wmStore(b)
	task := wmTask(b, s, "Bench", Navigation, "http://shop.waymark.test/")
	blob := make([]byte, 40000)
	for i := range blob {
		blob[i] = byte(i * 7919)
	}
	tx, err := s.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("ep-%05d", i)
		if _, err := tx.Exec(`INSERT INTO episodes(id, task_id, annotator, action_set, status, num_steps, started_at) VALUES(?,?,?,?,?,?,?)`,
			id, task.ID, "agent:bot", "default", StatusFinished, 10, now()); err != nil {
			b.Fatal(err)
		}
		for k := 0; k <= 10; k++ {
			actor := "agent:bot"
			if k == 4 && i%3 == 0 {
				actor = "human:ann"
			}
			if _, err := tx.Exec(`INSERT INTO steps(episode_id, idx, screenshot, created_at, actor) VALUES(?,?,?,?,?)`, id, k, blob, now(), actor); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		q, err := s.ReviewQueue(b.Context(), QueueFilter{Reviewer: "x", Interventions: true})
		if err != nil || len(q.Items) != 100 {
			b.Fatal(err, len(q.Items))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/queue")
}
