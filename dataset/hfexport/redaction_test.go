package hfexport

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// The export carries each screenshot's redaction boxes, the card counts
// the boxes by policy and names the episodes recorded without one, and
// RequireRedaction refuses such a dataset, naming the episodes, while it
// exports one whose every episode had a policy.
func TestExportRedaction(t *testing.T) {
	f := standard(t)
	f.exec(`UPDATE episodes SET engine_json = '{"kind":"local","redaction":{"name":"default","patterns":["email"]}}'`)
	f.exec(`UPDATE episodes SET engine_json = '{"kind":"local"}' WHERE id IN ('ep-01-a', 'ep-03-a')`)
	// ep-00-a's step 1 shows two boxes (they are blacked out of step 1's
	// screenshot, which step 2 shows).
	f.exec(`UPDATE steps SET redaction_json = '[{"x":10,"y":20,"w":100,"h":18,"why":"pattern email"},{"x":5,"y":90,"w":300,"h":24,"why":"input type=email"}]' WHERE episode_id = 'ep-00-a' AND idx = 1`)

	out := filepath.Join(t.TempDir(), "ds")
	o := opts(out)
	o.RequireRedaction = true
	if _, err := Export(t.Context(), f.store, o, nil); !errors.Is(err, ErrNotRedacted) || !strings.Contains(err.Error(), "ep-01-a, ep-03-a") {
		t.Fatalf("a dataset with two episodes recorded without a policy: %v", err)
	}
	mustExport(t, f, opts(out))
	c := readCard(t, out)
	if !strings.Contains(c.body, `Redaction: 2 boxes blacked out over`) || !strings.Contains(c.body, `policy "default" (`) ||
		!strings.Contains(c.body, "2 episodes were recorded without a policy") {
		t.Fatalf("the card's redaction line:\n%s", c.body)
	}
	seen := 0
	for _, p := range parquetFiles(t, out, "steps") {
		for _, r := range readRows[stepRow](t, p) {
			if *r.EpisodeID == "ep-00-a" && *r.RecordedStep == 2 {
				seen++
				if r.Redaction == nil || !strings.Contains(*r.Redaction, `"why":"input type=email"`) {
					t.Errorf("step 2 of ep-00-a shows step 1's screenshot, with its boxes: %v", r.Redaction)
				}
			} else if r.Screenshot != nil && (r.Redaction == nil || *r.Redaction != "[]") {
				t.Errorf("%s step %d: redaction %v, want []", *r.EpisodeID, *r.RecordedStep, r.Redaction)
			}
		}
	}
	if seen != 1 {
		t.Fatalf("ep-00-a step 2 exported %d times", seen)
	}
	// Every episode with a policy: RequireRedaction exports.
	f.exec(`UPDATE episodes SET engine_json = '{"kind":"local","redaction":{"name":"default"}}'`)
	o = opts(filepath.Join(t.TempDir(), "ds2"))
	o.RequireRedaction = true
	mustExport(t, f, o)
}
