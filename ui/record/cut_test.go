package record

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset"
	"waymark/engine/action"
)

// Explore… records an episode without a goal; once it ended, Cut a task…
// names a span of its steps (from the step selected in the timeline to
// the last, by default): the dialog refuses an information task without
// its answer, the cut becomes a task and an episode, it is replayed from
// its start state with the Record screen's engine and listed as
// replayable, its failed key point shown as failed; the queue counts the
// cut task apart from the planned ones. A cut whose start page no longer
// replays is listed as NOT replayable, saying it was the start state.
func TestRecordTabExploreAndCut(t *testing.T) {
	f := openRecordFixture(t, []dataset.Task{{Goal: "A planned task", Category: dataset.Navigation, StartURL: "http://127.0.0.1:9/", Source: "test"}})
	r, v := f.tab, f.tab.View()
	r.Explore("http://127.0.0.1:9/explore")
	f.loop.until(t, "the exploration to start", func() bool { return r.life.state == stRecording && len(r.steps.rows) == 1 })
	if r.cuts.btn.Visible() && !r.cuts.btn.Disabled() {
		t.Fatal("a task can be cut while the exploration records")
	}
	for i, x := range []float32{100, 200, 300, 400} {
		click(v, fyne.NewPos(x, 80))
		f.eng.gate <- struct{}{}
		f.loop.until(t, "the click's step", func() bool { return len(r.steps.rows) == i+2 })
	}
	if err := r.Finish(""); err != nil {
		t.Fatal(err)
	}
	f.eng.gate <- struct{}{}
	f.loop.until(t, "the end", func() bool { return r.life.state == stEnded })
	exp := r.steps.episode()
	if e, _ := f.store.GetEpisode(t.Context(), exp); e.Intent != dataset.IntentExploration {
		t.Fatalf("the episode is %q, not an exploration", e.Intent)
	}
	if !r.cuts.btn.Visible() || r.cuts.btn.Disabled() || !strings.Contains(r.CutsText(), "An exploration") {
		t.Fatalf("after the exploration: cut button shown %v enabled %v, list %q", r.cuts.btn.Visible(), !r.cuts.btn.Disabled(), r.CutsText())
	}

	// The dialog: step 2 selected in the timeline is the first step, the
	// last action (not the finish) the last.
	r.steps.list.Select(2)
	r.cuts.ask()
	d := r.cuts.form
	if d == nil || d.Step(d.From.Selected) != 2 || d.Step(d.To.Selected) != 4 || len(d.To.Options) != 4 {
		t.Fatalf("the span offered: %v → %v of %q", d.From.Selected, d.To.Selected, d.To.Options)
	}
	d.Instruction.SetText("Open the page the third click leads to")
	d.Category.SetSelected(dataset.Information)
	d.KeyPoints.SetText("url: 127.0.0.1/x\n\nurl: nowhere\nthe page looks right")
	d.D.Submit()
	if r.cuts.form != d {
		t.Fatal("an information task was cut without its answer")
	}
	d.Answer.SetText("the x page")
	d.To.SetSelected(d.To.Options[1]) // step 2: the last step before the first moves the first too
	d.To.SetSelected(d.To.Options[2])
	if d.Step(d.From.Selected) != 2 || d.Step(d.To.Selected) != 3 {
		t.Fatalf("span %v → %v", d.From.Selected, d.To.Selected)
	}
	d.D.Submit()
	if r.cuts.form != nil {
		t.Fatal("the dialog stayed open")
	}
	// The check replays step 1 (the start state) and the span's 2 steps.
	for range 3 {
		f.eng.gate <- struct{}{}
	}
	f.loop.until(t, "the cut checked", func() bool { return strings.Contains(r.CutsText(), "replayable (3/3 steps matched)") })
	txt := r.CutsText()
	for _, want := range []string{"1 task cut", "steps 2–3 · information: Open the page the third click leads to", "key points: 1 of 2 checked passed, 1 not checkable", "FAILED url: nowhere"} {
		if !strings.Contains(txt, want) {
			t.Fatalf("the cuts list lacks %q:\n%s", want, txt)
		}
	}
	cuts, err := f.store.Cuts(t.Context(), exp)
	if err != nil || len(cuts) != 1 || cuts[0].FinalAnswer != "the x page" || cuts[0].SpanFrom != 2 || cuts[0].SpanTo != 3 {
		t.Fatalf("stored cuts %+v, %v", cuts, err)
	}
	if h, _ := f.store.HindsightCheckOf(t.Context(), cuts[0].ID); !h.Replayable() {
		t.Fatalf("the stored check: %+v", h)
	}
	if got := r.panel.counts.Text; !strings.Contains(got, "1 planned · 1 cut") {
		t.Fatalf("the queue counts %q", got)
	}

	// The start page changed: a second, overlapping cut does not replay.
	f.eng.resetErr = action.Code("page_load_timeout")
	r.CutTask(dataset.CutSpec{From: 1, To: 4, Instruction: "Click four times", Category: dataset.Interaction})
	f.loop.until(t, "the second cut checked", func() bool { return strings.Contains(r.CutsText(), "NOT replayable") })
	if txt := r.CutsText(); !strings.Contains(txt, "steps 1–4") || !strings.Contains(txt, "the start state no longer replays") {
		t.Fatalf("the cuts list:\n%s", txt)
	}
	if !strings.Contains(r.status.errLbl.Text, "NOT replayable") {
		t.Fatalf("the status bar says %q", r.status.errLbl.Text)
	}
}
