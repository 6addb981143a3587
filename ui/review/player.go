package review

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
	"waymark/ui/overlay"
)

// player replays an episode: the screenshot a step's action was taken on,
// with the action drawn on it ("before"), or the screenshot that came back
// ("after"), a list of steps with lazily loaded thumbnails, and the step's
// URL, title, error and timings.
type player struct {
	t *Tab

	ep    *dataset.Episode
	task  dataset.Task
	item  dataset.QueueItem
	steps []dataset.Step
	cur   int
	after bool

	view *overlay.View
	// afterView shows the result beside the action in side-by-side mode.
	afterView  *overlay.View
	sideBySide bool
	mode       *widget.Label
	goal       *widget.Label
	meta       *widget.Label
	info       *widget.Label
	infoLines  int // the room of the step's text, in lines (fitInfo)
	stepList   *widget.List
	selecting  bool
	// edits removes, restores and trims steps, continues from one, and
	// keeps the audit log (edits.go).
	edits stepEdits
	// branch is the header's line about branches (branchline.go).
	branch branchLine
	// replay runs the episode again and shows the verdicts
	// (replaypanel.go).
	replay replayPanel
	// requests lists the step's network requests (requests.go).
	requests requestsPanel
	// target draws the acted-on element's box (targetbox.go).
	target targetBox
	// redaction outlines the blacked-out boxes and blacks out more
	// (redactbox.go).
	redaction redactBoxes
	// gif saves the episode as an animated picture (gifsave.go).
	gif gifSaver

	// decoded screenshots, newest use last (a few are kept for ←/→).
	shots   map[int]image.Image
	shotUse []int
	// thumbs makes the step list's thumbnails (thumbs.go).
	thumbs thumbLoader
}

const keepShots = 8

func (p *player) init(t *Tab) {
	p.t = t
	p.view = overlay.New()
	p.afterView = overlay.New()
	p.afterView.Hide()
	p.mode = widget.NewLabel("")
	p.mode.TextStyle = fyne.TextStyle{Bold: true}
	p.mode.Truncation = fyne.TextTruncateEllipsis // beside the "Show" boxes
	p.goal = widget.NewLabel("Choose an episode in the queue, or press N for the next unreviewed one.")
	p.goal.Wrapping = fyne.TextWrapWord
	p.goal.TextStyle = fyne.TextStyle{Bold: true}
	p.meta = widget.NewLabel("")
	p.meta.Wrapping = fyne.TextWrapWord
	p.info = widget.NewLabel("")
	p.infoLines = minInfoLines
	p.info.Wrapping = fyne.TextWrapWord
	p.shots = map[int]image.Image{}
	p.stepList = &widget.List{
		Length:     func() int { return len(p.steps) },
		CreateItem: p.createStepRow,
		UpdateItem: p.updateStepRow,
		OnSelected: func(id widget.ListItemID) {
			if p.selecting {
				return
			}
			p.show(id, false)
			p.t.unfocus()
		},
	}
	p.stepList.ExtendBaseWidget(p.stepList)
	p.edits.init(p)
	p.branch.init(p)
	p.thumbs.init(p, t.life)
}

func (p *player) build() fyne.CanvasObject {
	// One height for every episode (the goal on two lines, the summary on
	// three, then the branch line of an episode that has one; more
	// scrolls), so the picture does not jump from one to the next.
	header := ui.NewFixedHeight(func() float32 { return ui.LabelsHeight(2, 5) }, container.NewVScroll(container.NewVBox(p.goal, p.meta, p.branch.box)))
	prev := widget.NewButton("← Prev", func() { p.step(-1); p.t.unfocus() })
	next := widget.NewButton("Next →", func() { p.step(+1); p.t.unfocus() })
	flip := widget.NewButton("Before/after (Space)", func() { p.toggleAfter(); p.t.unfocus() })
	both := widget.NewButton("Side by side (B)", func() { p.toggleSideBySide(); p.t.unfocus() })
	view := p.redaction.attach(p, p.target.attach(p, p.view))
	// The two "Show" boxes sit beside the step line, not stacked in the
	// buttons' row (which doubled its height and pushed the step's text
	// below an 800-high window).
	bar := container.NewVBox(container.NewHBox(prev, next, flip, both, p.replay.attach(p)), p.edits.bar(),
		container.NewBorder(nil, nil, nil, container.NewHBox(p.target.toggle(), p.redaction.toggle()), p.mode))
	// The step's text has the room of the open episode's longest on every
	// step (more scroll), so the picture and the buttons keep their place
	// from step to step.
	info := ui.NewFixedHeight(func() float32 { return ui.LabelsHeight(1, p.infoLines) }, container.NewVScroll(p.info))
	centre := container.NewBorder(header, nil, nil, nil, container.New(fitLayout{}, view, p.afterView, container.New(ui.TightVBox{}, bar, info)))
	p.requests.attach(p)
	stepsTitle := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Steps", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), p.gif.attach(p))
	steps := container.NewBorder(stepsTitle, nil, nil, nil, p.stepList)
	return container.NewBorder(nil, nil, nil, minWidth(steps, 205), centre)
}

// fitLayout lays out the screenshot, the result screenshot beside it when
// that one is visible (side by side), and the step bar under them. Each
// screenshot gets the largest 4:3 area that fits, at most 800×600 (one
// viewport pixel per logical unit), in whole units, from the top left.
// Smaller windows get scaled-down screenshots rather than a scroll bar.
type fitLayout struct{}

func (fitLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	view, after, below := objs[0], objs[1], objs[2]
	pad := theme.Padding()
	belowH := below.MinSize().Height + pad
	avail := size.Width
	if after.Visible() {
		avail = (size.Width - pad) / 2
	}
	w := min(avail, (size.Height-belowH)*4/3, float32(action.ViewportWidth))
	w = float32(int(w/4) * 4) // a multiple of 4 keeps the height whole
	view.Move(fyne.NewPos(0, 0))
	view.Resize(fyne.NewSize(w, w*3/4))
	after.Move(fyne.NewPos(w+pad, 0))
	after.Resize(fyne.NewSize(w, w*3/4))
	below.Move(fyne.NewPos(0, w*3/4+pad))
	below.Resize(fyne.NewSize(size.Width, belowH-pad))
}

func (fitLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[2].MinSize()
	return fyne.NewSize(max(minViewWidth, m.Width), minViewWidth*3/4+theme.Padding()+m.Height)
}

// Lines of a step's text under the picture: at least the page before and
// after and the timings, at most a few more (an error or the end, a note,
// an edit, who acted); a longer text scrolls.
const (
	minInfoLines = 3
	maxInfoLines = 7
)

// fitInfo gives the step's text the lines of the open episode's longest.
func (p *player) fitInfo() {
	n := minInfoLines
	for k := range p.steps {
		n = max(n, strings.Count(p.stepHeader(k)+stepInfo(p.steps, k, false), "\n")+1)
	}
	p.infoLines = min(n, maxInfoLines)
}

// minViewWidth is the smallest the screenshot gets (logical units).
const minViewWidth = 560

// open loads an episode's metadata and step list and shows its first action
// at once; thumbnails follow lazily as rows become visible.
func (p *player) open(it dataset.QueueItem) error {
	ep, err := p.t.store.GetEpisode(p.t.life, it.EpisodeID)
	if err != nil {
		return err
	}
	task, err := p.t.store.GetTask(p.t.life, ep.TaskID)
	if err != nil {
		return err
	}
	steps, err := p.t.store.Steps(p.t.life, ep.ID)
	if err != nil {
		return err
	}
	if len(steps) == 0 {
		return fmt.Errorf("episode %s has no stored steps", ep.ID)
	}
	p.ep, p.task, p.item, p.steps = &ep, task, it, steps
	p.thumbs.reset()
	p.shots, p.shotUse = map[int]image.Image{}, nil
	p.goal.SetText(task.Goal)
	p.meta.SetText(episodeMeta(ep, task, steps) + "\n" + answerText(ep, task))
	p.edits.load()
	p.fitInfo()
	p.branch.load()
	p.gif.opened()
	first := 0
	if len(steps) > 1 {
		first = 1 // the first action, drawn on the reset screenshot
	}
	p.stepList.Refresh()
	p.show(first, false)
	p.stepList.ScrollToTop()
	return nil
}

// reloadSteps reads the open episode and its steps again after an edit,
// keeping the step shown and the thumbnails made.
func (p *player) reloadSteps() error {
	if p.ep == nil {
		return nil
	}
	ep, err := p.t.store.GetEpisode(p.t.life, p.ep.ID)
	if err != nil {
		return err
	}
	steps, err := p.t.store.Steps(p.t.life, ep.ID)
	if err != nil {
		return err
	}
	p.ep, p.steps = &ep, steps
	p.meta.SetText(episodeMeta(ep, p.task, steps) + "\n" + answerText(ep, p.task))
	p.edits.load()
	p.fitInfo()
	p.branch.load()
	p.gif.opened()
	p.stepList.Refresh()
	p.show(p.cur, p.after)
	return nil
}

// step moves by d steps.
func (p *player) step(d int) {
	if p.ep == nil {
		return
	}
	p.show(p.cur+d, false)
}

// toggleAfter flips between the screenshot the action was taken on and the
// one it produced.
func (p *player) toggleAfter() {
	if p.ep == nil {
		return
	}
	p.show(p.cur, !p.after)
}

// toggleSideBySide shows the result beside the action (key B), or one at
// a time again.
func (p *player) toggleSideBySide() {
	p.sideBySide = !p.sideBySide
	if p.sideBySide {
		p.afterView.Show()
	} else {
		p.afterView.Hide()
	}
	if p.ep != nil {
		p.show(p.cur, false)
	}
	p.view.Refresh()
}

// show displays step k (clamped); after picks the result screenshot.
func (p *player) show(k int, after bool) {
	if p.ep == nil || len(p.steps) == 0 {
		return
	}
	k = max(0, min(k, len(p.steps)-1))
	if k == 0 {
		after = false // the reset has no "before"
	}
	if p.sideBySide {
		after = false // the result shows beside
	}
	p.cur, p.after = k, after
	st := p.steps[k]
	var a *action.Action
	shotIdx := k
	if k > 0 && !after {
		shotIdx = beforeStep(p.steps, k)
		a = st.Action
	}
	p.view.SetPointer(p.pointerBefore(k))
	img, err := p.shot(shotIdx)
	switch {
	case err != nil:
		_ = p.view.SetPNG(nil, a)
		p.info.SetText(fmt.Sprintf("Cannot read the screenshot of step %d: %v", shotIdx, err))
	default:
		p.view.Set(img, a)
		p.info.SetText(p.stepHeader(k) + stepInfo(p.steps, k, after))
	}
	if p.sideBySide {
		if res, err := p.shot(k); err == nil {
			p.afterView.Set(res, nil)
		} else {
			_ = p.afterView.SetPNG(nil, nil)
		}
	}
	switch {
	case k == 0:
		p.mode.SetText(fmt.Sprintf("Step 0 of %d · the start page", len(p.steps)-1))
	case p.sideBySide:
		p.mode.SetText(fmt.Sprintf("Step %d of %d · %s | result", k, len(p.steps)-1, actionText(st.Action)))
	case after:
		p.mode.SetText(fmt.Sprintf("Step %d of %d · AFTER: the result", k, len(p.steps)-1))
	default:
		p.mode.SetText(fmt.Sprintf("Step %d of %d · BEFORE: %s", k, len(p.steps)-1, actionText(st.Action)))
	}
	p.mode.Importance = widget.MediumImportance
	if st.Removed {
		p.mode.Importance = widget.WarningImportance
		p.mode.Text += " · REMOVED"
	}
	p.mode.Refresh() // the colour too
	p.edits.stepChanged(k)
	p.target.stepShown()
	p.redaction.stepShown(shotIdx)
	p.requests.stepChanged(k)
	p.selecting = true
	p.stepList.Select(k)
	p.selecting = false
	p.t.form.stepChanged(k)
}

// stepHeader is what the edits say about step k: who removed it and why,
// and the annotator's note; "" or lines ending in a newline.
func (p *player) stepHeader(k int) string {
	var b strings.Builder
	if s := p.edits.removedLine(k); s != "" {
		b.WriteString(s + "\n")
	}
	if n := strings.TrimSpace(p.steps[k].Note); n != "" {
		b.WriteString("Note: " + n + "\n")
	}
	// Only a step someone other than the annotator made (a takeover) says
	// who: the line costs the picture its height on every other step.
	if a := p.steps[k].Actor; k > 0 && a != "" && p.ep != nil && a != dataset.ActorOf(p.ep.Annotator) {
		b.WriteString("Acted by " + a + "\n")
	}
	return b.String()
}

// pointerBefore is where the pointer was when step k's action ran: where
// the actions before it left it (overlay.PointerAfter, as the GIF draws it).
func (p *player) pointerBefore(k int) *image.Point {
	var pt *image.Point
	for i := 1; i < k && i < len(p.steps); i++ {
		if !p.steps[i].Removed {
			pt = overlay.PointerAfter(pt, p.steps[i].Action)
		}
	}
	return pt
}

// shot returns step i's decoded screenshot, keeping a few in memory.
func (p *player) shot(i int) (image.Image, error) {
	if img, ok := p.shots[i]; ok {
		return img, nil
	}
	b, err := p.t.store.Screenshot(p.t.life, p.ep.ID, i)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("no screenshot was stored for this step")
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("the stored screenshot is not a readable PNG: %w", err)
	}
	p.shots[i] = img
	p.shotUse = append(p.shotUse, i)
	if len(p.shotUse) > keepShots {
		delete(p.shots, p.shotUse[0])
		p.shotUse = p.shotUse[1:]
	}
	return img, nil
}

// --- step list with lazy thumbnails ---

func (p *player) createStepRow() fyne.CanvasObject {
	img := &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleFastest}
	img.SetMinSize(fyne.NewSize(72, 54))
	title := widget.NewLabel("0 · start")
	title.Truncation = fyne.TextTruncateEllipsis
	title.SizeName = theme.SizeNameCaptionText
	title.TextStyle = fyne.TextStyle{Bold: true}
	sub := widget.NewLabel("")
	sub.Truncation = fyne.TextTruncateEllipsis
	sub.SizeName = theme.SizeNameCaptionText
	return container.NewBorder(nil, nil, img, nil, container.NewVBox(title, sub))
}

func (p *player) updateStepRow(id widget.ListItemID, o fyne.CanvasObject) {
	if id >= len(p.steps) {
		return
	}
	box := o.(*fyne.Container)
	var img *canvas.Image
	var texts *fyne.Container
	for _, c := range box.Objects {
		switch c := c.(type) {
		case *canvas.Image:
			img = c
		case *fyne.Container:
			texts = c
		}
	}
	st := p.steps[id]
	title := texts.Objects[0].(*widget.Label)
	title.Importance = widget.MediumImportance
	img.Translucency = 0
	if st.Removed {
		title.Importance = widget.LowImportance // greyed: left out of the edited episode
		img.Translucency = 0.6
	}
	title.SetText(fmt.Sprintf("%d · %s", id, actionText(st.Action)))
	var sub []string
	if p.ep != nil && st.Actor != "" && st.Actor != dataset.ActorOf(p.ep.Annotator) {
		// Someone other than the annotator acted (a person who took
		// over an agent's episode): the badge says who.
		if !st.Removed {
			title.Importance = widget.WarningImportance
		}
		sub = append(sub, "by "+st.Actor)
	}
	if s := p.edits.rowNote(id); s != "" {
		sub = append(sub, s)
	}
	if st.Note != "" {
		sub = append(sub, "✎ "+st.Note)
	}
	if v := p.replay.rowVerdict(st.Index); v != "" {
		sub = append(sub, v)
	}
	if l := p.t.form.labels.rowText(id); l != "" {
		sub = append(sub, l)
	}
	if p.t.form.judge.keySteps[id] {
		sub = append(sub, "key screenshot")
	}
	if fl := p.t.form.stepFlags.byStep[id]; len(fl) > 0 {
		sub = append(sub, "⚑ "+strings.Join(fl, ", "))
	}
	if p.t.form.failStep != nil && p.t.form.outcome == dataset.OutcomeFailure && *p.t.form.failStep == id {
		sub = append(sub, "first failure")
	}
	if st.Error != "" {
		sub = append(sub, "error: "+st.Error)
	}
	if len(sub) == 0 {
		sub = append(sub, hostPath(st.URL))
	}
	texts.Objects[1].(*widget.Label).SetText(strings.Join(sub, " · "))
	// The thumbnail of step k is its result screenshot.
	if th, ok := p.thumbs.images[id]; ok {
		img.Image = th
	} else {
		img.Image = nil
		p.thumbs.request(id)
	}
	img.Refresh()
}

func hostPath(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return u
}
