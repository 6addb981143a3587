package replay

import (
	"image"
	"image/color"
	"reflect"
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
		want := dataset.VerdictDiverged
		if c.why == "" {
			want = dataset.VerdictMatch
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
	if want := `error "", stored "renderer_timeout"; done false, stored true`; r.Verdict != dataset.VerdictDiverged || r.Why != want {
		t.Errorf("stored error and done: verdict %q, why %q; want %q", r.Verdict, r.Why, want)
	}
}

// CompareMasked leaves the masked pixels out and counts the rest against
// the whole image; merge keeps one of equal regions and drops those inside
// another.
func TestCompareMaskedAndMerge(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 100, 100))
	b := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 10; y < 20; y++ {
		for x := 10; x < 30; x++ {
			b.Set(x, y, color.RGBA{255, 255, 255, 255})
		}
	}
	for _, c := range []struct {
		mask []image.Rectangle
		want int
	}{
		{nil, 200},
		{[]image.Rectangle{image.Rect(10, 10, 30, 20)}, 0},
		{[]image.Rectangle{image.Rect(10, 10, 20, 20)}, 100},
		{[]image.Rectangle{image.Rect(50, 50, 90, 90)}, 200},
	} {
		s, err := CompareMasked(a, b, c.mask)
		if err != nil || s.DiffPixels != c.want || s.Share != float64(c.want)/10000 {
			t.Errorf("mask %v: %+v %v, want %d pixels", c.mask, s, err, c.want)
		}
	}
	got := merge([]Ignored{{X: 0, Y: 50, W: 10, H: 10, Why: "a"}, {X: 0, Y: 0, W: 50, H: 50, Why: "b"}, {X: 5, Y: 5, W: 5, H: 5, Why: "c"}, {X: 0, Y: 0, W: 50, H: 50, Why: "d"}})
	if want := []Ignored{{X: 0, Y: 0, W: 50, H: 50, Why: "b"}, {X: 0, Y: 50, W: 10, H: 10, Why: "a"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("merge: %+v, want %+v", got, want)
	}
}
