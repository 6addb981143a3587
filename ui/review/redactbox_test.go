package review

import (
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"waymark/dataset/storetest"
	"waymark/engine/action"
)

// "Show redaction" outlines the boxes blacked out of the picture shown and
// says why in the step's details; "Black out…" and a drag over the picture
// blacks out a box the policy missed: the stored screenshot turns black
// there, the step lists the box with who and why, and the Edits log has it.
func TestReviewRedactionOutlinesAndBlackOut(t *testing.T) {
	e := newEnv(t)
	db := storetest.DB(t, e.s)
	if _, err := db.Exec(`UPDATE steps SET redaction_json = '[{"x":10,"y":20,"w":200,"h":30,"why":"pattern email"},{"x":10,"y":80,"w":200,"h":30,"why":"pattern email"}]' WHERE episode_id = ? AND idx = 1`, e.eps[2]); err != nil {
		t.Fatal(err)
	}
	e.key(fyne.KeyN) // the newest episode, step 1 before: step 0's picture
	p := &e.tab.player
	r := &p.redaction
	e.key(fyne.KeyRight) // step 2 before: step 1's picture, with the boxes
	if p.cur != 2 {
		t.Fatalf("at step %d", p.cur)
	}
	if !strings.Contains(p.info.Text, "Redaction: 2 boxes blacked out (2 pattern email)") {
		t.Errorf("the step's details: %q", p.info.Text)
	}
	visible := func() int {
		n := 0
		for _, x := range r.rects {
			if x.Visible() {
				n++
			}
		}
		return n
	}
	if visible() != 0 {
		t.Fatal("outlines drawn before Show redaction")
	}
	r.check.SetChecked(true)
	if visible() != 2 {
		t.Fatalf("%d outlines with Show redaction on, want 2", visible())
	}

	// Black out a box over the top left of step 1's picture.
	var asked action.RedactBox
	r.askReasons = func(b action.RedactBox) { asked = b; r.add(b, "the customer's name") }
	r.item.Action()
	size := r.Size()
	start := fyne.NewPos(size.Width*300/800, size.Height*200/600)
	end := fyne.NewPos(size.Width*500/800, size.Height*260/600)
	r.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: start}, Dragged: fyne.NewDelta(0, 0)})
	r.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: end}, Dragged: fyne.NewDelta(end.X-start.X, end.Y-start.Y)})
	r.DragEnd()
	if asked.W < 195 || asked.W > 205 || asked.H < 57 || asked.H > 63 || asked.X < 297 || asked.X > 303 {
		t.Fatalf("the box drawn %+v, want about 300,200 200×60", asked)
	}
	steps, err := e.s.Steps(t.Context(), e.eps[2])
	if err != nil || len(steps[1].Redaction) != 3 || !strings.HasPrefix(steps[1].Redaction[2].Why, "added by rita: the customer's name") {
		t.Fatalf("step 1's boxes: %+v %v", steps[1].Redaction, err)
	}
	img, err := p.shot(1)
	if err != nil {
		t.Fatal(err)
	}
	if c := color.RGBAModel.Convert(img.At(asked.X+asked.W/2, asked.Y+asked.H/2)).(color.RGBA); c != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("the box's middle is %v, want black", c)
	}
	if visible() != 3 || !strings.Contains(p.info.Text, "3 boxes") {
		t.Errorf("after blacking out: %d outlines, details %q", visible(), p.info.Text)
	}
}
