package replay_test

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"waymark/assets/practice"
	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/dataset/storetest"
	"waymark/engine"
	"waymark/engine/browser"
)

// BenchmarkOfflineReplay is the hermetic-replay figure: every practice
// task's scripted solution is recorded once (headless, with its archive),
// every practice server is stopped, and each episode is replayed offline
// from its own traffic: steps matched (target 100 %), requests refused
// (target 0), replay time per step beside a live replay's (servers started
// again), the archive's size per episode (median, 90th percentile) and
// what storing each body once saves over the episodes of one site. It
// measures once, whatever b.N (make bench runs it with -benchtime 1x).
func BenchmarkOfflineReplay(b *testing.B) {
	set := engine.DefaultSettings()
	set.MaxSteps = 50
	set.ExplicitWait = toastGone
	set.HAR = true
	var keys []string
	for _, p := range practice.Tasks() {
		keys = append(keys, p.Key)
	}
	sites, err := practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	st, tasks := practiceStore(b, filepath.Join(b.TempDir(), "offline.db"))
	eng := practiceEngine(b, engine.DisplayHeadless, set, sites)
	ids := map[string]string{}
	for _, k := range keys {
		ids[k] = recordSolution(b, st, eng, tasks[k], practiceSolutions[k])
	}
	eng.Close()
	sites.Close() // every practice server stopped: offline means offline
	b.ResetTimer()

	ctx := context.Background()
	type run struct {
		steps, matched, served, refused, hermetic int
		stepTime                                  time.Duration
		stepCount                                 int
		notes                                     []string
	}
	replayAll := func(offline bool, eng engine.Engine) run {
		var r run
		for _, k := range keys {
			rec, err := replay.Load(ctx, st, ids[k])
			if err != nil {
				b.Fatal(err)
			}
			opts := replay.Options{Continue: true, PracticeHosts: practice.Hosts}
			if offline {
				if opts.Archive, err = st.EpisodeArchive(ctx, ids[k]); err != nil {
					b.Fatal(err)
				}
			}
			tp := &tap{Engine: eng}
			rep, err := replay.Run(ctx, tp, rec, opts)
			if err != nil {
				b.Fatalf("%s: %v", k, err)
			}
			r.steps += rep.Compared
			r.matched += rep.Matched
			for _, d := range tp.steps {
				r.stepTime += d
			}
			r.stepCount += len(tp.steps)
			if f := rep.Fidelity; f != nil {
				r.served += f.Served
				r.refused += f.Refused
				if f.Hermetic && rep.OK {
					r.hermetic++
				} else {
					r.notes = append(r.notes, k+": "+rep.Hermetic)
				}
			}
			for _, s := range rep.Steps {
				if s.Verdict != dataset.VerdictMatch {
					r.notes = append(r.notes, fmt.Sprintf("%s step %d: %s %s", k, s.Step, s.Verdict, s.Why))
				}
			}
		}
		return r
	}
	offSet := set
	offSet.Display = engine.DisplayHeadless
	offEng, err := browser.New(browser.Options{Settings: offSet}) // no host rules: nothing is looked up
	if err != nil {
		b.Fatal(err)
	}
	off := replayAll(true, offEng)
	offEng.Close()
	sites, err = practice.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer sites.Close()
	liveSet := set
	liveSet.HAR = false
	liveEng := practiceEngine(b, engine.DisplayHeadless, liveSet, sites)
	live := replayAll(false, liveEng)
	liveEng.Close()

	// Sizes, and what one copy per body saves over each site's episodes.
	var stored []int64
	perSite := map[string][2]int64{} // host → bytes as if each episode kept its own bodies, bytes of the distinct bodies
	bodiesOf := map[string]map[string]int64{}
	for _, k := range keys {
		a, err := st.EpisodeArchiveSize(ctx, ids[k])
		if err != nil {
			b.Fatal(err)
		}
		stored = append(stored, a.StoredBytes)
		u, _ := url.Parse(tasks[k].StartURL)
		h := u.Hostname()
		v := perSite[h]
		v[0] += a.BodyBytes
		perSite[h] = v
		if bodiesOf[h] == nil {
			bodiesOf[h] = map[string]int64{}
		}
		for hash, size := range archiveBodies(b, st, ids[k]) {
			bodiesOf[h][hash] = size
		}
	}
	slices.Sort(stored)
	q := func(p float64) int64 { return stored[min(len(stored)-1, int(p*float64(len(stored))))] }
	var sites2 []string
	for h := range perSite {
		v := perSite[h]
		for _, s := range bodiesOf[h] {
			v[1] += s
		}
		perSite[h] = v
		sites2 = append(sites2, h)
	}
	sort.Strings(sites2)
	var dedup []string
	for _, h := range sites2 {
		v := perSite[h]
		n := 0
		for _, k := range keys {
			if u, _ := url.Parse(tasks[k].StartURL); u.Hostname() == h {
				n++
			}
		}
		dedup = append(dedup, fmt.Sprintf("%s: %d episodes, bodies %.0f KiB as kept per episode, %.0f KiB stored once each (%.0f%% saved)",
			h, n, float64(v[0])/1024, float64(v[1])/1024, 100*(1-float64(v[1])/float64(max(1, v[0])))))
	}
	ms := func(r run) float64 { return float64(r.stepTime.Milliseconds()) / float64(max(1, r.stepCount)) }
	fmt.Printf("offline replay of the practice pack (%d episodes, headless, every practice server stopped):\n"+
		"  steps matched %d/%d (%.2f%%), hermetic episodes %d/%d, requests served %d, refused %d\n"+
		"  step time offline %.0f ms, live %.0f ms (live: steps matched %d/%d)\n"+
		"  archive per episode (stored, gzip): median %.0f KiB, p90 %.0f KiB\n  %s\n",
		len(keys), off.matched, off.steps, pct(off.matched, off.steps), off.hermetic, len(keys), off.served, off.refused,
		ms(off), ms(live), live.matched, live.steps, float64(q(0.5))/1024, float64(q(0.9))/1024, strings.Join(dedup, "\n  "))
	if len(off.notes) > 0 {
		fmt.Printf("  not matched or not hermetic:\n    %s\n", strings.Join(off.notes, "\n    "))
	}
	b.ReportMetric(pct(off.matched, off.steps), "%steps-offline")
	b.ReportMetric(float64(off.refused), "refused")
	b.ReportMetric(ms(off), "ms/step-offline")
	b.ReportMetric(ms(live), "ms/step-live")
	b.ReportMetric(float64(q(0.5))/1024, "KiB-archive-p50")
}

// archiveBodies lists the bodies an episode's archive uses, with their
// sizes.
func archiveBodies(tb testing.TB, st *dataset.Store, id string) map[string]int64 {
	tb.Helper()
	out := map[string]int64{}
	db := storetest.DB(tb, st)
	defer db.Close()
	rows, err := db.Query(`SELECT b.sha256, b.size FROM archive_bodies ab JOIN bodies b ON b.sha256 = ab.sha256 WHERE ab.episode_id = ?`, id)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var n int64
		if err := rows.Scan(&h, &n); err != nil {
			tb.Fatal(err)
		}
		out[h] = n
	}
	return out
}
