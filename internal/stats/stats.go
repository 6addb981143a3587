// Package stats holds the median and percentile that tests and benchmarks
// report their samples with. It imports only the standard library, so any
// package's tests may use it.
package stats

import "slices"

// Number is a sample: a float, an integer or a time.Duration.
type Number interface {
	~int | ~int64 | ~float64
}

// Median is the middle of xs, the mean of the two middle values for an even
// count (0 for none). xs is left as it was.
func Median[T Number](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Percentile is the p-quantile of xs (p from 0 to 1): the sorted value at
// rank p×(n−1), rounded down, with no interpolation (0 for none). xs is left
// as it was.
func Percentile[T Number](xs []T, p float64) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1))]
}
