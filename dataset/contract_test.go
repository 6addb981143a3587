package dataset

import (
	"math"
	"strings"
	"testing"
)

// A preview (or --dry-run) of a file whose tasks are already stored says
// nothing would be imported, and why — before any insert could hide it.
func TestContractPreviewOfStoredTasks(t *testing.T) {
	s := wmStore(t)
	const file = `{"instruction": "Open the returns policy", "website": "http://shop.waymark.test/", "type": "navigation"}
{"instruction": "Find the FAQ", "website": "http://shop.waymark.test/faq", "type": "navigation"}
`
	rep, err := s.PreviewImport(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Summary(); got != "would import 2 of 2 rows from tasks.jsonl (0 skipped, 0 duplicates)" {
		t.Fatalf("first preview: %s", got)
	}
	if n := wmCount(t, s); n != 0 {
		t.Fatalf("a preview stored %d tasks", n)
	}
	if _, err := s.ImportTasks(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// A goal stored with another start URL, or a start URL with another
	// goal, is a different task.
	if _, err := s.AddTask(t.Context(), Task{Goal: "Find the FAQ", Category: Navigation, StartURL: "http://shop.waymark.test/help"}); err != nil {
		t.Fatal(err)
	}
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Summary(); got != "would import 0 of 2 rows from tasks.jsonl (0 skipped, 2 duplicates)" {
		t.Errorf("preview of stored tasks: %s", got)
	}
	if len(rep.Tasks) != 0 || rep.Imported != 0 || len(rep.Duplicates) != 2 ||
		rep.Duplicates[0].Row != 1 || rep.Duplicates[0].Reason != "already stored" || rep.Duplicates[0].Goal != "Open the returns policy" ||
		rep.Duplicates[1].Row != 2 || rep.Duplicates[1].Reason != "already stored" || rep.ByCategory[Navigation] != 0 {
		t.Errorf("preview report %+v", rep)
	}
	// An archived task is reported as such.
	tasks, err := s.ListTasks(t.Context(), TaskFilter{Search: "returns"})
	if err != nil || len(tasks) != 1 {
		t.Fatalf("list: %v %v", tasks, err)
	}
	if err := s.ArchiveTask(t.Context(), tasks[0].ID, true); err != nil {
		t.Fatal(err)
	}
	rep, err = s.PreviewImport(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{})
	if err != nil || len(rep.Duplicates) != 2 || rep.Duplicates[0].Reason != "already stored (archived)" || rep.Duplicates[1].Reason != "already stored" {
		t.Errorf("preview with an archived task: %+v %v", rep.Duplicates, err)
	}
	// The import itself agrees with its preview.
	rep, err = s.ImportTasks(t.Context(), strings.NewReader(file), "tasks.jsonl", ImportOptions{})
	if err != nil || rep.Summary() != "imported 0 of 2 rows from tasks.jsonl (0 skipped, 2 duplicates)" {
		t.Errorf("second import: %s %v", rep.Summary(), err)
	}
	if n := wmCount(t, s); n != 3 {
		t.Errorf("%d tasks stored, want 3", n)
	}
}

// Fleiss' kappa and Cohen's kappa on small fixtures computed by hand.
func TestContractKappaByHand(t *testing.T) {
	// Three items, three raters: [a a a] [a a b] [b b b].
	// P_i = 1, (2·1)/(3·2) = 1/3, 1 → P̄ = 7/9. Labels: a 5, b 4 of 9 →
	// P_e = (25 + 16)/81 = 41/81. κ = (63/81 − 41/81)/(40/81) = 22/40.
	if k := FleissKappa([][]string{{"a", "a", "a"}, {"a", "a", "b"}, {"b", "b", "b"}}); math.Abs(k-0.55) > 1e-12 {
		t.Errorf("Fleiss = %v, want 0.55", k)
	}
	// Items with fewer than two labels are skipped; two raters split on
	// both items: P̄ = 0, P_e = 1/2, κ = −1.
	if k := FleissKappa([][]string{{"a"}, {"a", "b"}, {}, {"b", "a"}}); math.Abs(k+1) > 1e-12 {
		t.Errorf("Fleiss with skipped items = %v, want -1", k)
	}
	// Varying raters: [a a] [a b c] → P = 1, 0 → P̄ = 1/2; labels a 3, b 1,
	// c 1 of 5 → P_e = 11/25; κ = (1/2 − 11/25)/(14/25) = 3/28.
	if k := FleissKappa([][]string{{"a", "a"}, {"a", "b", "c"}}); math.Abs(k-3.0/28) > 1e-12 {
		t.Errorf("Fleiss with varying raters = %v, want 3/28", k)
	}
	for _, items := range [][][]string{nil, {{"a"}}, {{"a", "a"}, {"a", "a", "a"}}} {
		if k := FleissKappa(items); !math.IsNaN(k) {
			t.Errorf("Fleiss(%v) = %v, want NaN", items, k)
		}
	}
	// Cohen: a = [x x y y], b = [x y y y]: p_o = 3/4; p_e = (2/4)(1/4) +
	// (2/4)(3/4) = 1/2; κ = (3/4 − 1/2)/(1/2) = 1/2.
	if po, k := CohenKappa([]string{"x", "x", "y", "y"}, []string{"x", "y", "y", "y"}); math.Abs(po-0.75) > 1e-12 || math.Abs(k-0.5) > 1e-12 {
		t.Errorf("Cohen = %v, %v; want 0.75, 0.5", po, k)
	}
	// Unequal lengths use the shorter; no items is NaN, NaN.
	if po, k := CohenKappa([]string{"x", "y", "z"}, []string{"x", "y"}); po != 1 || math.Abs(k-1) > 1e-12 {
		t.Errorf("Cohen on the shorter list = %v, %v", po, k)
	}
	if po, k := CohenKappa(nil, []string{"x"}); !math.IsNaN(po) || !math.IsNaN(k) {
		t.Errorf("Cohen of nothing = %v, %v", po, k)
	}
	// Perfect agreement on one label: p_o 1, kappa undefined.
	if po, k := CohenKappa([]string{"x", "x"}, []string{"x", "x"}); po != 1 || !math.IsNaN(k) {
		t.Errorf("Cohen of one label = %v, %v", po, k)
	}
}

// ComputeAgreement on a small set of labels, every figure by hand.
func TestContractAgreementByHand(t *testing.T) {
	ag := ComputeAgreement([]map[string]string{
		{"zoe": "success", "amy": "success", "kim": "failure"},
		{"zoe": "failure", "amy": "success"},
		{"amy": "failure", "kim": "failure"},
		{"zoe": "success"}, // one label: skipped
		{},
	})
	if ag.Episodes != 3 || strings.Join(ag.Reviewers, ",") != "amy,kim,zoe" || len(ag.Pairs) != 3 {
		t.Fatalf("agreement %+v", ag)
	}
	// Pairs sorted by A then B. amy–kim: (s,f) (f,f): 1 of 2, p_e = ½·0 + ½·1 = ½, κ = 0.
	// amy–zoe: (s,s) (s,f): 1 of 2, p_e = 1·½ + 0 = ½, κ = 0.
	// kim–zoe: (f,s): 0 of 1, p_e = 0, κ = 0.
	want := []PairAgreement{{"amy", "kim", 2, 1, 0.5, 0}, {"amy", "zoe", 2, 1, 0.5, 0}, {"kim", "zoe", 1, 0, 0, 0}}
	for i, p := range ag.Pairs {
		w := want[i]
		if p.A != w.A || p.B != w.B || p.N != w.N || p.Agree != w.Agree || math.Abs(p.PercentAgreement-w.PercentAgreement) > 1e-12 || math.Abs(p.Kappa-w.Kappa) > 1e-12 {
			t.Errorf("pair %d = %+v, want %+v", i, p, w)
		}
	}
	if ag.Comparisons != 5 || math.Abs(ag.PercentAgreement-0.4) > 1e-12 || math.Abs(ag.Kappa) > 1e-12 {
		t.Errorf("overall %d comparisons, p_o %v, κ %v", ag.Comparisons, ag.PercentAgreement, ag.Kappa)
	}
	// Fleiss: [s s f] P=1/3, [f s] P=0, [f f] P=1 → P̄ = 4/9; labels s 3,
	// f 4 of 7 → P_e = 25/49; κ = (4/9 − 25/49)/(24/49) = (196 − 225)/(24·9) = −29/216.
	if math.Abs(ag.FleissKappa+29.0/216) > 1e-12 {
		t.Errorf("Fleiss %v, want -29/216", ag.FleissKappa)
	}
	// The pairs' kappas weighted by shared episodes: 0.6 (n 3) and undefined
	// (left out), so the mean is 0.6.
	ag = ComputeAgreement([]map[string]string{
		{"a": "x", "b": "x", "c": "y"}, {"a": "y", "b": "y", "c": "y"}, {"a": "x", "b": "y", "c": "y"},
		{"a": "x", "b": "x"}, {"a": "y", "b": "y"},
	})
	// a–b: (x,x)(y,y)(x,y)(x,x)(y,y): 4 of 5; a has x 3 y 2, b x 2 y 3 → p_e = 6/25+6/25 = 12/25;
	// κ = (20/25 − 12/25)/(13/25) = 8/13. a–c: (x,y)(y,y)(x,y): p_o 1/3, c all y → p_e = 1/3,
	// κ = 0. b–c: (x,y)(y,y)(y,y): p_o 2/3, p_e = 2/3, κ = 0. Weighted: (8/13·5)/(5+3+3) = 40/143.
	if math.Abs(ag.Kappa-40.0/143) > 1e-12 || ag.Comparisons != 11 || math.Abs(ag.PercentAgreement-7.0/11) > 1e-12 {
		t.Errorf("weighted κ %v (want 40/143), %d comparisons, p_o %v (want 7/11)", ag.Kappa, ag.Comparisons, ag.PercentAgreement)
	}
	empty := ComputeAgreement(nil)
	if empty.Episodes != 0 || !math.IsNaN(empty.PercentAgreement) || !math.IsNaN(empty.Kappa) || !math.IsNaN(empty.FleissKappa) {
		t.Errorf("no labels: %+v", empty)
	}
	// All kappas undefined: the overall kappa is too.
	if ag := ComputeAgreement([]map[string]string{{"a": "x", "b": "x"}}); !math.IsNaN(ag.Kappa) || ag.PercentAgreement != 1 {
		t.Errorf("one shared label: %+v", ag)
	}
	for v, want := range map[float64]string{0.4: "0.40", -0.126: "-0.13", 0.005: "0.01", 1: "1.00", math.NaN(): "n/a"} {
		if got := FormatFigure(v); got != want {
			t.Errorf("FormatFigure(%v) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{0.7: "70%", 55.0 / 70: "79%", 0: "0%", 1: "100%", math.NaN(): "n/a"} {
		if got := FormatPercent(v); got != want {
			t.Errorf("FormatPercent(%v) = %q, want %q", v, got, want)
		}
	}
}

// Without a known extension, the format comes from the content.
func TestContractFormatFromContent(t *testing.T) {
	s := wmStore(t)
	for _, c := range []struct{ name, data, format string }{
		{"tasks", `[{"goal":"G1","url":"http://a.test/","category":"info"}]`, "json"},
		{"tasks.txt", "  \n{\"goal\":\"G2\",\"url\":\"http://a.test/\",\"category\":\"info\"}\n", "json"},
		{"tasks", "\xef\xbb\xbf{\"goal\":\"G3\",\"url\":\"http://a.test/\",\"category\":\"info\"}", "json"},
		{"tasks", "goal\turl\tcategory\nG4\thttp://a.test/\tinfo\n", "tsv"},
		{"tasks", "goal,url,category\nG5,http://a.test/,info\n", "csv"},
		{"tasks", "goal,url,category,note\tx\nG6,http://a.test/,info,n\n", "csv"},
		{"tasks.TSV", "goal\turl\tcategory\nG7\thttp://a.test/\tinfo\n", "tsv"},
		{"tasks.tab", "goal\turl\tcategory\nG8\thttp://a.test/\tinfo\n", "tsv"},
		{"tasks.NDJSON", `{"goal":"G9","url":"http://a.test/","category":"info"}`, "jsonl"},
	} {
		rep, err := s.PreviewImport(t.Context(), strings.NewReader(c.data), c.name, ImportOptions{})
		if err != nil || rep.Format != c.format || rep.Imported != 1 {
			t.Errorf("%s %q: format %q, %v; want %s", c.name, c.data, rep.Format, err, c.format)
		}
	}
	for _, c := range []struct{ data, want string }{
		{"goal,url,category\nok,http://a.test/,info\nbad \xff here,http://a.test/,info\n", "first bad byte on line 3, column 5"},
		{"\xffgoal", "first bad byte on line 1, column 1"},
		{"goal,url\n\n\néé\xc3", "first bad byte on line 4, column 3"},
		{"\xfe\xffxx", "UTF-16"},
	} {
		_, err := s.PreviewImport(t.Context(), strings.NewReader(c.data), "t.csv", ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}
