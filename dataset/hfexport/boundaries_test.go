package hfexport

import "testing"

// FormatBytes changes unit exactly at 1 KiB, 1 MiB and 1 GiB.
func TestFormatBytesUnitEdges(t *testing.T) {
	for n, want := range map[int64]string{
		1<<10 - 1: "1023 bytes", 1 << 10: "1 KB",
		1<<20 - 1: "1024 KB", 1 << 20: "1.0 MB",
		1<<30 - 1: "1024.0 MB", 1 << 30: "1.0 GB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// The card's size_categories follow the Hugging Face Hub's buckets, whose
// upper bounds are exclusive.
func TestSizeCategoryEdges(t *testing.T) {
	for n, want := range map[int]string{
		0: "n<1K", 999: "n<1K", 1_000: "1K<n<10K", 9_999: "1K<n<10K", 10_000: "10K<n<100K",
		99_999: "10K<n<100K", 100_000: "100K<n<1M", 999_999: "100K<n<1M", 1_000_000: "1M<n<10M",
		9_999_999: "1M<n<10M", 10_000_000: "10M<n<100M", 99_999_999: "10M<n<100M", 100_000_000: "100M<n<1B",
	} {
		if got := sizeCategory(n); got != want {
			t.Errorf("sizeCategory(%d) = %q, want %q", n, got, want)
		}
	}
}

// The card says whether people, agents or both recorded the episodes.
func TestCardWho(t *testing.T) {
	for _, c := range []struct {
		humans, agents int
		want           string
	}{
		{2, 0, "All episodes are human demonstrations, by 2 annotators."},
		{1, 0, "All episodes are human demonstrations, by 1 annotator."},
		{0, 1, "All episodes are agent rollouts, by 1 agent."},
		{0, 3, "All episodes are agent rollouts, by 3 agents."},
		{1, 1, "They mix human demonstrations (1 person) and agent rollouts (1 agent); the `annotator` column says which (agents are named `agent:<name>`)."},
	} {
		if got := who(c.humans, c.agents); got != c.want {
			t.Errorf("who(%d, %d) = %q, want %q", c.humans, c.agents, got, c.want)
		}
	}
}

// Progress is measured in steps, in episodes when there are no steps, and is
// 0 when there is nothing to export.
func TestProgressFraction(t *testing.T) {
	for _, c := range []struct {
		p    Progress
		want float64
	}{
		{Progress{Steps: 1, TotalSteps: 4, Episodes: 1, TotalEpisodes: 1}, 0.25},
		{Progress{Steps: 0, TotalSteps: 1, Episodes: 1, TotalEpisodes: 2}, 0},
		{Progress{Episodes: 1, TotalEpisodes: 2}, 0.5},
		{Progress{Episodes: 2, TotalEpisodes: 1}, 2},
		{Progress{}, 0},
	} {
		if got := c.p.Fraction(); got != c.want {
			t.Errorf("%+v.Fraction() = %v, want %v", c.p, got, c.want)
		}
	}
}
