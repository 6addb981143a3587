package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// mgBigSource writes a store of n steps (episodes of 20 steps, each with an
// 800×600 PNG screenshot of its own page picture) and returns its path,
// closed.
func mgBigSource(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), fmt.Sprintf("src-%d.db", n))
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	task := wmTask(b, s, "Big", Navigation, "http://shop.waymark.test/")
	tx, err := s.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	const now = "2026-11-02T09:00:00.000Z"
	for e := 0; e*20 < n; e++ {
		id := fmt.Sprintf("ep-%05d", e)
		if _, err := tx.Exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, num_steps, started_at, ended_at) VALUES (?,?,'ann','default','finished',19,?,?)`,
			id, task.ID, now, now); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 20 && e*20+i < n; i++ {
			if _, err := tx.Exec(`INSERT INTO steps (episode_id, idx, action_json, op, url, screenshot, created_at) VALUES (?,?,'{"op":"click","x":1,"y":2}','click','http://shop.waymark.test/',?,?)`,
				id, i, wmPagePNG(int64(i%4)), now); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return path
}

// peakRSS reads the process's resident-set high-water mark (VmHWM) in MiB.
func peakRSS() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkMerge merges a store of 1,000 and of 10,000 steps into an empty
// one and reports the time, the Go heap's peak during the merge (sampled
// every millisecond) and the process's resident-set peak: flat memory
// means the two sizes give about the same peaks.
func BenchmarkMerge(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			src := mgBigSource(b, n)
			var heapPeak uint64
			rssPeak := 0.0
			if fi, err := os.Stat(src); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(n)/1024, "KiB/step")
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dst, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("dst-%d.db", i)))
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				// Start the resident-set high-water mark afresh.
				os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					var ms runtime.MemStats
					t := time.NewTicker(time.Millisecond)
					defer t.Stop()
					for {
						runtime.ReadMemStats(&ms)
						if ms.HeapAlloc > base.HeapAlloc && ms.HeapAlloc-base.HeapAlloc > heapPeak {
							heapPeak = ms.HeapAlloc - base.HeapAlloc
						}
						select {
						case <-stop:
							return
						case <-t.C:
						}
					}
				}()
				b.StartTimer()
				rep, err := dst.Merge(context.Background(), src, MergeOptions{})
				b.StopTimer()
				close(stop)
				wg.Wait()
				if err != nil || rep.Added["steps"] != n {
					b.Fatalf("merge: %v, %d steps added", err, rep.Added["steps"])
				}
				rssPeak = max(rssPeak, peakRSS())
				dst.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(heapPeak)/(1<<20), "heap-peak-MiB")
			b.ReportMetric(rssPeak, "rss-peak-MiB")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
