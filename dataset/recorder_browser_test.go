package dataset_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"waymark/dataset"
	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/browser"
	"waymark/engine/har"
)

const wmBrowserPage = `<!doctype html><html><head><title>Colours</title><style>
body { margin: 0; font: 16px sans-serif; }
#q { position: absolute; left: 20px; top: 20px; width: 300px; height: 30px; }
#go { position: absolute; left: 340px; top: 20px; width: 100px; height: 34px; }
</style></head><body>
<input id="q" autocomplete="off"><button id="go" onclick="location.href='/answer?q='+encodeURIComponent(q.value)">Search</button>
</body></html>`

// The recorder over the real local browser engine (headless Chromium): every
// step is stored with its PNG, URL and title, and the end sets the episode's
// status, answer and automatic reward.
func TestRecorderWithBrowserEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, wmBrowserPage)
	})
	mux.HandleFunc("/answer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<title>Result</title><h1>The sky is blue</h1><p>You searched %q</p>`, r.URL.Query().Get("q"))
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	s, err := dataset.Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.AddTask(t.Context(), dataset.Task{Goal: "What colour is the sky?", Category: dataset.Information, StartURL: site.URL + "/",
		Check: &action.Check{Kind: action.CheckKindAnswer, Answer: "blue"}})
	if err != nil {
		t.Fatal(err)
	}
	set := engine.DefaultSettings()
	set.Display = engine.DisplayHeadless
	set.HAR = true
	eng, err := browser.New(browser.Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	rec := dataset.NewRecorder(s, eng, dataset.RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	defer rec.Close()
	ctx := context.Background()
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{action.ClickAt(100, 35), action.TypeText("sky colour"), action.ClickAt(390, 37)} {
		if _, err := rec.Step(ctx, a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if _, err := rec.Step(ctx, action.ClickAt(800, 1)); err == nil {
		t.Fatal("an out-of-viewport click was accepted")
	}
	obs, err := rec.Step(ctx, action.FinishWith("Blue"))
	if err != nil {
		t.Fatal(err)
	}
	ep, err := s.GetEpisode(ctx, rec.EpisodeID())
	if err != nil {
		t.Fatal(err)
	}
	if ep.Status != dataset.StatusFinished || ep.EndReason != action.EndFinished || ep.FinalAnswer != "Blue" ||
		ep.AutoReward == nil || *ep.AutoReward != 1 || ep.NumSteps != 4 || ep.FinalURL != obs.URL {
		t.Fatalf("episode %+v (reward %v)", ep, ep.AutoReward)
	}
	steps, _ := s.Steps(ctx, ep.ID)
	if len(steps) != 5 {
		t.Fatalf("%d steps", len(steps))
	}
	if steps[3].URL != site.URL+"/answer?q=sky%20colour" || steps[3].Title != "Result" {
		t.Fatalf("step 3 after the search: %s %q", steps[3].URL, steps[3].Title)
	}
	for i := range steps {
		b, err := s.Screenshot(ctx, ep.ID, i)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			t.Fatalf("step %d screenshot: %v %v", i, img.Bounds(), err)
		}
	}
	if th, err := s.ThumbnailImage(ctx, ep.ID, 3); err != nil || th.Bounds().Dx() != dataset.ThumbWidth {
		t.Fatalf("thumbnail: %v", err)
	}
	// The network capture: the search's page load belongs to step 3, the
	// click into the box (step 1) made no request; the HAR has both pages.
	if got, err := s.StepRequests(ctx, ep.ID, 1); err != nil || len(got) != 0 {
		t.Fatalf("step 1 requests: %v %v", got, err)
	}
	got, err := s.StepRequests(ctx, ep.ID, 3)
	if err != nil || !slices.ContainsFunc(got, func(e har.Entry) bool {
		return e.Request.URL == site.URL+"/answer?q=sky%20colour" && e.ResourceType == "document" && e.Response.Status == 200 && e.Step == 3
	}) {
		t.Fatalf("step 3 requests: %+v %v", got, err)
	}
	if log, err := s.EpisodeHAR(ctx, ep.ID); err != nil || len(log.Pages) != 2 || log.Browser == nil || log.Browser.Name != "Chromium" {
		t.Fatalf("episode HAR: %+v %v", log, err)
	}
	if !bytes.Contains([]byte(ep.EngineJSON), []byte(`"display":"headless"`)) || !bytes.Contains([]byte(ep.EngineJSON), []byte(`"browser":"Chromium`)) {
		t.Fatalf("engine details %s", ep.EngineJSON)
	}
}
