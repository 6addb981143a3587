// Package reviewtest records real episodes for the Review tab's tests: the
// demo's end-to-end test and the real binary's (app/e2e_review_test.go). It
// uses the built-in practice sites on 127.0.0.1, a real headless Chromium
// driven by engine/browser, and the dataset recorder writing every step to
// the store. Not imported by the app itself.
package reviewtest

import (
	"context"
	"fmt"
	"time"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

// Script is one episode to record.
type Script struct {
	Goal, Category, StartURL string
	Check                    *action.Check
	Annotator                string
	Actions                  []action.Action
}

// Scripts are the two episodes the demo records: a wiki look-up and a shop
// visit, with clicks, typing, keys, scrolls, back and finish.
var Scripts = []Script{
	{
		Goal: "What is the population of Varnholm according to its infobox?", Category: dataset.Information,
		StartURL: "http://wiki.waymark.test/", Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "12,400"},
		Annotator: "ann",
		Actions: []action.Action{
			action.ClickAt(640, 20), action.TypeText("Varnholm"), action.PressKey("ENTER"),
			action.ScrollBy(300), action.ScrollBy(-300), action.FinishWith("12,400"),
		},
	},
	{
		Goal: "Open the page of the cheapest lamp in the shop", Category: dataset.Navigation,
		StartURL: "http://shop.waymark.test/", Annotator: "agent:demo",
		Actions: []action.Action{
			action.ClickAt(91, 221), action.ScrollBy(400), action.ClickAt(300, 330), {Op: action.Back}, {Op: action.Wait}, action.FinishWith(""),
		},
	},
}

// Record records the scripts into s with a headless Chromium and returns the
// episode ids.
func Record(ctx context.Context, s *dataset.Store, scripts []Script) ([]string, error) {
	srv, err := practice.Start()
	if err != nil {
		return nil, fmt.Errorf("start the practice sites: %w", err)
	}
	defer srv.Close()
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.ActionWait = 500 * time.Millisecond
	set.ExplicitWait = 300 * time.Millisecond
	prov, err := engine.Providers.New([]byte(`{"` + engine.TransportLocalProcess + `":null}`))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, sc := range scripts {
		task, err := s.EnsureTask(ctx, dataset.Task{Goal: sc.Goal, Category: sc.Category, StartURL: sc.StartURL, Source: "demo", Check: sc.Check})
		if err != nil {
			return ids, err
		}
		eng, err := browser.Acquire(ctx, prov, engine.Spec{}, browser.Options{Settings: set, HostRules: srv.HostRules()})
		if err != nil {
			return ids, err
		}
		rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: sc.Annotator})
		if _, err := rec.Reset(ctx, engine.ResetOptions{StartURL: sc.StartURL, Check: sc.Check}); err != nil {
			rec.Close()
			return ids, fmt.Errorf("reset %s: %w", sc.StartURL, err)
		}
		ids = append(ids, rec.EpisodeID())
		for _, a := range sc.Actions {
			obs, err := rec.Step(ctx, a)
			if err != nil {
				rec.Close()
				return ids, fmt.Errorf("step %s: %w", a, err)
			}
			if obs.Done {
				break
			}
		}
		if err := rec.Close(); err != nil {
			return ids, err
		}
	}
	return ids, nil
}
