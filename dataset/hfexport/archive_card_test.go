package hfexport

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"waymark/dataset"
	"waymark/engine/har"
)

// The card counts the episodes that carry their own recorded traffic (so
// replay offline), those replayed offline, and those whose newest offline
// replay was hermetic; an online replay does not count.
func TestCardCountsOfflineReplays(t *testing.T) {
	f := standard(t)
	rec := func(ep, url string) {
		t.Helper()
		e := har.Entry{Step: 0, Request: har.Request{Method: "GET", URL: url}, Response: har.Response{Status: 200, Content: har.Content{Hash: "ab12"}}}
		if err := f.store.SaveArchiveChunk(t.Context(), ep, []har.Entry{e}, map[string][]byte{"ab12": []byte("<p>hi</p>")}); err != nil {
			t.Fatal(err)
		}
	}
	rec("ep-00-a", "http://127.0.0.1:8080/a")
	rec("ep-01-a", "http://127.0.0.1:8080/b")
	rec("ep-02-a", "http://127.0.0.1:8080/c")
	save := func(ep string, fid *dataset.Fidelity, matched, compared int) {
		t.Helper()
		end := time.Now()
		if _, err := f.store.SaveReplayRun(t.Context(), dataset.ReplayRun{EpisodeID: ep, EndedAt: &end, Matched: matched, Compared: compared, Fidelity: fid}); err != nil {
			t.Fatal(err)
		}
	}
	save("ep-00-a", &dataset.Fidelity{Hermetic: true, Served: 3}, 2, 2)
	save("ep-01-a", &dataset.Fidelity{Hermetic: false, Refused: 1}, 2, 2)
	save("ep-02-a", nil, 2, 2) // online
	out := filepath.Join(t.TempDir(), "ds")
	mustExport(t, f, opts(out))
	c := readCard(t, out)
	if !strings.Contains(c.body, "Offline replay: 3 episodes of ") || !strings.Contains(c.body, "2 of them were replayed so, 1 hermetically") {
		t.Fatalf("the card does not count the offline replays:\n%s", c.body)
	}
}
