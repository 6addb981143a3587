package replay_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"waymark/assets/practice"
	"waymark/engine"
	"waymark/engine/redact"
)

// BenchmarkRedactionCost is what redaction at capture costs: every practice
// task's solution is recorded (headless) without a policy and with the
// default one, interleaved task by task, and the steps' times compared
// (median and 90th percentile of each, and of the differences step by
// step: the same step of the same task, a few seconds apart); it counts the boxes per step and the steps with any, and
// prints them by task and reason, so each can be checked against what the
// page shows. It measures once, whatever b.N (make bench runs it with
// -benchtime 1x).
func BenchmarkRedactionCost(b *testing.B) {
	sites, err := practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer sites.Close()
	set := engine.DefaultSettings()
	set.MaxSteps = 50
	set.ExplicitWait = toastGone
	st, tasks := practiceStore(b, filepath.Join(b.TempDir(), "redact.db"))
	off := practiceEngine(b, engine.DisplayHeadless, set, sites)
	set.Redact = redact.Default()
	on := practiceEngine(b, engine.DisplayHeadless, set, sites)
	b.ResetTimer()
	q := func(ds []time.Duration, f float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(f*float64(len(s))))]
	}
	var offT, onT []time.Duration
	boxes, steps, withBoxes := 0, 0, 0
	var diffs []time.Duration
	why := map[string]map[string]int{} // task: reason: boxes
	for _, p := range practice.Tasks() {
		sol := practiceSolutions[p.Key]
		var offN int
		for _, eng := range []engine.Engine{off, on} {
			tp := &tap{Engine: eng}
			id := recordSolution(b, st, tp, tasks[p.Key], sol)
			if eng == off {
				offT = append(offT, tp.steps...)
				offN = len(tp.steps)
				continue
			}
			onT = append(onT, tp.steps...)
			// The same step of the same task, without and with the policy.
			for i, d := range tp.steps[:min(len(tp.steps), offN)] {
				diffs = append(diffs, d-offT[len(offT)-offN+i])
			}
			ss, err := st.Steps(context.Background(), id)
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range ss {
				steps++
				boxes += len(s.Redaction)
				if len(s.Redaction) > 0 {
					withBoxes++
				}
				for _, r := range s.Redaction {
					if why[p.Key] == nil {
						why[p.Key] = map[string]int{}
					}
					why[p.Key][r.Why]++
				}
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	added := ms(q(onT, 0.5)) - ms(q(offT, 0.5))
	fmt.Printf("redaction at capture on the practice pack (%d tasks, headless, %d steps each way):\n"+
		"  step without a policy: median %.1f ms, p90 %.1f ms\n  step with the default policy: median %.1f ms, p90 %.1f ms\n"+
		"  added: %.1f ms at the median (%.1f%% of the step)\n  boxes: %d over %d observations (%.2f a step; %d observations with any)\n",
		len(practice.Tasks()), len(offT), ms(q(offT, 0.5)), ms(q(offT, 0.9)), ms(q(onT, 0.5)), ms(q(onT, 0.9)),
		added, 100*added/ms(q(offT, 0.5)), boxes, steps, float64(boxes)/float64(max(1, steps)), withBoxes)
	fmt.Printf("  added, step by step (the same step of the same task): median %.1f ms, p90 %.1f ms over %d pairs\n",
		ms(q(diffs, 0.5)), ms(q(diffs, 0.9)), len(diffs))
	for _, k := range slices.Sorted(maps.Keys(why)) {
		fmt.Printf("  boxes in %s:", k)
		for _, r := range slices.Sorted(maps.Keys(why[k])) {
			fmt.Printf(" %s ×%d;", r, why[k][r])
		}
		fmt.Println()
	}
	b.ReportMetric(added, "ms-added-p50")
	b.ReportMetric(ms(q(diffs, 0.5)), "ms-added-paired-p50")
	b.ReportMetric(100*added/ms(q(offT, 0.5)), "%-of-step")
	b.ReportMetric(float64(boxes)/float64(max(1, steps)), "boxes/step")
}
