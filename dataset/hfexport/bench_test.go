package hfexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/dataset/storetest"
)

// benchPNGs are n distinct 800×600 screenshots of ~50 KB each (a page of
// flat colours with a band of detail, like a simple site).
func benchPNGs(b testing.TB, n int) [][]byte {
	rng := rand.New(rand.NewSource(3))
	out := make([][]byte, n)
	for i := range out {
		img := image.NewRGBA(image.Rect(0, 0, 800, 600))
		for y := 0; y < 600; y++ {
			for x := 0; x < 800; x++ {
				c := color.RGBA{250, 250, uint8(240 - 10*i), 255}
				if y > 150 && y < 210 && rng.Intn(3) == 0 {
					c = color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255}
				}
				if y%40 < 14 && x > 40 && x < 400+20*i && y > 250 {
					c = color.RGBA{30, 30, 30, 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		out[i] = buf.Bytes()
	}
	return out
}

// benchStore writes a store of episodes of 20 steps each, totalling steps,
// all reviewed, in one transaction.
func benchStore(b *testing.B, steps int) (*dataset.Store, int64) {
	b.Helper()
	st, err := dataset.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	pngs := benchPNGs(b, 8)
	tx, err := storetest.DB(b, st).Begin()
	if err != nil {
		b.Fatal(err)
	}
	now := "2026-11-02T09:00:00.000Z"
	var imgBytes int64
	const perEpisode = 20
	for e := 0; e*perEpisode < steps; e++ {
		task, ep := fmt.Sprintf("task-%04d", e/3), fmt.Sprintf("ep-%05d", e)
		if e%3 == 0 {
			tx.Exec(`INSERT INTO tasks (id, goal, category, start_url, created_at, updated_at) VALUES (?,?,?,?,?,?)`,
				task, "goal "+task, dataset.Categories[e%3], "http://127.0.0.1/", now, now)
		}
		if _, err := tx.Exec(`INSERT INTO episodes (id, task_id, annotator, action_set, status, started_at, ended_at) VALUES (?,?,?,?,?,?,?)`,
			ep, task, "alice", "default", dataset.StatusFinished, now, now); err != nil {
			b.Fatal(err)
		}
		for i := 0; i <= perEpisode; i++ {
			var aj any
			if i > 0 {
				a := stepActionOf(i, perEpisode)
				aj = mustJSON(a)
			}
			pic := pngs[(e+i)%len(pngs)]
			imgBytes += int64(len(pic))
			if _, err := tx.Exec(`INSERT INTO steps (episode_id, idx, action_json, url, screenshot, total_ms, created_at) VALUES (?,?,?,?,?,?,?)`,
				ep, i, aj, stepURL(ep, i), pic, 100, now); err != nil {
				b.Fatal(err)
			}
		}
		tx.Exec(`INSERT INTO reviews (id, episode_id, reviewer, outcome, created_at) VALUES (?,?,?,?,?)`,
			"r"+ep, ep, "rita", dataset.Outcomes[e%4], now)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return st, imgBytes
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// vmHWM reads the peak resident set size (kB) of this process.
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// resetHWM resets the kernel's peak-RSS counter (Linux ≥ 4.0).
func resetHWM() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkExport exports stores of 2,000 and 10,000 steps. It reports steps
// exported per second, the peak Go heap in use while exporting (sampled every
// 5 ms, garbage included), the peak live heap (after a GC every 250 ms) and
// the process's peak RSS (which also holds what building the store left);
// the heap figures must stay flat as the store grows.
func BenchmarkExport(b *testing.B) {
	for _, steps := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			st, imgBytes := benchStore(b, steps)
			out := filepath.Join(b.TempDir(), "out")
			var peakHeap, peakRSS, peakLive uint64
			var total time.Duration
			var written int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				os.RemoveAll(out)
				runtime.GC()
				resetHWM()
				stop := make(chan struct{})
				var wg sync.WaitGroup
				var peak uint64
				wg.Add(1)
				go func() {
					defer wg.Done()
					var ms runtime.MemStats
					tick := time.NewTicker(5 * time.Millisecond)
					defer tick.Stop()
					for {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
						select {
						case <-stop:
							return
						case <-tick.C:
						}
					}
				}()
				start := time.Now()
				o := Options{Out: out, TestFraction: DefaultTestFraction, License: "cc-by-4.0"}
				// Every 250 ms, collect and read the live heap: what the
				// export holds, without the garbage the sampler also sees.
				lastGC := time.Now()
				res, err := Export(context.Background(), st, o, func(p Progress) {
					if time.Since(lastGC) < 250*time.Millisecond {
						return
					}
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					peakLive = max(peakLive, ms.HeapAlloc)
					lastGC = time.Now()
				})
				total += time.Since(start)
				close(stop)
				wg.Wait()
				if err != nil {
					b.Fatal(err)
				}
				if res.Steps != steps {
					b.Fatalf("exported %d steps, want %d", res.Steps, steps)
				}
				written = res.Bytes
				peakHeap = max(peakHeap, peak)
				peakRSS = max(peakRSS, uint64(vmHWM()))
			}
			b.StopTimer()
			os.RemoveAll(out)
			b.ReportMetric(float64(steps)*float64(b.N)/total.Seconds(), "steps/s")
			b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(peakLive)/(1<<20), "peak-live-heap-MB")
			b.ReportMetric(float64(peakRSS)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(written)/(1<<20), "output-MB")
			b.ReportMetric(float64(imgBytes)/float64(steps+steps/20)/1024, "KB/png")
		})
	}
}
