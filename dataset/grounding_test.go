package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"waymark/engine"
	"waymark/engine/action"
)

// groundedEngine is the test engine with element-grounded observations:
// each observation gets the extras and target the test queued for it
// (none when the queue is empty), as the browser engine fills them.
type groundedEngine struct {
	*wmEngine
	extras  []*action.Extras
	targets []*action.Target
	secret  bool // the next type goes into a password field
}

func (g *groundedEngine) ground(obs engine.Observation) engine.Observation {
	if len(g.extras) > 0 {
		obs.Extras, g.extras = g.extras[0], g.extras[1:]
	}
	if len(g.targets) > 0 {
		obs.Target, g.targets = g.targets[0], g.targets[1:]
	}
	return obs
}

func (g *groundedEngine) Reset(ctx context.Context, o engine.ResetOptions) (engine.Observation, error) {
	obs, err := g.wmEngine.Reset(ctx, o)
	return g.ground(obs), err
}

func (g *groundedEngine) Step(ctx context.Context, a engine.Action) (engine.Observation, error) {
	obs, err := g.wmEngine.Step(ctx, a)
	if err != nil {
		return obs, err
	}
	obs.Redacted = g.secret && a.Op == action.Type
	return g.ground(obs), nil
}

// axTreeJSON is an accessibility tree of n nodes shaped like CDP's
// (repetitive, as real ones are).
func axTreeJSON(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"nodeId":"%d","ignored":false,"role":{"type":"role","value":"link"},"name":{"type":"computedString","value":"Product %d — red shoes, size %d"},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}],"childIds":["%d"],"backendDOMNodeId":%d,"browsergym_id":"%d"}`,
			i+1, i, 36+i%12, i+2, 100+i, i)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

func extrasFor(step, nodes int) *action.Extras {
	bb := [4]float64{10, 20.5, 120, 36}
	return &action.Extras{
		AXTree:    axTreeJSON(nodes),
		AXTreeTxt: fmt.Sprintf("RootWebArea 'Shop', focused\n\t[a51] button 'Add to cart' (step %d)", step),
		ElementProps: map[string]action.ElementProps{
			"a51": {Visibility: 1, BBox: &bb, Clickable: true, SetOfMarks: true},
			"a52": {Visibility: 0.25, BBox: nil},
		},
		FocusedBid:      "a12",
		OpenPagesURLs:   []string{"http://shop.test/", "http://shop.test/cart"},
		OpenPagesTitles: []string{"Shop", "Cart"},
		ActivePageIndex: 1,
		LastAction:      "",
		ElapsedTimeSecs: 1.5 * float64(step),
	}
}

func groundedRecorder(t *testing.T) (*Store, *groundedEngine, *Recorder) {
	t.Helper()
	s := wmStore(t)
	task := wmTask(t, s, "Buy red shoes", Interaction, "http://shop.test/")
	g := &groundedEngine{wmEngine: newWMEngine(action.SetExtended, 50)}
	rec := NewRecorder(s, g, RecorderOptions{TaskID: task.ID, Annotator: "alice"})
	t.Cleanup(func() { rec.Close() })
	return s, g, rec
}

// Extras and targets recorded through the recorder come back as they went
// in; steps without them store NULL and read back as nil.
func TestGroundingRoundTrip(t *testing.T) {
	s, g, rec := groundedRecorder(t)
	ctx := context.Background()
	x0, x1 := extrasFor(0, 50), extrasFor(1, 50)
	x1.LastAction = "mouse_click(312, 188)"
	g.extras = []*action.Extras{x0, x1, nil}
	target := &action.Target{Bid: "a51", Tag: "button", Role: "button", Name: "Add to cart “now”",
		BBox: [4]float64{300, 170.25, 120, 36}, Selector: "#buy >>> button.primary"}
	g.targets = []*action.Target{nil, target, nil}
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	obs, err := rec.Step(ctx, action.ClickAt(312, 188))
	if err != nil {
		t.Fatal(err)
	}
	if obs.Target != target || obs.Extras != x1 {
		t.Error("the recorder changed the observation's target or extras")
	}
	if _, err := rec.Step(ctx, action.Action{Op: action.Wait}); err != nil { // no extras, no target
		t.Fatal(err)
	}
	ep := rec.EpisodeID()

	steps, err := s.Steps(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("%d steps", len(steps))
	}
	want := action.Target{Bid: "a51", Tag: "button", Role: "button", Name: "Add to cart “now”",
		BBox: [4]float64{300, 170.25, 120, 36}, Selector: "#buy >>> button.primary"}
	if steps[1].Target == nil || *steps[1].Target != want {
		t.Errorf("step 1 target: %+v, want %+v", steps[1].Target, want)
	}
	if steps[0].Target != nil || steps[2].Target != nil {
		t.Errorf("targets of steps 0 and 2: %+v %+v, want none", steps[0].Target, steps[2].Target)
	}
	for i, st := range steps {
		if st.Extras != nil {
			t.Errorf("Steps left step %d's extras in the list", i)
		}
	}
	// The streamed and edited steps carry the target too.
	for st, err := range s.EditedSteps(ctx, ep) {
		if err != nil {
			t.Fatal(err)
		}
		if (st.Index == 1) != (st.Target != nil) {
			t.Errorf("EditedSteps step %d target %+v", st.Index, st.Target)
		}
	}

	for idx, want := range map[int]*action.Extras{0: x0, 1: x1} {
		got, err := s.StepExtras(ctx, ep, idx)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			t.Fatalf("step %d: no extras read back", idx)
		}
		if !bytes.Equal(got.AXTree, want.AXTree) || !reflect.DeepEqual(got.ElementProps, want.ElementProps) {
			t.Errorf("step %d: the tree or the element properties differ", idx)
		}
		want2 := *want
		got.AXTree, want2.AXTree = nil, nil
		if !reflect.DeepEqual(*got, want2) {
			t.Errorf("step %d extras:\n got %+v\nwant %+v", idx, *got, want2)
		}
	}
	if x, err := s.StepExtras(ctx, ep, 2); err != nil || x != nil {
		t.Errorf("step 2 (extras off): %+v, %v; want nil, nil", x, err)
	}
	if _, err := s.StepExtras(ctx, ep, 9); err == nil {
		t.Error("a step that does not exist has extras")
	}

	// In the file: NULL when off, gzip of the JSON (BrowserGym's key
	// names) when on.
	db := rawDB(t, s)
	var nullX, nullT bool
	if err := db.QueryRow(`SELECT extras IS NULL, target_json IS NULL FROM steps WHERE episode_id=? AND idx=2`, ep).Scan(&nullX, &nullT); err != nil {
		t.Fatal(err)
	}
	if !nullX || !nullT {
		t.Errorf("step 2: extras NULL %v, target_json NULL %v; want both NULL", nullX, nullT)
	}
	var blob []byte
	var tj string
	if err := db.QueryRow(`SELECT extras, target_json FROM steps WHERE episode_id=? AND idx=1`, ep).Scan(&blob, &tj); err != nil {
		t.Fatal(err)
	}
	if tj != `{"bid":"a51","tag":"button","role":"button","name":"Add to cart “now”","bbox":[300,170.25,120,36],"selector":"#buy \u003e\u003e\u003e button.primary"}` {
		t.Errorf("target_json: %s", tj)
	}
	js := gunzip(t, blob)
	for _, key := range []string{`"axtree_object":{"nodes":[`, `"axtree_txt":"RootWebArea 'Shop', focused\n\t[a51] button 'Add to cart' (step 1)"`,
		`"extra_element_properties":{"a51":{"visibility":1,"bbox":[10,20.5,120,36],"clickable":true,"set_of_marks":true},"a52":{"visibility":0.25,"bbox":null,"clickable":false,"set_of_marks":false}}`,
		`"focused_element_bid":"a12"`, `"open_pages_urls":["http://shop.test/","http://shop.test/cart"]`, `"active_page_index":1`,
		`"last_action":"mouse_click(312, 188)"`, `"elapsed_time":1.5`} {
		if !strings.Contains(js, key) {
			t.Errorf("stored extras lack %s", key)
		}
	}
}

func rawDB(t *testing.T, s *Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+s.Path()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("stored extras are not gzip: %v", err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// A realistic tree is stored at a fraction of its JSON size.
func TestGroundingExtrasCompressed(t *testing.T) {
	s, g, rec := groundedRecorder(t)
	x := extrasFor(0, 2000)
	raw, _ := json.Marshal(x)
	g.extras = []*action.Extras{x}
	if _, err := rec.Reset(context.Background(), engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rawDB(t, s).QueryRow(`SELECT length(extras) FROM steps WHERE episode_id=? AND idx=0`, rec.EpisodeID()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	t.Logf("extras of a %d-node tree: %d bytes of JSON stored in %d bytes (%.1f×)", 2000, len(raw), n, float64(len(raw))/float64(n))
	if len(raw) < 400_000 || n > len(raw)/5 {
		t.Errorf("%d bytes of JSON stored in %d bytes; want at most a fifth", len(raw), n)
	}
}

// Text typed into a password field does not reach the stored extras
// through last_action; the caller's observation keeps what the engine said.
func TestGroundingRedactedLastAction(t *testing.T) {
	s, g, rec := groundedRecorder(t)
	ctx := context.Background()
	x := extrasFor(1, 3)
	x.LastAction = `keyboard_type("hunter2")`
	g.extras = []*action.Extras{nil, x}
	g.secret = true
	if _, err := rec.Reset(ctx, engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Step(ctx, action.TypeText("hunter2")); err != nil {
		t.Fatal(err)
	}
	if x.LastAction != `keyboard_type("hunter2")` {
		t.Errorf("the engine's extras were changed: %s", x.LastAction)
	}
	got, err := s.StepExtras(ctx, rec.EpisodeID(), 1)
	if err != nil || got == nil {
		t.Fatal(got, err)
	}
	if got.LastAction != `keyboard_type("[redacted]")` {
		t.Errorf("stored last_action %q", got.LastAction)
	}
	var blob []byte
	if err := rawDB(t, s).QueryRow(`SELECT extras FROM steps WHERE episode_id=? AND idx=1`, rec.EpisodeID()).Scan(&blob); err != nil {
		t.Fatal(err)
	}
	if js := gunzip(t, blob); strings.Contains(js, "hunter2") {
		t.Error("the secret is in the stored extras")
	}
}

// Damaged extras are reported with the step; the step list still reads,
// and a target that does not parse reads as none.
func TestGroundingDamaged(t *testing.T) {
	s, g, rec := groundedRecorder(t)
	g.extras = []*action.Extras{extrasFor(0, 3)}
	if _, err := rec.Reset(context.Background(), engine.ResetOptions{}); err != nil {
		t.Fatal(err)
	}
	ep := rec.EpisodeID()
	if _, err := rawDB(t, s).Exec(`UPDATE steps SET extras=?, target_json='{"bid":' WHERE episode_id=? AND idx=0`, []byte("not gzip"), ep); err != nil {
		t.Fatal(err)
	}
	_, err := s.StepExtras(t.Context(), ep, 0)
	if err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "step 0") {
		t.Errorf("damaged extras: %v", err)
	}
	steps, err := s.Steps(t.Context(), ep)
	if err != nil || len(steps) != 1 || steps[0].Target != nil {
		t.Errorf("steps with a damaged target: %+v, %v", steps, err)
	}
}
