package hfexport

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An agent's episode a person took over twice: the steps config's actor
// column says who took each action, the episodes config counts two
// interventions, every other episode none, and the card counts them.
func TestExportActorsAndInterventions(t *testing.T) {
	f := standard(t)
	// ep-02-a is agent:gpt's, 5 actions; the person took 2, 3 and 5.
	f.exec(`UPDATE steps SET actor = 'human:rita' WHERE episode_id = 'ep-02-a' AND idx IN (2, 3, 5)`)
	f.exec(`UPDATE steps SET actor = 'agent:gpt' WHERE episode_id = 'ep-02-a' AND idx IN (0, 1, 4)`)
	out := filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))

	actors := map[string][]string{}
	for _, p := range parquetFiles(t, out, "steps") {
		for _, r := range readRows[stepRow](t, p) {
			if r.Actor == nil {
				t.Fatalf("step %d of %s has a null actor", *r.StepIndex, *r.EpisodeID)
			}
			actors[*r.EpisodeID] = append(actors[*r.EpisodeID], *r.Actor)
		}
	}
	if got, want := actors["ep-02-a"], []string{"agent:gpt", "human:rita", "human:rita", "agent:gpt", "human:rita"}; !slices.Equal(got, want) {
		t.Fatalf("ep-02-a actors %q, want %q", got, want)
	}
	if got := actors["ep-00-a"]; len(got) == 0 || slices.ContainsFunc(got, func(a string) bool { return a != "human:alice" }) {
		t.Fatalf("alice's episode: actors %q", got)
	}
	seen := 0
	for _, p := range parquetFiles(t, out, "episodes") {
		for _, r := range readRows[episodeRow](t, p) {
			want := int64(0)
			if *r.EpisodeID == "ep-02-a" {
				want = 2
				seen++
			}
			if r.NumInterventions == nil || *r.NumInterventions != want {
				t.Errorf("%s: num_interventions %v, want %d", *r.EpisodeID, r.NumInterventions, want)
			}
		}
	}
	if seen != 1 {
		t.Fatalf("ep-02-a exported %d times", seen)
	}
	c := readCard(t, out)
	if !strings.Contains(c.body, "in 1 episode a person took over from the agent (2 takeovers in all, 3 steps by the person)") {
		t.Fatalf("the card does not count the interventions:\n%s", c.body)
	}
}
