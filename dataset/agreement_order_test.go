package dataset

import (
	"slices"
	"testing"
)

// The pairs come sorted by first then second reviewer on every call, not
// only when the map of pairs happens to be walked in that order.
func TestContractAgreementPairOrderEveryTime(t *testing.T) {
	eps := []map[string]string{
		{"dan": "success", "cat": "failure", "bob": "success", "amy": "success"},
		{"dan": "failure", "cat": "failure", "bob": "success", "amy": "failure"},
	}
	want := []string{"amy-bob", "amy-cat", "amy-dan", "bob-cat", "bob-dan", "cat-dan"}
	for i := range 200 {
		var got []string
		for _, p := range ComputeAgreement(eps).Pairs {
			got = append(got, p.A+"-"+p.B)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("call %d: pairs %v, want %v", i, got, want)
		}
	}
}
