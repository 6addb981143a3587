package replay

import (
	"testing"

	"waymark/dataset"
	"waymark/engine/action"
)

// compareStep reports a step that differs from the stored one in one field
// only — URL, title, error or done — as diverged, naming that field with
// the replayed and the stored value; an equal step matches. (No
// screenshots on either side here, so only these fields are compared.)
func TestCompareStepEachField(t *testing.T) {
	stored := dataset.Step{Index: 4, URL: "http://shop.test/cart", Title: "Cart", Error: "", Done: false}
	same := action.Observation{Step: 4, URL: "http://shop.test/cart", Title: "Cart"}
	for _, c := range []struct {
		name string
		obs  func(o *action.Observation)
		why  string
	}{
		{"equal", func(o *action.Observation) {}, ""},
		{"url", func(o *action.Observation) { o.URL = "http://shop.test/checkout" }, `url "http://shop.test/checkout", stored "http://shop.test/cart"`},
		{"title", func(o *action.Observation) { o.Title = "Checkout" }, `title "Checkout", stored "Cart"`},
		{"error", func(o *action.Observation) { o.Error = action.ErrPageLoadTimeout }, `error "page_load_timeout", stored ""`},
		{"done", func(o *action.Observation) { o.Done = true }, `done true, stored false`},
	} {
		obs := same
		c.obs(&obs)
		r := compareStep(stored, obs)
		want := VerdictDiverged
		if c.why == "" {
			want = VerdictMatch
		}
		if r.Verdict != want || r.Why != c.why {
			t.Errorf("%s: verdict %q, why %q; want %q, %q", c.name, r.Verdict, r.Why, want, c.why)
		}
		if r.Step != 4 || r.Stored != (Seen{URL: "http://shop.test/cart", Title: "Cart"}) ||
			r.Replayed == nil || *r.Replayed != (Seen{URL: obs.URL, Title: obs.Title, Error: string(obs.Error), Done: obs.Done}) {
			t.Errorf("%s: step %d, stored %+v, replayed %+v", c.name, r.Step, r.Stored, r.Replayed)
		}
		if r.Score != nil || r.DiffPixels != nil {
			t.Errorf("%s: a score with no screenshots: %v %v", c.name, r.Score, r.DiffPixels)
		}
	}
	// The other way round: stored with an error and done, replayed without.
	stored.Error, stored.Done = "renderer_timeout", true
	r := compareStep(stored, same)
	if want := `error "", stored "renderer_timeout"; done false, stored true`; r.Verdict != VerdictDiverged || r.Why != want {
		t.Errorf("stored error and done: verdict %q, why %q; want %q", r.Verdict, r.Why, want)
	}
}
