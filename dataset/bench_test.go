package dataset

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"waymark/engine/action"
)

// BenchmarkAppendStep appends steps carrying a realistic 800×600 PNG and
// reports the median and 95th-percentile time of one append (target:
// median ≤ 5 ms).
func BenchmarkAppendStep(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	task := wmTask(b, s, "bench", Navigation, "http://shop.waymark.test/")
	ep, err := s.CreateEpisode(b.Context(), Episode{TaskID: task.ID, Annotator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	shots := [][]byte{wmPagePNG(1), wmPagePNG(2), wmPagePNG(3)}
	a := action.ClickAt(400, 300)
	aj, _ := a.MarshalJSON()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st := Step{EpisodeID: ep.ID, Index: i, Action: &a, ActionJSON: string(aj), URL: "http://shop.waymark.test/p",
			Title: "Product", Screenshot: shots[i%len(shots)], Timings: action.Timings{TotalMS: 120}}
		t0 := time.Now()
		if err := s.AppendStep(b.Context(), st); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(ms(times[len(times)/2]), "median_ms")
	b.ReportMetric(ms(times[len(times)*95/100]), "p95_ms")
	b.ReportMetric(float64(len(shots[0]))/1024, "png_KiB")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkListEpisodes10k lists all of 10,000 episodes (with their task's
// goal and category) and counts them per category and status (target ≤ 100
// ms together).
func BenchmarkListEpisodes10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tx, _ := s.db.Begin()
	var tasks []string
	for i := 0; i < 300; i++ {
		id := uuid.NewString()
		tasks = append(tasks, id)
		tx.Exec(`INSERT INTO tasks (id, goal, category, start_url, source, created_at, updated_at) VALUES (?,?,?,?,?,?,?)`,
			id, fmt.Sprintf("Task number %d: find something on the site", i), Categories[i%3], "http://shop.waymark.test/", "bench", now(), now())
	}
	statuses := []Status{StatusFinished, StatusFinished, StatusFinished, StatusInterrupted, StatusDiscarded}
	base := time.Now().Add(-24 * time.Hour)
	for i := 0; i < 10000; i++ {
		if _, err := tx.Exec(`INSERT INTO episodes (id, task_id, annotator, action_set, engine_json, status, end_reason, final_answer, final_url, num_steps, started_at, ended_at, owner)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, uuid.NewString(), tasks[i%len(tasks)], fmt.Sprintf("annotator%d", i%12), "default",
			`{"kind":"local","display":"xvfb","browser":"Chromium 156","action_set":"default","max_steps":50}`,
			statuses[i%len(statuses)], "finished", "some answer", "http://shop.waymark.test/p/1", i%40,
			FormatTime(base.Add(time.Duration(i)*time.Second)), FormatTime(base.Add(time.Duration(i)*time.Second+time.Minute)), ""); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		l, err := s.ListEpisodes(b.Context(), EpisodeFilter{})
		if err != nil || len(l) != 10000 {
			b.Fatal(len(l), err)
		}
		c, err := s.CountEpisodes(b.Context(), EpisodeFilter{})
		if err != nil || c.Total != 10000 {
			b.Fatal(c, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list+count")
	// CPU time is what the machine's load does not inflate.
	b.ReportMetric(ms(cpuTime()-cpu0)/float64(b.N), "cpu_ms/list+count")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkImport10k imports 10,000 tasks from JSON Lines into a fresh store.
func BenchmarkImport10k(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, `{"id": "t%d", "instruction": "Find the price of product %d in the shop", "url": "http://shop.waymark.test/p/%d", "category": %q, "answer": "%d.99"}`+"\n",
			i, i, i, []string{"info", "nav", "interaction"}[i%3], i)
	}
	doc := sb.String()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("bench%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		rep, err := s.ImportTasks(b.Context(), strings.NewReader(doc), "bench.jsonl", ImportOptions{})
		total += time.Since(t0)
		b.StopTimer()
		if err != nil || rep.Imported != 10000 {
			b.Fatal(rep.Summary(), err)
		}
		s.Close()
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(ms(per), "ms/import")
	b.ReportMetric(10000/per.Seconds(), "tasks/s")
	b.ReportMetric(0, "ns/op")
}
