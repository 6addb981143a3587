package hfexport

import "testing"

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1023: "1023 bytes", 1024: "1 KB", 1536: "2 KB",
		5 << 20: "5.0 MB", 3<<30 + 1<<29: "3.5 GB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
