package hfexport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"waymark/dataset"
	"waymark/engine/action"
)

// The export contract, pinned from outside the code: the features of each
// config (every column's type and every ClassLabel's names in order) are the
// hand-written testdata/features_*.json, and the class indices are decoded
// with literal name lists — never with the lists the writer used.

// literal ClassLabel names, in their published order.
var (
	wantCategories = []string{"information", "navigation", "interaction"}
	wantOutcomes   = []string{"success", "failure", "not_executable", "invalid_task"}
)

func goldenFeatures(t *testing.T, cfg string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/features_" + cfg + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return canonJSON(t, string(b))
}

func exportStandard(t *testing.T) (string, *fixture) {
	t.Helper()
	f := standard(t)
	out := filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))
	return out, f
}

func parquetFiles(t *testing.T, dir, cfg string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, cfg, "*.parquet"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no %s files in %s", cfg, dir)
	}
	return files
}

func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, _ := fh.Stat()
	f, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// Every Parquet file's `huggingface` metadata and the card's dataset_info
// declare exactly the golden features.
func TestContractFeatures(t *testing.T) {
	out, _ := exportStandard(t)
	c := readCard(t, out)
	for _, cfg := range []string{"steps", "episodes"} {
		want := goldenFeatures(t, cfg)
		if got := c.features[cfg]; got != want {
			t.Errorf("card %s features:\n got %s\nwant %s", cfg, got, want)
		}
		for _, p := range parquetFiles(t, out, cfg) {
			fc := checkParquet(t, p, map[string]string{"steps": "screenshot", "episodes": "final_screenshot"}[cfg])
			if fc.features != want {
				t.Errorf("%s features:\n got %s\nwant %s", p, fc.features, want)
			}
		}
	}
	// The card's YAML spells the class labels as datasets writes them.
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	outcomeYAML := "  - name: outcome\n    dtype:\n      class_label:\n        names:\n" +
		"          '0': success\n          '1': failure\n          '2': not_executable\n          '3': invalid_task\n"
	categoryYAML := "  - name: category\n    dtype:\n      class_label:\n        names:\n" +
		"          '0': information\n          '1': navigation\n          '2': interaction\n"
	// A list of strings in datasets' YAML form.
	flagsYAML := "  - name: review_flags\n    list: string\n"
	// The edited episode's columns (#13, #14), literally.
	editYAML := []string{
		"  - name: step_index\n    dtype: int64\n  - name: recorded_step\n    dtype: int64\n",
		"  - name: review_flags\n    list: string\n  - name: note\n    dtype: string\n",
		"  - name: edited\n    dtype: bool\n  - name: num_edits\n    dtype: int64\n" +
			"  - name: removed_steps\n    list: int64\n  - name: resumed_at\n    list: int64\n" +
			"  - name: parent_episode_id\n    dtype: string\n  - name: branch_step\n    dtype: int64\n" +
			"  - name: reference_time\n    dtype: string\n  - name: timezone\n    dtype: string\n  - name: locale\n    dtype: string\n",
		"    - name: step_index\n      dtype: int64\n    - name: recorded_step\n      dtype: int64\n    - name: op\n",
	}
	for _, s := range append([]string{outcomeYAML, categoryYAML, flagsYAML}, editYAML...) {
		if !strings.Contains(string(b), s) {
			t.Errorf("card lacks\n%s", s)
		}
	}
}

// The stored class indices mean what the literal names say: each episode's
// outcome is the one its reviewers gave (written in the fixture's words).
func TestContractClassIndices(t *testing.T) {
	out, f := exportStandard(t)
	// The review outcomes as stored, by episode (settled or agreeing).
	want := map[string]string{"ep-04-c": "failure", "ep-07-c": "success"}
	for i := 0; i < 10; i++ {
		want[fmt.Sprintf("ep-%02d-a", i)] = []string{"success", "failure", "not_executable", "invalid_task"}[i%4]
		if i%2 == 0 {
			want[fmt.Sprintf("ep-%02d-b", i)] = "success"
		}
	}
	var stored []string
	rows, err := f.db.Query(`SELECT DISTINCT outcome FROM reviews ORDER BY outcome`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o string
		rows.Scan(&o)
		stored = append(stored, o)
	}
	rows.Close()
	if strings.Join(stored, ",") != "failure,invalid_task,not_executable,success" {
		t.Fatalf("the fixture stores outcomes %v", stored)
	}
	taskCategory := map[string]string{}
	for i := 0; i < 10; i++ {
		taskCategory[fmt.Sprintf("task-%02d", i)] = wantCategories[i%3]
	}
	seen := 0
	for _, p := range parquetFiles(t, out, "episodes") {
		for _, r := range readRows[episodeRow](t, p) {
			id := *r.EpisodeID
			if r.Outcome == nil || *r.Outcome < 0 || int(*r.Outcome) >= len(wantOutcomes) || wantOutcomes[*r.Outcome] != want[id] {
				t.Errorf("%s: outcome index %v, want %q", id, r.Outcome, want[id])
			}
			if r.Category == nil || *r.Category < 0 || int(*r.Category) >= 3 || wantCategories[*r.Category] != taskCategory[*r.TaskID] {
				t.Errorf("%s: category index %v, want %q", id, r.Category, taskCategory[*r.TaskID])
			}
			seen++
		}
	}
	for _, p := range parquetFiles(t, out, "steps") {
		for _, r := range readRows[stepRow](t, p) {
			if r.Category == nil || wantCategories[*r.Category] != taskCategory[*r.TaskID] {
				t.Errorf("step of %s: category index %v", *r.EpisodeID, r.Category)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d episode rows, want %d", seen, len(want))
	}
	// The store's own lists are the published ones too.
	if strings.Join(asStrings(dataset.Outcomes), ",") != strings.Join(wantOutcomes, ",") || strings.Join(dataset.Categories, ",") != strings.Join(wantCategories, ",") {
		t.Errorf("store lists %v %v", dataset.Outcomes, dataset.Categories)
	}
}

// Image bytes carry no statistics: neither in the column chunk nor in any
// page header (min/max of a PNG are useless and cost tens of KB per page);
// the other columns keep their page statistics.
func TestContractNoImagePageStatistics(t *testing.T) {
	out, _ := exportStandard(t)
	for cfg, img := range map[string]string{"steps": "screenshot.bytes", "episodes": "final_screenshot.bytes"} {
		for _, p := range parquetFiles(t, out, cfg) {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f := openParquet(t, p)
			imagePages, otherWithStats := 0, 0
			for _, rg := range f.Metadata().RowGroups {
				for _, c := range rg.Columns {
					path := strings.Join(c.MetaData.PathInSchema, ".")
					for _, h := range pageHeaders(t, raw, c.MetaData) {
						st := pageStats(h)
						if st == nil {
							continue
						}
						has := len(st.Min)+len(st.Max)+len(st.MinValue)+len(st.MaxValue) > 0
						if path == img {
							imagePages++
							if has {
								t.Errorf("%s: an image page of %s carries statistics (%d-byte max)", p, path, max(len(st.Max), len(st.MaxValue)))
							}
						} else if has {
							otherWithStats++
						}
					}
					if path == img {
						s := c.MetaData.Statistics
						if len(s.Min)+len(s.Max)+len(s.MinValue)+len(s.MaxValue) > 0 {
							t.Errorf("%s: the %s column chunk carries min/max statistics", p, path)
						}
					}
				}
			}
			if imagePages == 0 || otherWithStats == 0 {
				t.Errorf("%s: %d image data pages, %d other pages with statistics", p, imagePages, otherWithStats)
			}
		}
	}
}

// pageHeaders decodes the page headers of one column chunk.
func pageHeaders(t *testing.T, file []byte, md format.ColumnMetaData) []format.PageHeader {
	t.Helper()
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	end := start + md.TotalCompressedSize
	var hs []format.PageHeader
	for off := start; off < end; {
		rd := bytes.NewReader(file[off:end])
		var h format.PageHeader
		if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(rd)).Decode(&h); err != nil {
			t.Fatalf("page header at %d: %v", off, err)
		}
		used := int64(len(file[off:end]) - rd.Len())
		hs = append(hs, h)
		off += used + int64(h.CompressedPageSize)
	}
	return hs
}

func pageStats(h format.PageHeader) *format.Statistics {
	switch {
	case h.DataPageHeader.Valid:
		return &h.DataPageHeader.V.Statistics
	case h.DataPageHeaderV2.Valid:
		return &h.DataPageHeaderV2.V.Statistics
	}
	return nil
}

// The BrowserGym form of every action and every key name (Playwright's key
// names), written out.
func TestContractBrowserGymVocabulary(t *testing.T) {
	keys := map[string]string{
		"ENTER": "Enter", "TAB": "Tab", "ESCAPE": "Escape", "BACKSPACE": "Backspace", "CTRL+A": "ControlOrMeta+a",
		"UP": "ArrowUp", "DOWN": "ArrowDown", "LEFT": "ArrowLeft", "RIGHT": "ArrowRight",
		"PAGE_UP": "PageUp", "PAGE_DOWN": "PageDown", "HOME": "Home", "END": "End", "DELETE": "Delete",
		"SPACE": "Space", "SHIFT+TAB": "Shift+Tab",
		"F5": "F5", // not a Waymark key: passed through
	}
	for k, want := range keys {
		if got := BrowserGymAction(action.PressKey(k)); got != `keyboard_press("`+want+`")` {
			t.Errorf("key %s: %s", k, got)
		}
	}
	i := action.Int
	for _, c := range []struct {
		a    action.Action
		want string
	}{
		{action.ClickAt(0, 0), "mouse_click(0, 0)"},
		{action.ClickAt(799, 599), "mouse_click(799, 599)"},
		{action.Action{Op: action.Click, X: i(1)}, ""},
		{action.Action{Op: action.Move, X: i(5), Y: i(6)}, "mouse_move(5, 6)"},
		{action.Action{Op: action.Move, Y: i(6)}, ""},
		{action.Action{Op: action.DoubleClick, X: i(7)}, ""},
		{action.Action{Op: action.Drag, X: i(1), Y: i(2), X2: i(3)}, ""},
		{action.Action{Op: action.Drag, X2: i(3), Y2: i(4)}, ""},
		{action.ScrollBy(0), "scroll(0, 0)"},
		{action.ScrollBy(1200), "scroll(0, 1200)"},
		{action.TypeText("a\\b\n\u00e9<>&"), `keyboard_type("a\\b\né<>&")`},
		{action.FinishWith(""), `send_msg_to_user("")`},
		{action.Action{Op: action.Goto, URL: ""}, `goto("")`},
	} {
		if got := BrowserGymAction(c.a); got != c.want {
			t.Errorf("%v: got %s, want %s", c.a, got, c.want)
		}
	}
}

// Card YAML scalars: plain where YAML reads them back as the same string,
// else double-quoted. Each edge of the plain character set is tried.
func TestContractYAMLScalar(t *testing.T) {
	plain := []string{"a", "z", "A", "Z", "x0", "x9", "a_b", "a-b", "a.b", "a/b", "a b", "success", "not_executable", "n1", "Yes2", "_x", "/x", "ab-"}
	for _, s := range plain {
		if got := yamlScalar(s); got != s {
			t.Errorf("yamlScalar(%q) = %s, want it plain", s, got)
		}
	}
	quoted := []string{"", "`", "{", "@", "[", "0", "9", "0a", "x:", "x:y", "x#", "a`", "a{", "a@", "a[", "a:", "a\"b", "é",
		" a", "a ", "-a", ".a", "true", "False", "YES", "no", "On", "off", "null", "~", "y", "N"}
	for _, s := range quoted {
		want := jsonString(s)
		if got := yamlScalar(s); got != want || got == s {
			t.Errorf("yamlScalar(%q) = %s, want %s", s, got, want)
		}
	}
}

// A task's split is a pure function of its id: the first 53 bits of
// SHA-256("waymark-split\x00" + id) as a fraction of 2^53, below the test
// fraction → test. The fractions here were computed with Python's hashlib.
func TestContractSplitOfTask(t *testing.T) {
	for id, frac := range map[string]float64{
		"task-00": 0.7670445650141868, "task-01": 0.657435369779084, "task-02": 0.5222358623890938,
		"task-03": 0.7947093161396527, "task-04": 0.3993518287047628, "shop-1": 0.717711320351559,
		"wiki-7": 0.6246963621571019, "a": 0.3080463109850454, "": 0.20618457310891658,
	} {
		for _, f := range []float64{0, frac - 1e-9, frac, frac + 1e-9, 1} {
			want := "train"
			if frac < f {
				want = "test"
			}
			if got := splitOf(id, f); got != want {
				t.Errorf("splitOf(%q, %v) = %s, want %s (its fraction is %v)", id, f, got, want, frac)
			}
		}
	}
}

// Export options: the test fraction's and the licence id's edges.
func TestContractOptionEdges(t *testing.T) {
	base := func() Options {
		return Options{Out: "/tmp/x", License: "cc-by-4.0", TestFraction: 0.1}
	}
	for _, f := range []float64{0, 1e-9, 0.5, 1 - 1e-9, 1} {
		o := base()
		o.TestFraction = f
		if err := o.validate(); err != nil {
			t.Errorf("test fraction %v refused: %v", f, err)
		}
	}
	nan := 0.0
	nan = nan / nan
	for _, f := range []float64{-1e-9, -1, 1 + 1e-9, 2, nan} {
		o := base()
		o.TestFraction = f
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), "is not between 0 and 1") {
			t.Errorf("test fraction %v: %v", f, err)
		}
	}
	for _, l := range []string{"cc-by-4.0", "mit", "other", "apache-2.0", "cc0-1.0", "odc-by", "llama3.1"} {
		o := base()
		o.License = l
		if err := o.validate(); err != nil {
			t.Errorf("licence %q refused: %v", l, err)
		}
	}
	for _, l := range []string{"`", "{", "/", ":", "A", "Z", "MIT", "cc_by", "cc by", "a+b", "é", "a", "z", "0", "9", "a-b", "a.b"} {
		o := base()
		o.License = l
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), "is not a Hugging Face licence id") {
			t.Errorf("licence %q: %v", l, err)
		}
	}
	o := base()
	o.License = ""
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "choose a licence") {
		t.Errorf("no licence: %v", err)
	}
	o = base()
	o.Out = " "
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "choose an output folder") {
		t.Errorf("no output: %v", err)
	}
	o = base()
	o.Categories, o.Outcomes = []string{"information", "interaction"}, []string{"success", "invalid_task"}
	if err := o.validate(); err != nil {
		t.Errorf("known names refused: %v", err)
	}
	o.Outcomes = []string{"succes"}
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), `unknown outcome "succes" (choose from success, failure, not_executable, invalid_task)`) {
		t.Errorf("unknown outcome: %v", err)
	}
	o.Outcomes, o.Categories = nil, []string{"nav"}
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), `unknown category "nav" (choose from information, navigation, interaction)`) {
		t.Errorf("unknown category: %v", err)
	}
}

// The episodes chosen come train first, then test, each by id; when none
// matches, the message counts what the store has and names the filters.
func TestContractSelectionAndExplanation(t *testing.T) {
	f := standard(t)
	ctx := context.Background()
	o := opts(t.TempDir())
	eps, err := selectEpisodes(ctx, f.store, &o)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range eps {
		order = append(order, e.split+":"+e.ID)
	}
	sorted := slices.Clone(order)
	slices.SortFunc(sorted, func(a, b string) int {
		// "train:" before "test:", then by id
		if a[:5] != b[:5] {
			return -strings.Compare(a[:5], b[:5])
		}
		return strings.Compare(a, b)
	})
	if len(order) != 17 || !slices.Equal(order, sorted) || !strings.HasPrefix(order[0], "train:") || !strings.HasPrefix(order[len(order)-1], "test:") {
		t.Errorf("selection order %v", order)
	}
	// The standard store: 18 finished episodes (10 "a", 5 "b", 3 "c"), 16
	// with an outcome (ep-04-c settled), 1 in conflict (ep-03-c; ep-05-c was
	// never reviewed), 2 interrupted (ep-07-c labelled, ep-08-c not).
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "the store has 18 finished episodes, 16 with an outcome and 1 whose reviews disagree, and 2 interrupted episodes, 1 with an outcome (interrupted episodes without one are never exported); review episodes first, or include unreviewed ones (--include-unreviewed)"},
		{Options{IncludeUnreviewed: true, Categories: []string{"navigation"}}, "the store has 18 finished episodes, 16 with an outcome and 1 whose reviews disagree, and 2 interrupted episodes, 1 with an outcome (interrupted episodes without one are never exported); none of them matches category navigation; loosen the filters"},
		{Options{IncludeUnreviewed: true, Outcomes: []string{"success", "failure"}, Annotators: []string{"x"}}, "the store has 18 finished episodes, 16 with an outcome and 1 whose reviews disagree, and 2 interrupted episodes, 1 with an outcome (interrupted episodes without one are never exported); none of them matches outcome success/failure, annotator x; loosen the filters"},
		{Options{IncludeUnreviewed: true}, "the store has 18 finished episodes, 16 with an outcome and 1 whose reviews disagree, and 2 interrupted episodes, 1 with an outcome (interrupted episodes without one are never exported)"},
	} {
		if got := f.store.NoneLabeled(ctx, c.o.labelFilter()); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.o, got, c.want)
		}
	}
	empty := newFixture(t, nil)
	if got := empty.store.NoneLabeled(ctx, (&Options{}).labelFilter()); got != "the store has 0 finished episodes, 0 with an outcome; record and finish some episodes first" {
		t.Errorf("empty store: %s", got)
	}
}
