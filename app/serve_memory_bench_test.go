package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"waymark/engine"
	"waymark/engine/action"
	"waymark/engine/openenv"
)

// BenchmarkServeMemoryPerEpisode runs the real `waymark serve --record`
// and one agent that keeps one session for many episodes (each a reset on
// a static page, a scroll and a finish: three screenshots stored), and
// reports how serve's own memory grows per episode: its resident set (RSS)
// and proportional set (PSS) from the 100th episode to the last, divided by
// the episodes between (the first 100 start the browser, fill caches and
// let the Go heap find its size), the Go heap's live size at the last GC (serve runs
// with GODEBUG=gctrace=1), and the most SQLite connections serve held open
// to the store at once (the file descriptors on the database file, sampled
// after every 10th episode). Chromium's processes are not counted. The
// episodes are WAYMARK_BENCH_EPISODES (default 300, at least 150).
//
// make bench runs it with -benchtime 1x.
func BenchmarkServeMemoryPerEpisode(b *testing.B) {
	episodes := 300
	if v, err := strconv.Atoi(os.Getenv("WAYMARK_BENCH_EPISODES")); err == nil && v >= 150 {
		episodes = v
	}
	bin := buildWaymark(b)
	page := staticPage(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := filepath.Join(b.TempDir(), "w.db")
		os.Setenv("GODEBUG", "gctrace=1")
		sv := startServe(b, bin, []string{"serve", "--addr", "127.0.0.1:0", "--record", "--db", db})
		os.Unsetenv("GODEBUG")
		pid := sv.cmd.Process.Pid
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		c, err := openenv.Dial(ctx, sv.base, openenv.ClientOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var rss0, pss0 int64
		conns := 0
		var curve []string
		b.StartTimer()
		for e := 1; e <= episodes; e++ {
			if _, err := c.Reset(ctx, engine.ResetOptions{StartURL: page}); err != nil {
				b.Fatalf("episode %d: reset: %v\n%s", e, err, sv.log())
			}
			if _, err := c.Step(ctx, action.ScrollBy(100)); err != nil {
				b.Fatalf("episode %d: scroll: %v", e, err)
			}
			if o, err := c.Step(ctx, action.FinishWith("seen")); err != nil || !o.Done {
				b.Fatalf("episode %d: finish: %v", e, err)
			}
			if e%10 == 0 {
				conns = max(conns, storeConnections(pid, db))
			}
			if e%50 == 0 {
				curve = append(curve, fmt.Sprintf("%d: %.1f", e, float64(rssOf(pid))/(1<<20)))
			}
			if e == 100 {
				rss0, pss0 = rssOf(pid), pssOf(pid)
			}
		}
		b.StopTimer()
		rss1, pss1 := rssOf(pid), pssOf(pid)
		c.Close()
		cancel()
		sv.stop(b)
		n := float64(episodes - 100)
		b.ReportMetric(float64(rss1-rss0)/n/1024, "KB-rss/episode")
		b.ReportMetric(float64(pss1-pss0)/n/1024, "KB-pss/episode")
		b.ReportMetric(float64(rss1)/(1<<20), "MB-rss-end")
		b.ReportMetric(lastGCHeapMB(sv.log()), "MB-heap-end")
		b.ReportMetric(float64(conns), "store-conns-max")
		b.ReportMetric(0, "ns/op")
		b.Logf("%d episodes: serve RSS %.1f → %.1f MiB, PSS %.1f → %.1f MiB (episode 100 → %d); RSS (MiB) after episode %s",
			episodes, float64(rss0)/(1<<20), float64(rss1)/(1<<20), float64(pss0)/(1<<20), float64(pss1)/(1<<20), episodes, strings.Join(curve, ", "))
	}
}

// storeConnections counts pid's open file descriptors on the database file
// db itself: SQLite opens it once per connection.
func storeConnections(pid int, db string) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && target == db {
			n++
		}
	}
	return n
}

// gcLine is gctrace's "gc N @…: … A->B->C MB, …": C is the heap live after
// the collection.
var gcLine = regexp.MustCompile(`gc \d+ @.*? (\d+)->(\d+)->(\d+) MB`)

func lastGCHeapMB(log string) float64 {
	var last float64
	for _, l := range strings.Split(log, "\n") {
		if m := gcLine.FindStringSubmatch(l); m != nil {
			last, _ = strconv.ParseFloat(m[3], 64)
		}
	}
	return last
}
