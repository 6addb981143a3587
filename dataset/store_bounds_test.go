package dataset

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// What one open store may hold in memory is bounded: SQLite's page cache
// is per connection and fills up to its cache_size with the pages that
// pass through it (a recording's screenshots too), so each connection's
// cache is at most 4 MiB, and the pool keeps at most 2 connections open
// once a burst of concurrent work is over (besides the pinned one). Before, each cache could grow to 32 MiB: a
// long serve session's resident memory grew 40-80 KB an episode
// (BenchmarkServeMemoryPerEpisode).
func TestStoreBoundsConnectionsAndPageCache(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task := wmTask(t, s, "Bounded", Navigation, "http://shop.waymark.test/")
	ctx := context.Background()
	// A burst: readers and writers at once, so the pool opens connections
	// beyond its idle bound while it lasts.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				rows, err := s.db.QueryContext(ctx, `SELECT id FROM tasks`)
				if err != nil {
					errs <- err
					return
				}
				// Hold the read open while another goroutine writes.
				if _, err := s.AddTask(ctx, Task{Goal: fmt.Sprintf("Task %d-%d", g, i), Category: Navigation, StartURL: task.StartURL}); err != nil {
					rows.Close()
					errs <- err
					return
				}
				rows.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := s.db.Stats()
	if st.OpenConnections > 3 {
		t.Errorf("%d connections open after the burst, want at most 3 (the pool's 2 idle ones and the pinned one)", st.OpenConnections)
	}
	t.Logf("%d connections were closed as the burst ended", st.MaxIdleClosed)
	// Every connection's cache, the pool's and the pinned one's.
	check := func(who string, q func(string) (int, error)) {
		t.Helper()
		n, err := q(`PRAGMA cache_size`)
		if err != nil {
			t.Fatal(err)
		}
		// Negative: KiB; positive: pages (of 4 KiB).
		if kib := max(-n, n*4); n == 0 || kib > 4096 {
			t.Errorf("%s: cache_size %d, a cache of %d KiB; want at most 4096", who, n, kib)
		}
	}
	check("a pool connection", func(q string) (n int, err error) { err = s.db.QueryRowContext(ctx, q).Scan(&n); return })
	check("the pinned connection", func(q string) (n int, err error) { err = s.pin.QueryRowContext(ctx, q).Scan(&n); return })
}
