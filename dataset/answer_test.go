package dataset

import (
	"context"
	"net/http/httptest"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// A finish that cannot reach the engine (the OpenEnv server went away)
// keeps the person's answer with the episode, which ends as interrupted.
func TestFinishOnADeadConnectionKeepsTheAnswer(t *testing.T) {
	srv, err := openenv.NewServer(openenv.Options{NewEngine: func(context.Context) (engine.Engine, error) {
		return newWMEngine(action.SetDefault, 0), nil
	}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s := wmStore(t)
	task := wmTask(t, s, "How many days?", Information, "http://127.0.0.1:9/")
	ctx := context.Background()
	c, err := openenv.Dial(ctx, hs.URL, openenv.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(s, c, RecorderOptions{TaskID: task.ID, Annotator: "ada"})
	if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: "http://127.0.0.1:9/"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Step(ctx, action.ClickAt(5, 5)); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	hs.CloseClientConnections()
	<-c.Lost()
	if _, err := rec.Step(ctx, action.FinishWith("seven")); err == nil {
		t.Fatal("a finish over a dead connection succeeded")
	}
	id := rec.EpisodeID()
	if err := rec.Close(); err != nil {
		t.Log(err)
	}
	ep, err := s.GetEpisode(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Status != StatusInterrupted || ep.FinalAnswer != "seven" || ep.NumSteps != 1 {
		t.Fatalf("episode after a finish on a dead connection: %+v", ep)
	}
}
