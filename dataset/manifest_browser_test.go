package dataset_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
)

const validatePage = `<!doctype html><title>Button</title>
<button id="b" style="position:absolute; left:20px; top:20px; width:200px; height:50px"
 onclick="localStorage.setItem('clicked', 'yes'); document.title = 'Clicked'">Click me</button>`

// Manifest tasks' validate scripts run in the real browser when their
// episodes are recorded: the result is stored in episodes.validate_json
// and its reward is the automatic hint, joined with an answer check's.
func TestRecorderRunsManifestValidateScript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, validatePage)
	}))
	defer site.Close()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const validate = `(() => { const ok = localStorage.getItem('clicked') === 'yes'; return {reward: ok ? 1 : 0, done: ok, message: ok ? 'clicked' : 'not clicked', info: {rubric: {clicked: ok}}}; })()`
	manifest := fmt.Sprintf(`[
 {"taskId": "t.end", "goal": "Click the button", "setupUrl": "%[1]s/end", "category": "interaction", "validateScript": %[2]q},
 {"taskId": "t.each", "goal": "Click the button, each step", "setupUrl": "%[1]s/each", "category": "interaction", "validateScript": %[2]q, "validateEachStep": true},
 {"taskId": "t.throws", "goal": "Click the button, bad grader", "setupUrl": "%[1]s/throws", "category": "interaction", "validateScript": "JSON.parse('{oops')"},
 {"taskId": "t.answer", "goal": "Say yes after clicking", "setupUrl": "%[1]s/answer", "category": "information", "answer": "yes", "validateScript": %[2]q}
]`, site.URL, validate)
	rep, err := s.ImportTasks(t.Context(), strings.NewReader(manifest), "m.json", dataset.ImportOptions{})
	if err != nil || rep.Imported != 4 {
		t.Fatalf("import: %v %d %v", err, rep.Imported, rep.Skipped)
	}
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{Annotator: "alice"})
	defer rec.Close()
	ctx := context.Background()

	episode := func(ref string, steps ...action.Action) (engine.Observation, string) {
		t.Helper()
		task, err := s.FindTaskRef(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		rec.SetTask(task.ID)
		obs, err := rec.Reset(ctx, engine.ResetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range steps {
			if obs, err = rec.Step(ctx, a); err != nil {
				t.Fatalf("%s: %s: %v", ref, a, err)
			}
		}
		return obs, rec.EpisodeID()
	}
	stored := func(id string) (*action.Validation, *float64) {
		t.Helper()
		v, err := s.EpisodeValidation(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := s.GetEpisode(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return v, ep.AutoReward
	}
	click := action.ClickAt(100, 45)

	t.Run("at the end", func(t *testing.T) {
		obs, id := episode("t.end", click, action.FinishWith(""))
		if obs.Validation == nil || obs.Validation.Reward != 1 || !obs.Validation.Done || obs.Reward == nil || *obs.Reward != 1 {
			t.Fatalf("final observation: validation %+v, reward %v", obs.Validation, obs.Reward)
		}
		v, auto := stored(id)
		if v == nil || v.Reward != 1 || v.Message != "clicked" || string(v.Info) != `{"rubric":{"clicked":true}}` || v.Step != 2 || auto == nil || *auto != 1 {
			t.Fatalf("stored: %+v, auto_reward %v", v, auto)
		}
		// Not clicked: reward 0, and only the end ran the script.
		obs, id = episode("t.end", action.FinishWith(""))
		v, auto = stored(id)
		if obs.Reward == nil || *obs.Reward != 0 || v == nil || v.Reward != 0 || v.Message != "not clicked" || auto == nil || *auto != 0 {
			t.Fatalf("not clicked: reward %v, stored %+v, auto %v", obs.Reward, v, auto)
		}
	})
	t.Run("each step", func(t *testing.T) {
		task, _ := s.FindTaskRef(t.Context(), "t.each")
		rec.SetTask(task.ID)
		obs, err := rec.Reset(ctx, engine.ResetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id := rec.EpisodeID()
		if v, _ := stored(id); obs.Validation == nil || obs.Validation.Reward != 0 || v == nil || v.Step != 0 {
			t.Fatalf("after reset: %+v, stored %+v", obs.Validation, v)
		}
		if obs, err = rec.Step(ctx, click); err != nil {
			t.Fatal(err)
		}
		if v, auto := stored(id); obs.Validation == nil || obs.Validation.Reward != 1 || v == nil || v.Step != 1 || v.Reward != 1 || auto != nil {
			t.Fatalf("after the click: %+v, stored %+v, auto %v (the episode goes on)", obs.Validation, v, auto)
		}
	})
	t.Run("a grader that throws", func(t *testing.T) {
		obs, id := episode("t.throws", click, action.FinishWith(""))
		v, auto := stored(id)
		if v == nil || !strings.Contains(v.Error, "the validate script failed") || !strings.Contains(v.Error, "SyntaxError") ||
			obs.Reward == nil || *obs.Reward != 0 || auto == nil || *auto != 0 {
			t.Fatalf("stored %+v, reward %v, auto %v", v, obs.Reward, auto)
		}
	})
	t.Run("with an answer check", func(t *testing.T) {
		obs, _ := episode("t.answer", action.FinishWith("yes"))
		if obs.Reward == nil || *obs.Reward != 0 {
			t.Errorf("right answer, page not done: reward %v, want 0", obs.Reward)
		}
		obs, _ = episode("t.answer", click, action.FinishWith("yes"))
		if obs.Reward == nil || *obs.Reward != 1 {
			t.Errorf("right answer, page done: reward %v, want 1", obs.Reward)
		}
		obs, _ = episode("t.answer", click, action.FinishWith("no"))
		if obs.Reward == nil || *obs.Reward != 0 {
			t.Errorf("wrong answer, page done: reward %v, want 0", obs.Reward)
		}
	})
}
