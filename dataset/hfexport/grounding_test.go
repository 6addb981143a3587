package hfexport

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine/action"
)

// groundedStep is one stored step of the grounded episode.
type groundedStep struct {
	a      action.Action
	target *action.Target
	txt    string // the extras' axtree_txt; "" stores no extras
}

// groundedEpisode records, through the store's API, an episode whose steps
// carry targets and extras (as the recorder stores them), with step 5
// undone while recording and step 3's stored extras damaged afterwards.
func groundedEpisode(t *testing.T, f *fixture) string {
	t.Helper()
	task, err := f.store.AddTask(t.Context(), dataset.Task{Goal: "Buy the red shoes", Category: dataset.Interaction, StartURL: "http://127.0.0.1:8080/shop", Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := f.store.CreateEpisode(t.Context(), dataset.Episode{TaskID: task.ID, Annotator: "alice", StartedAt: f.base})
	if err != nil {
		t.Fatal(err)
	}
	a51 := &action.Target{Bid: "a51", Tag: "button", Role: "button", Name: "Add to cart", BBox: [4]float64{300, 170.25, 120, 36}, Selector: "#buy"}
	a12 := &action.Target{Bid: "a12", Tag: "input", Role: "textbox", Name: "Search", BBox: [4]float64{20, 60, 400, 30}, Selector: "form > input[name=\"q\"]"}
	i := action.Int
	steps := []groundedStep{
		{txt: "T0"},
		{action.ClickAt(312, 188), a51, "T1"},
		{action.TypeText("it's red"), a12, ""},
		{action.PressKey("ENTER"), a12, "T3"},
		{action.ClickAt(5, 590), &action.Target{Tag: "body", BBox: [4]float64{0, 0, 800, 600}, Selector: "body"}, "T4"},
		{action.Action{Op: action.Move, X: i(1), Y: i(2)}, &action.Target{Bid: "a9", Tag: "a"}, "T5"}, // undone
		{action.ScrollBy(300), nil, "T6"},
		{action.Action{Op: action.Drag, X: i(310), Y: i(180), X2: i(600), Y2: i(400)}, &action.Target{Bid: "a1", Tag: "li"}, "T7"},
		{action.FinishWith("42"), nil, "T8"},
	}
	for idx, s := range steps {
		st := dataset.Step{EpisodeID: ep.ID, Index: idx, URL: stepURL(ep.ID, idx), Title: "Shop", Target: s.target,
			Screenshot: f.pngs[idx%len(f.pngs)], CreatedAt: f.base.Add(time.Duration(idx) * time.Second), Done: idx == len(steps)-1}
		if idx > 0 {
			a := s.a
			st.Action = &a
		}
		if s.txt != "" {
			st.Extras = &action.Extras{AXTreeTxt: s.txt, AXTree: []byte(`{"nodes":[]}`), FocusedBid: "a12"}
		}
		if err := f.store.AppendStep(t.Context(), st); err != nil {
			t.Fatal(err)
		}
		if idx == 5 {
			if k, err := f.store.UndoStep(context.Background(), ep.ID, "alice"); err != nil || k != 5 {
				t.Fatalf("undo: %d, %v", k, err)
			}
		}
	}
	if err := f.store.FinishEpisode(t.Context(), ep.ID, dataset.EpisodeEnd{Answer: "42", At: f.base.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	f.exec(`UPDATE steps SET extras=? WHERE episode_id=? AND idx=3`, []byte("damaged"), ep.ID)
	return ep.ID
}

func TestExportGrounding(t *testing.T) {
	f := newFixture(t, makePNGs(t, 3, false))
	ep := groundedEpisode(t, f)
	out := filepath.Join(t.TempDir(), "ds")
	o := opts(out)
	o.IncludeUnreviewed = true
	mustExport(t, f, o)
	fo := checkFolder(t, out) // every file read and checked independently of the writer

	var rows []stepRow
	for _, rs := range fo.steps {
		for _, r := range rs {
			if *r.EpisodeID == ep {
				rows = append(rows, r)
			}
		}
	}
	type want struct {
		recorded       int64
		axtree         any // string, or nil for null
		target         *stepTarget
		coord, element any
	}
	s, fl := func(v string) *string { return &v }, func(v float64) *float64 { return &v }
	bboxOf := func(x, y, w, h float64) []*float64 { return []*float64{fl(x), fl(y), fl(w), fl(h)} }
	a12 := &stepTarget{Bid: s("a12"), Tag: s("input"), Role: s("textbox"), Name: s("Search"), BBox: bboxOf(20, 60, 400, 30), Selector: s(`form > input[name="q"]`)}
	wants := []want{
		{1, "T0", &stepTarget{Bid: s("a51"), Tag: s("button"), Role: s("button"), Name: s("Add to cart"), BBox: bboxOf(300, 170.25, 120, 36), Selector: s("#buy")},
			`mouse_click(312, 188)`, `click('a51')`},
		{2, "T1", a12, `keyboard_type("it's red")`, `fill('a12', 'it\'s red')`},
		{3, nil, a12, `keyboard_press("Enter")`, `press('a12', 'Enter')`}, // step 2 stored no extras
		{4, nil, &stepTarget{Bid: s(""), Tag: s("body"), Role: s(""), Name: s(""), BBox: bboxOf(0, 0, 800, 600), Selector: s("body")},
			`mouse_click(5, 590)`, nil}, // step 3's extras are damaged; no bid: no element form
		{6, "T4", nil, `scroll(0, 300)`, `scroll(0, 300)`}, // step 5 was undone: the action saw step 4
		{7, "T6", &stepTarget{Bid: s("a1"), Tag: s("li"), Role: s(""), Name: s(""), BBox: bboxOf(0, 0, 0, 0), Selector: s("")},
			`mouse_drag_and_drop(310, 180, 600, 400)`, nil}, // a drag's drop element is not known
		{8, "T7", nil, `send_msg_to_user("42")`, `send_msg_to_user('42')`},
	}
	if len(rows) != len(wants) {
		t.Fatalf("%d rows exported, want %d", len(rows), len(wants))
	}
	for i, w := range wants {
		r := rows[i]
		if *r.RecordedStep != w.recorded {
			t.Errorf("row %d: recorded step %d, want %d", i+1, *r.RecordedStep, w.recorded)
			continue
		}
		if got := optStr(r.AXTreeTxt); got != w.axtree {
			t.Errorf("step %d axtree_txt %v, want %v", w.recorded, got, w.axtree)
		}
		if !reflect.DeepEqual(r.Target, w.target) {
			t.Errorf("step %d target %s, want %s", w.recorded, mustJSON(r.Target), mustJSON(w.target))
		}
		if got := optStr(r.BrowserGymAction); got != w.coord {
			t.Errorf("step %d browsergym_action %v, want %v", w.recorded, got, w.coord)
		}
		if got := optStr(r.BrowserGymElementAction); got != w.element {
			t.Errorf("step %d browsergym_element_action %v, want %v", w.recorded, got, w.element)
		}
	}

	// The Parquet schema as pyarrow reads it, and the card.
	p := parquetFiles(t, out, "steps")[0]
	_, types := arrowOfSchema(t, openParquet(t, p).Metadata().Schema)
	for col, typ := range map[string]string{
		"axtree_txt":                "string",
		"target":                    "struct<bid: string, tag: string, role: string, name: string, bbox: list<float64>, selector: string>",
		"browsergym_action":         "string",
		"browsergym_element_action": "string",
	} {
		if types[col] != typ {
			t.Errorf("column %s is %q, want %q", col, types[col], typ)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	card := string(b)
	for _, s := range []string{
		"  - name: url\n    dtype: string\n  - name: axtree_txt\n    dtype: string\n  - name: action\n",
		"  - name: target\n    struct:\n    - name: bid\n      dtype: string\n    - name: tag\n      dtype: string\n" +
			"    - name: role\n      dtype: string\n    - name: name\n      dtype: string\n    - name: bbox\n      list: float64\n" +
			"    - name: selector\n      dtype: string\n  - name: action_json\n",
		"  - name: browsergym_action\n    dtype: string\n  - name: browsergym_element_action\n    dtype: string\n  - name: next_url\n",
		"## Element grounding and BrowserGym actions",
		"is the coordinate form, from the `coord`, `nav` and `chat` subsets",
		"is the element form, from the `bid`, `nav` and `chat` subsets",
		"Element ids (`bid`) are given as BrowserGym's page marking gives them",
		"In this export, of 7 steps: 5 have a `target`, 5 a `browsergym_element_action` and 5 an `axtree_txt`.",
		"Observation extras of 1 step could not be read (damaged in the store): the action taken on it has a null `axtree_txt`.",
	} {
		if !strings.Contains(card, s) {
			t.Errorf("card lacks\n%s", s)
		}
	}
}

// Without targets or extras (older recordings) the columns are null and the
// card says so in its counts.
func TestExportGroundingNone(t *testing.T) {
	out, _ := exportStandard(t)
	fo := checkFolder(t, out)
	n := 0
	for _, rs := range fo.steps {
		for _, r := range rs {
			n++
			if r.AXTreeTxt != nil || r.Target != nil {
				t.Fatalf("%s step %d: grounded columns %v %v, want null", *r.EpisodeID, *r.StepIndex, r.AXTreeTxt, r.Target)
			}
			// the actions that need no element keep their element form
			el, op := r.BrowserGymElementAction, *r.Action.Op
			needsElement := op == "click" || op == "type" || op == "key"
			if needsElement != (el == nil) {
				t.Errorf("%s step %d (%s): element form %v", *r.EpisodeID, *r.StepIndex, op, optStr(el))
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "In this export, of "+strconv.Itoa(n)+" steps: 0 have a `target`, ") {
		t.Errorf("card counts for %d steps missing", n)
	}
}

func optStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
