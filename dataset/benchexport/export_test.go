package benchexport

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"waymark/dataset"
)

// export writes the golden store in format f and returns the folder.
func (g *golden) export(t *testing.T, f Format) (string, Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	res, err := Export(t.Context(), g.store, Options{Format: f, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, res
}

// readBack runs one of testdata's readers on an export and decodes what it
// prints.
func readBack(t *testing.T, script, dir string, into any) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the independent readers are Python (apt-get install python3)")
	}
	cmd := exec.Command(py, filepath.Join("testdata", script), dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s refused the export: %v\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s printed %s: %v", script, b, err)
	}
}

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("%s = %s, want %s", what, gj, wj)
	}
}

// The AgentRewardBench export read back as AgentRewardBench reads it: one
// annotation row per reviewer, the one agreeing with the settled label
// first; every trajectory found where its judge looks, with the actions
// BrowserGym-written on the page they were chosen on, the failed action's
// error on the page after it, the accessibility tree where grounding was
// on, and the automatic check's reward as the cumulative reward.
func TestExportAgentRewardBench(t *testing.T) {
	g := newGolden(t)
	dir, res := g.export(t, AgentRewardBench)
	if res.Episodes != 3 || res.Settled != 3 || res.Labels != 5 {
		t.Errorf("result %+v: want 3 episodes, 3 settled, 5 reviewer labels", res)
	}
	var got struct {
		Annotations  []map[string]any
		Trajectories map[string]struct {
			Agent, Model, Goal string
			Seed               *float64
			CumReward          float64 `json:"cum_reward"`
			NSteps             int     `json:"n_steps"`
			Steps              []map[string]any
		}
		Splits map[string]string
	}
	readBack(t, "arb_reader.py", dir, &got)
	buy, again, look := "waymark."+g.buy, "waymark."+g.again, "waymark."+g.look
	ann := map[string][]string{} // task id → "annotator:type:success:side:opt:loop"
	for _, a := range got.Annotations {
		ann[a["task_id"].(string)] = append(ann[a["task_id"].(string)], fmt.Sprintf("%s:%s:%v:%v:%v:%v", a["annotator"], a["type"],
			a["trajectory_success"], a["trajectory_side_effect"], a["trajectory_optimality"], a["trajectory_looping"]))
	}
	eq(t, "annotations of buy", ann[buy], []string{"rita:primary:0:1:2:0", "sam:secondary:1:0:3:0"})
	eq(t, "annotations of again", ann[again], []string{"rita:primary:0:<nil>:<nil>:<nil>"})
	eq(t, "annotations of look", ann[look], []string{"rita:primary:1:0:4:<nil>", "sam:secondary:1:<nil>:4:<nil>"})
	if v := got.Annotations[0]["guidelines_version"]; v != "2" {
		t.Errorf("rita's label names guidelines version %v, want 2 (saved after the edit)", v)
	}
	if v := got.Annotations[1]["guidelines_version"]; v != "1" {
		t.Errorf("sam's label names guidelines version %v, want 1 (the default text in force then)", v)
	}
	eq(t, "splits", got.Splits, map[string]string{buy: "test", again: "test", look: "test"})

	tr := got.Trajectories[buy]
	if tr.Agent != "agent_gpt-4o" || tr.Model != "agent:gpt-4o" || tr.Goal != "Buy the cheapest red shoes under $50\n" || tr.Seed == nil || *tr.Seed != 7 || tr.CumReward != 1 || tr.NSteps != 3 {
		t.Errorf("trajectory of buy: %+v", tr)
	}
	if len(tr.Steps) != 4 {
		t.Fatalf("buy has %d steps, want 4 (the start page and three actions' pages)", len(tr.Steps))
	}
	eq(t, "buy's actions", []any{tr.Steps[0]["action"], tr.Steps[1]["action"], tr.Steps[2]["action"], tr.Steps[3]["action"]},
		[]any{"mouse_click(100, 200)", `keyboard_type("red shoes")`, `send_msg_to_user("done")`, nil})
	eq(t, "buy's reasoning", tr.Steps[0]["reasoning"], "Sort by price first")
	eq(t, "buy's errors", []any{tr.Steps[2]["last_action_error"], tr.Steps[3]["last_action_error"]}, []any{"the focused element does not take text", ""})
	eq(t, "buy's tree on step 1", tr.Steps[1]["axtree_pruned"], "RootWebArea 'Shoes'\n\t[12] button 'Sort by price'")
	eq(t, "buy's focus on step 1", tr.Steps[1]["focused_element"], "12")
	eq(t, "buy's tree on step 0 (not grounded)", tr.Steps[0]["axtree"], nil)
	eq(t, "buy's last screenshot", tr.Steps[3]["screenshot_path"], "trajectories/screenshots/waymark/agent_gpt-4o/"+buy+"/screenshot_step_3.png")
	if got.Trajectories[look].CumReward != 0 {
		t.Errorf("look has no automatic check, yet its cumulative reward is %v", got.Trajectories[look].CumReward)
	}

	// The settled labels beside them, one row per episode.
	b, _ := os.ReadFile(filepath.Join(dir, "annotations_settled.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "lead,waymark,"+buy+",agent_gpt-4o,agent_gpt-4o_on_waymark,Unsuccessful,Yes,2. Suboptimal,No,settled,") ||
		!strings.HasPrefix(lines[3], "agreement,waymark,"+look+",alice,alice_on_waymark,Successful,No,4. Completely Optimal,Unsure,settled,") {
		t.Errorf("annotations_settled.csv:\n%s", b)
	}
	// No label goes into what a judge reads.
	tb, _ := os.ReadFile(filepath.Join(dir, "trajectories/cleaned/waymark/agent_gpt-4o/agent_gpt-4o_on_waymark", buy+".json"))
	for _, w := range []string{"rita", "typed into a button", "Unsuccessful"} {
		if strings.Contains(string(tb), w) {
			t.Errorf("the trajectory a judge reads contains the label's %q", w)
		}
	}
}

// The Online-Mind2Web export read back as its auto-evaluation reads it: a
// folder per episode named by its id, the start page then every action
// with its screenshot, the failed action marked FAILED, the last step the
// agent's answer; the task's key points; the settled labels as 0/1/2 (not
// executable is 2) beside the trajectories, with each reviewer's key
// screenshots.
func TestExportOnlineMind2Web(t *testing.T) {
	g := newGolden(t)
	dir, res := g.export(t, OnlineMind2Web)
	if res.KeyPoints != 2 {
		t.Errorf("%d episodes carry key points, want 2 (the shoes task's)", res.KeyPoints)
	}
	var got struct {
		Tasks map[string]struct {
			Agent, Task     string
			Final           *string
			Actions         []string
			Thoughts        []*string
			Screenshots     []string
			KeyPoints       *string `json:"key_points"`
			ReferenceLength *int    `json:"reference_length"`
		}
		HumanLabel map[string]int `json:"human_label"`
	}
	readBack(t, "om2w_reader.py", dir, &got)
	buy := got.Tasks[g.buy]
	eq(t, "buy's agent", buy.Agent, "agent_gpt-4o")
	eq(t, "buy's actions", buy.Actions, []string{"page -> NAVIGATE: http://127.0.0.1:7770/shoes", "[button] Sort by price -> CLICK | SUCCESS", "TYPE: red shoes | FAILED"})
	eq(t, "buy's screenshots", buy.Screenshots, []string{"0000.png", "0001.png", "0002.png", "0003.png"})
	if buy.Final == nil || *buy.Final != "done" || buy.Thoughts[1] == nil || *buy.Thoughts[1] != "Sort by price first" {
		t.Errorf("buy's answer %v, thoughts %v", buy.Final, buy.Thoughts)
	}
	if buy.KeyPoints == nil || *buy.KeyPoints != "1. Filter by price under $50\n2. Sort by lowest price\n3. Add to cart" {
		t.Errorf("buy's key points: %v", buy.KeyPoints)
	}
	again := got.Tasks[g.again]
	eq(t, "again's actions (interrupted: TASK_COMPLETE added)", again.Actions, []string{"page -> NAVIGATE: http://127.0.0.1:7770/shoes", "GO_BACK | SUCCESS"})
	eq(t, "again's screenshots", again.Screenshots, []string{"0000.png", "0001.png", "0001.png"})
	look := got.Tasks[g.look]
	if look.ReferenceLength == nil || *look.ReferenceLength != 2 {
		t.Errorf("look's reference length %v, want 2 (alice's success took 2 actions)", look.ReferenceLength)
	}
	if buy.ReferenceLength != nil {
		t.Errorf("buy's reference length %v: no person succeeded at the shoes task", *buy.ReferenceLength)
	}
	eq(t, "human labels", got.HumanLabel, map[string]int{g.buy: 0, g.again: 2, g.look: 1})

	// Each reviewer's own label with their key screenshots.
	f, err := os.Open(filepath.Join(dir, "human_labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m["task_id"] == g.buy {
			rows = append(rows, fmt.Sprintf("%v:%v:%v:%v", m["kind"], m["reviewer"], m["human_label"], m["key_screenshots"]))
		}
	}
	eq(t, "buy's labels", rows, []string{"reviewer:rita:0:[0001.png 0003.png]", "reviewer:sam:1:[0003.png]", "settled:lead:0:[0001.png]"})
	rb, _ := os.ReadFile(filepath.Join(dir, "agent_gpt-4o", g.buy, "result.json"))
	if strings.Contains(string(rb), "human_label") || strings.Contains(string(rb), "rita") {
		t.Errorf("result.json, which the judge reads, carries a label:\n%s", rb)
	}
}

// The WebArena-Verified export read back as its evaluator reads it: the
// first attempt at WebArena task 108 in the agent's folder as 108, the
// second in a run2 folder; the agent's response from the task's kind of
// work and how the episode ended; the episode's own traffic as network.har
// (none for an episode recorded without capture).
func TestExportWebArenaVerified(t *testing.T) {
	g := newGolden(t)
	dir, res := g.export(t, WebArenaVerified)
	eq(t, "episodes without traffic", res.NoTraffic, []string{g.again, g.look})
	var got map[string]struct {
		Evaluable     bool
		AgentResponse map[string]any `json:"agent_response"`
		Network       []map[string]any
	}
	readBack(t, "wav_reader.py", dir, &got)
	buy := got["agent_gpt-4o/108"]
	if !buy.Evaluable {
		t.Errorf("buy's folder is not a task number: %v", got)
	}
	eq(t, "buy's response", buy.AgentResponse, map[string]any{"task_type": "MUTATE", "status": "SUCCESS", "retrieved_data": nil, "error_details": nil, "action": "mutate", "results": nil})
	eq(t, "buy's traffic", buy.Network, []map[string]any{
		map[string]any{"method": "GET", "url": "http://127.0.0.1:7770/shoes?sort=price", "status": float64(200), "referer": "http://127.0.0.1:7770/shoes"},
		map[string]any{"method": "POST", "url": "http://127.0.0.1:7770/cart/add", "status": float64(200), "referer": "http://127.0.0.1:7770/shoes"},
	})
	again := got["agent_gpt-4o.run2/108"]
	eq(t, "again's status", again.AgentResponse["status"], "UNKNOWN_ERROR")
	if again.Network != nil {
		t.Errorf("again has traffic %v: it was recorded without capture", again.Network)
	}
	look := got["alice/"+g.look]
	eq(t, "look's response", look.AgentResponse, map[string]any{"task_type": "RETRIEVE", "status": "SUCCESS", "retrieved_data": []any{"9-17"}, "error_details": nil, "action": "retrieve", "results": []any{"9-17"}})
	if look.Evaluable {
		t.Errorf("look's folder is named as a WebArena task number")
	}
	validateHARFile(t, filepath.Join(dir, "agent_gpt-4o", "108", "network.har"))
	b, _ := os.ReadFile(filepath.Join(dir, "episodes.csv"))
	if !strings.Contains(string(b), g.again+",agent_gpt-4o.run2/108,"+g.shoes+",108,agent:gpt-4o,not_executable,0,false,agreement") {
		t.Errorf("episodes.csv:\n%s", b)
	}
}

// Every format carries labels.jsonl: each reviewer's own label with their
// name, time and the guidelines version in force, beside the settled label,
// and the text of each guidelines version named.
func TestExportRawLabels(t *testing.T) {
	g := newGolden(t)
	for _, f := range Formats {
		dir, _ := g.export(t, f)
		b, err := os.ReadFile(filepath.Join(dir, "labels.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var ls []Label
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var l Label
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		var buy []string
		for _, l := range ls {
			if l.EpisodeID == g.buy {
				opt := 0
				if l.Optimality != nil {
					opt = *l.Optimality
				}
				buy = append(buy, fmt.Sprintf("%s:%s:%v:%s:%s:%d:%v:v%d", l.Kind, l.Reviewer, l.Primary, l.Outcome, l.SideEffect, opt, l.KeySteps, l.GuidelinesVersion))
			}
			if l.Time == "" && l.SettledBy != "agreement" {
				t.Errorf("%s: label %+v has no time", f, l)
			}
		}
		eq(t, string(f)+": buy's labels", buy, []string{
			"reviewer:rita:true:failure:yes:2:[1 3]:v2", "reviewer:sam:false:success:no:3:[3]:v1", "settled:lead:false:failure:yes:2:[1]:v2"})
		for _, l := range ls {
			if l.EpisodeID == g.look && l.Kind == "settled" {
				opt := 0
				if l.Optimality != nil {
					opt = *l.Optimality
				}
				eq(t, string(f)+": look's settled label", fmt.Sprintf("%s:%s:%s:%d:%s", l.SettledBy, l.Outcome, l.SideEffect, opt, l.Looping), "agreement:success:no:4:")
			}
		}
		vs, _ := g.store.GuidelineVersions(t.Context())
		for _, v := range vs {
			text, err := os.ReadFile(filepath.Join(dir, "guidelines", fmt.Sprintf("v%d-%s.md", v.Version, v.ID[:12])))
			if err != nil || string(text) != v.Text {
				t.Errorf("%s: guidelines version %d: %v", f, v.Version, err)
			}
		}
	}
}

// The folder rules: a folder holding other files is refused, a previous
// export is replaced only with Force, every file is its owner's only, and
// filters that match nothing say what the store has.
func TestExportFolderRules(t *testing.T) {
	g := newGolden(t)
	ctx := t.Context()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Export(ctx, g.store, Options{Format: OnlineMind2Web, Out: out}, nil); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.IsDir() && fi.Mode().Perm() != 0o700 || !fi.IsDir() && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v: recorded data is its owner's only", p, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Export(ctx, g.store, Options{Format: AgentRewardBench, Out: out}, nil); !errors.Is(err, ErrOutputExists) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("export over a previous one without Force: %v", err)
	}
	res, err := Export(ctx, g.store, Options{Format: AgentRewardBench, Out: out, Force: true}, nil)
	if err != nil || !res.Replaced {
		t.Fatalf("Force: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(out, "human_label.json")); !os.IsNotExist(err) {
		t.Errorf("the replaced export's human_label.json is still there: %v", err)
	}
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o600)
	if _, err := Export(ctx, g.store, Options{Format: AgentRewardBench, Out: out, Force: true}, nil); !errors.Is(err, ErrOutputExists) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("Force over a folder with a file of someone's: %v", err)
	}
	_, err = Export(ctx, g.store, Options{Format: WebArenaVerified, Out: filepath.Join(t.TempDir(), "x"), Categories: []string{dataset.Navigation}}, nil)
	if !errors.Is(err, ErrNothingToExport) || !strings.Contains(err.Error(), "none of them matches category navigation") {
		t.Errorf("a filter that matches nothing: %v", err)
	}
	if _, err := ParseFormat("mind2web-v1"); err == nil || !strings.Contains(err.Error(), "choose agentrewardbench, online-mind2web or webarena-verified") {
		t.Errorf("ParseFormat of an unknown name: %v", err)
	}
	for _, s := range []string{"AgentRewardBench", "agent-reward-bench", "Online-Mind2Web", "om2w", "WebArena-Verified", "wav"} {
		if f, err := ParseFormat(s); err != nil || !slices.Contains(Formats, f) {
			t.Errorf("ParseFormat(%q) = %q, %v", s, f, err)
		}
	}
}

// What a crashed export of the same folder left (a hidden partial folder
// beside it) is removed by the next export; nothing else beside it is.
func TestExportRemovesACrashedExportsFolder(t *testing.T) {
	g := newGolden(t)
	parent := t.TempDir()
	crashed := filepath.Join(parent, ".out.waymark-partial-123")
	if err := os.MkdirAll(filepath.Join(crashed, "trajectories"), 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, ".other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(t.Context(), g.store, Options{Format: OnlineMind2Web, Out: filepath.Join(parent, "out")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(crashed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the crashed export's folder is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("an unrelated folder went away: %v", err)
	}
}
