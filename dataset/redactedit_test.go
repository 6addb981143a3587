package dataset

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"waymark/engine/action"
)

// A reviewer blacks out a box the policy missed: the stored screenshot's
// pixels there are black (nothing of them kept), the box joins the step's
// boxes with who and why, the thumbnail is made again, and the audit log
// has a 'redact' row; a box off the screenshot and a recording episode
// are refused, changing nothing.
func TestAddRedaction(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.EnsureTask(t.Context(), Task{Goal: "Read the invoice", Category: Information, StartURL: "http://shop.test/"})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := s.CreateEpisode(t.Context(), Episode{TaskID: task.ID, Annotator: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := range img.Pix {
		img.Pix[i] = 0xEE
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	if err := s.AppendStep(t.Context(), Step{EpisodeID: ep.ID, Index: 0, URL: "http://shop.test/", Screenshot: b.Bytes(),
		Redaction: []action.RedactBox{{X: 1, Y: 1, W: 5, H: 5, Why: "pattern email"}}}); err != nil {
		t.Fatal(err)
	}
	box := action.RedactBox{X: 100, Y: 50, W: 200, H: 30}
	if err := s.AddRedaction(t.Context(), ep.ID, 0, box, "rita", "the customer's name"); err == nil || !strings.Contains(err.Error(), "still being recorded") {
		t.Fatalf("a recording episode: %v", err)
	}
	if err := s.FinishEpisode(t.Context(), ep.ID, EpisodeEnd{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Thumbnail(t.Context(), ep.ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.AddRedaction(t.Context(), ep.ID, 0, action.RedactBox{X: 900, Y: 0, W: 10, H: 10}, "rita", "x"); err == nil || !strings.Contains(err.Error(), "not on the 800×600 screenshot") {
		t.Fatalf("a box off the picture: %v", err)
	}
	if err := s.AddRedaction(t.Context(), ep.ID, 0, box, "rita", "the customer's name"); err != nil {
		t.Fatal(err)
	}
	shot, err := s.Screenshot(t.Context(), ep.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	pic, _ := png.Decode(bytes.NewReader(shot))
	for _, p := range []image.Point{{100, 50}, {299, 79}, {200, 65}} {
		if c := color.RGBAModel.Convert(pic.At(p.X, p.Y)).(color.RGBA); c != (color.RGBA{0, 0, 0, 255}) {
			t.Errorf("pixel %v is %v, want black", p, c)
		}
	}
	if c := color.RGBAModel.Convert(pic.At(99, 50)).(color.RGBA); c.R != 0xEE {
		t.Errorf("pixel left of the box is %v", c)
	}
	steps, err := s.Steps(t.Context(), ep.ID)
	if err != nil || len(steps[0].Redaction) != 2 || steps[0].Redaction[1].Why != "added by rita: the customer's name" {
		t.Fatalf("the step's boxes: %+v %v", steps[0].Redaction, err)
	}
	th, err := s.ThumbnailImage(t.Context(), ep.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := color.RGBAModel.Convert(th.At(th.Bounds().Dx()/4, th.Bounds().Dy()*65/600)).(color.RGBA); c.R > 0x40 {
		t.Errorf("the thumbnail was not made again: %v where the box is", c)
	}
	var edits []Edit
	for e, err := range s.EpisodeEdits(t.Context(), ep.ID) {
		if err != nil {
			t.Fatal(err)
		}
		edits = append(edits, e)
	}
	if len(edits) != 1 || edits[0].Kind != EditRedact || edits[0].Editor != "rita" {
		t.Fatalf("the audit log: %+v", edits)
	}
}
