package benchexport

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/dataset/taskfile"
	"waymark/engine/action"
	"waymark/engine/har"
)

// golden is a real store filled through the store's API as the recorder and
// the Review screen leave it:
//
//	shoes (interaction, WebArena task 108, key points in its manifest)
//	  buy     agent:gpt-4o  finished, 3 actions (click a button, a failed
//	          type, finish "done"), network capture; sam: success, no side
//	          effect, somewhat optimal, key step 3; the guidelines are
//	          edited; rita: failure at step 2, side effect yes, no loop,
//	          suboptimal, key steps 1 and 3; lead settles: failure, side
//	          effect yes (so rita's label, the later one, is the primary)
//	  again   agent:gpt-4o  interrupted after 1 action, no capture; rita:
//	          not executable
//	hours (information)
//	  look    alice         finished, 2 actions, answer "9-17"; rita and
//	          sam: success (agreement), optimality 4 from both, side effect
//	          no from rita only
type golden struct {
	store            *dataset.Store
	buy, again, look string
	shoes, hours     string
}

func solidPNG(t testing.TB, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, action.ViewportWidth, action.ViewportHeight))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newGolden(t *testing.T) *golden {
	t.Helper()
	ctx := t.Context()
	s, err := dataset.Open(filepath.Join(t.TempDir(), "waymark.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := &golden{store: s}
	seed := int64(7)
	kp, _ := json.Marshal([]string{"Filter by price under $50", "Sort by lowest price", "Add to cart"})
	shoes, err := s.AddTask(ctx, dataset.Task{Goal: "Buy the cheapest red shoes under $50", Category: dataset.Interaction,
		StartURL: "http://127.0.0.1:7770/shoes", Source: "tasks.json", SourceID: "108",
		Manifest: &taskfile.Manifest{TaskID: "108", Seed: &seed, Extra: map[string]json.RawMessage{"key_points": kp}}})
	if err != nil {
		t.Fatal(err)
	}
	hours, err := s.AddTask(ctx, dataset.Task{Goal: "When is the shop open on Monday?", Category: dataset.Information, StartURL: "http://127.0.0.1:7770/hours"})
	if err != nil {
		t.Fatal(err)
	}
	g.shoes, g.hours = shoes.ID, hours.ID
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	pics := []color.RGBA{{200, 30, 30, 255}, {30, 200, 30, 255}, {30, 30, 200, 255}, {200, 200, 30, 255}}

	record := func(task, annotator string, start time.Time, steps []dataset.Step) string {
		ep, err := s.CreateEpisode(ctx, dataset.Episode{TaskID: task, Annotator: annotator, StartedAt: start})
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range steps {
			st.EpisodeID, st.Index, st.CreatedAt = ep.ID, i, start.Add(time.Duration(i)*time.Second)
			st.Screenshot = solidPNG(t, pics[i%len(pics)])
			if err := s.AppendStep(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		return ep.ID
	}
	click := action.ClickAt(100, 200)
	click.Metadata = map[string]any{"thought": "Sort by price first"}
	typ := action.TypeText("red shoes")
	fin := action.FinishWith("done")
	g.buy = record(g.shoes, "agent:gpt-4o", t0, []dataset.Step{
		{URL: "http://127.0.0.1:7770/shoes", Title: "Shoes"},
		{URL: "http://127.0.0.1:7770/shoes?sort=price", Action: &click, Target: &action.Target{Bid: "12", Tag: "button", Role: "button", Name: "Sort by price"},
			Extras: &action.Extras{AXTreeTxt: "RootWebArea 'Shoes'\n\t[12] button 'Sort by price'", FocusedBid: "12", OpenPagesURLs: []string{"http://127.0.0.1:7770/shoes?sort=price"}}},
		{URL: "http://127.0.0.1:7770/shoes?sort=price", Action: &typ, Error: "the focused element does not take text"},
		{URL: "http://127.0.0.1:7770/cart", Action: &fin, Done: true},
	})
	entry := func(step int, method, url string, status int) har.Entry {
		return har.Entry{StartedDateTime: har.Time(t0.Add(time.Duration(step) * time.Second)), Time: 12, Step: step,
			Request:  har.Request{Method: method, URL: url, HTTPVersion: "HTTP/1.1", Cookies: []har.Cookie{}, Headers: []har.NameValue{{Name: "Referer", Value: "http://127.0.0.1:7770/shoes"}}, QueryString: []har.NameValue{}, HeadersSize: -1, BodySize: 0},
			Response: har.Response{Status: status, StatusText: "OK", HTTPVersion: "HTTP/1.1", Cookies: []har.Cookie{}, Headers: []har.NameValue{}, Content: har.Content{MimeType: "text/html"}, HeadersSize: -1, BodySize: -1},
			Cache:    har.Cache{}, Timings: har.Timings{Send: 1, Wait: 10, Receive: 1}}
	}
	if err := s.SaveHARChunk(ctx, g.buy, []har.Entry{entry(1, "GET", "http://127.0.0.1:7770/shoes?sort=price", 200), entry(3, "POST", "http://127.0.0.1:7770/cart/add", 200)},
		har.Summary{Redacted: true, Entries: 2}, nil); err != nil {
		t.Fatal(err)
	}
	one := 1.0
	if err := s.FinishEpisode(ctx, g.buy, dataset.EpisodeEnd{Answer: "done", FinalURL: "http://127.0.0.1:7770/cart", Reward: &one, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}

	back := action.Action{Op: action.Back}
	g.again = record(g.shoes, "agent:gpt-4o", t0.Add(time.Hour), []dataset.Step{{URL: "http://127.0.0.1:7770/shoes"}, {URL: "http://127.0.0.1:7770/", Action: &back}})
	if err := s.InterruptEpisode(ctx, g.again); err != nil {
		t.Fatal(err)
	}

	scroll := action.ScrollBy(300)
	ans := action.FinishWith("9-17")
	g.look = record(g.hours, "alice", t0.Add(2*time.Hour), []dataset.Step{{URL: "http://127.0.0.1:7770/hours"}, {URL: "http://127.0.0.1:7770/hours", Action: &scroll}, {URL: "http://127.0.0.1:7770/hours", Action: &ans, Done: true}})
	if err := s.FinishEpisode(ctx, g.look, dataset.EpisodeEnd{Answer: "9-17", At: t0.Add(2*time.Hour + time.Minute)}); err != nil {
		t.Fatal(err)
	}

	save := func(r dataset.Review, settle bool) {
		t.Helper()
		var err error
		if settle {
			_, err = s.Settle(ctx, r)
		} else {
			_, err = s.SaveReview(ctx, r)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	two := 2
	save(dataset.Review{EpisodeID: g.buy, Reviewer: "sam", Outcome: dataset.OutcomeSuccess, SideEffect: dataset.JudgeNo, Looping: dataset.JudgeNo, Optimality: 3, KeySteps: []int{3}}, false)
	if err := s.SetGuidelinesAs(ctx, "# House rules\nA purchase counts only when the cart shows it.", "lead"); err != nil {
		t.Fatal(err)
	}
	save(dataset.Review{EpisodeID: g.buy, Reviewer: "rita", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "wrong_text",
		Reason: "typed into a button", SideEffect: dataset.JudgeYes, Looping: dataset.JudgeNo, Optimality: 2, KeySteps: []int{1, 3}}, false)
	save(dataset.Review{EpisodeID: g.buy, Reviewer: "lead", Outcome: dataset.OutcomeFailure, FailureStep: &two, FailureType: "wrong_text",
		Reason: "the cart was never filled", SideEffect: dataset.JudgeYes, Looping: dataset.JudgeNo, Optimality: 2, KeySteps: []int{1}}, true)
	save(dataset.Review{EpisodeID: g.again, Reviewer: "rita", Outcome: dataset.OutcomeNotExecutable, Reason: "the shop was down"}, false)
	save(dataset.Review{EpisodeID: g.look, Reviewer: "rita", Outcome: dataset.OutcomeSuccess, SideEffect: dataset.JudgeNo, Optimality: 4}, false)
	save(dataset.Review{EpisodeID: g.look, Reviewer: "sam", Outcome: dataset.OutcomeSuccess, Optimality: 4, KeySteps: []int{2}}, false)
	return g
}
