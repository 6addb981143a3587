package stats

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		in := append([]float64(nil), c.in...)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Errorf("Median reordered its input: %v, was %v", in, c.in)
				break
			}
		}
	}
	if got := Median([]time.Duration{3 * time.Second, time.Second}); got != 2*time.Second {
		t.Errorf("Median of 3 s and 1 s = %v, want 2s", got)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {0.5, 5}, {0.9, 9}, {1, 10},
	} {
		if got := Percentile(xs, c.p); got != c.want {
			t.Errorf("Percentile(1…10, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Percentile([]int(nil), 0.9); got != 0 {
		t.Errorf("Percentile of none = %v, want 0", got)
	}
}
