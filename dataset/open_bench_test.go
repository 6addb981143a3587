package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpen opens a store of about 1 GB (9,300 steps of 113 KiB, built
// once as BenchmarkMerge builds its source) and closes it: after a clean
// close (no integrity check: it must take at most 100 ms) and after a
// Waymark died with it open (a marker of a process that is gone, so SQLite's
// quick_check runs first). Only Open is timed.
func BenchmarkOpen(b *testing.B) {
	path := mgBigSource(b, 9300)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(path) // once, so the clean-close record is written
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	open := func(b *testing.B, crashed bool) {
		b.ReportMetric(float64(fi.Size())/1e9, "GB")
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if crashed {
				// pid 1 runs, but not since the start token written here.
				host, _ := os.Hostname()
				if err := os.WriteFile(filepath.Join(path+openStateDirSuffix, "1.1.store"), []byte(host+"|1|gone"), 0o600); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			s, err := Open(path)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if (s.checked != "") != crashed {
				b.Fatalf("checked: %q", s.checked)
			}
			s.Close()
			b.StartTimer()
		}
	}
	b.Run("clean", func(b *testing.B) { open(b, false) })
	b.Run("after-crash", func(b *testing.B) { open(b, true) })
}
