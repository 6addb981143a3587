package record

import (
	"fmt"
	"image"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/engine/action"
	"waymark/ui"
)

// The timeline: the episode's steps as they are recorded, each with its
// thumbnail; selecting one shows the page before it in the live view.

// stepRow is one line of the timeline.
type stepRow struct {
	idx     int
	act     *action.Action
	text    string
	url     string
	at      time.Time
	latency time.Duration
	err     string
	thumb   image.Image
	removed bool // undone (or removed in review): kept in the store, left out of the episode
}

// timeline is the step list: its rows, the one selected and the episode
// they are of. The episode's lifecycle fills it through reset, open, add,
// load and markRemoved; what it shows of a step (the page before it) goes
// to the live view.
type timeline struct {
	t         *Tab
	rows      []stepRow
	list      *widget.List
	head      *widget.Label
	branchBtn *widget.Button // "Continue from step K" (continue.go)
	selected  int            // the row shown in the live view, or -1
	// ep is the episode the rows are of ("" until its id is known); gen
	// counts the times the rows were replaced, so a thumbnail made for
	// rows since replaced is dropped.
	ep  string
	gen int
}

// Timeline headings: before the first episode, and once it has steps.
const (
	stepsHeadEmpty = "Steps · they appear here as you record"
	stepsHeadSteps = "Steps · select one to look at it"
)

func (s *timeline) init(t *Tab) { s.t, s.selected = t, -1 }

// rowPitch is the height a step takes in the list, with the gap after it.
func (s *timeline) rowPitch() float32 {
	return s.list.CreateItem().MinSize().Height + theme.Padding()
}

// build makes the timeline with its heading and the keys legend.
func (s *timeline) build() fyne.CanvasObject {
	s.list = &widget.List{
		Length: func() int { return len(s.rows) },
		CreateItem: func() fyne.CanvasObject {
			img := &canvas.Image{FillMode: canvas.ImageFillContain, ScaleMode: canvas.ImageScaleSmooth}
			img.SetMinSize(fyne.NewSize(88, 66))
			act := widget.NewLabel("")
			act.TextStyle = fyne.TextStyle{Bold: true, Monospace: true}
			act.Truncation = fyne.TextTruncateEllipsis
			url := widget.NewLabel("")
			url.Truncation = fyne.TextTruncateEllipsis
			meta := widget.NewLabel("")
			meta.SizeName = theme.SizeNameCaptionText
			meta.Truncation = fyne.TextTruncateEllipsis // the whole error: the status bar, the step's preview
			return container.NewBorder(nil, nil, img, nil, container.New(&ui.TightVBox{}, act, url, meta))
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(s.rows) {
				return
			}
			row := s.rows[id]
			c := o.(*fyne.Container)
			texts := c.Objects[0].(*fyne.Container).Objects
			img := c.Objects[1].(*canvas.Image)
			img.Image = row.thumb
			img.Refresh()
			// An undone step stays listed, greyed and marked, as it stays
			// in the store.
			imp := widget.MediumImportance
			head := fmt.Sprintf("%d · %s", row.idx, row.text)
			if row.removed {
				imp, head = widget.LowImportance, fmt.Sprintf("%d · undone · %s", row.idx, row.text)
			}
			for _, t := range texts[:2] {
				t.(*widget.Label).Importance = imp
			}
			texts[0].(*widget.Label).SetText(head)
			texts[1].(*widget.Label).SetText(row.url)
			meta := row.at.Local().Format("15:04:05")
			if row.latency > 0 {
				meta += fmt.Sprintf(" · %d ms", row.latency.Milliseconds())
			}
			if row.err != "" {
				meta += " · ⚠ " + row.err
			}
			meta += s.t.notes.marker(noteKey{s.ep, row.idx}) // note.go
			texts[2].(*widget.Label).SetText(meta)
		},
		OnSelected:   func(id widget.ListItemID) { s.preview(id); s.t.syncContinue() },
		OnUnselected: func(widget.ListItemID) { s.selected = -1; s.t.live.view.ShowLive(); s.t.syncContinue() },
	}
	s.head = widget.NewLabelWithStyle(stepsHeadEmpty, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.head.Truncation = fyne.TextTruncateEllipsis
	keys := widget.NewLabel("Keys (Ctrl+Shift+…): S start · N next task · R restart · X cut\nB back · W wait · F finish · D discard · Z undo · M note")
	keys.SizeName = theme.SizeNameCaptionText
	s.branchBtn = &widget.Button{Text: "Continue from a step…", Icon: theme.MediaSkipNextIcon(), OnTapped: s.t.askBranch}
	s.branchBtn.Disable()
	// The timeline may shrink to nothing: the divider, not its one-row
	// minimum, decides how much room the queue gets.
	return container.NewBorder(s.head, container.NewVBox(s.branchBtn, s.t.cuts.build(), widget.NewSeparator(), keys), nil, nil, container.New(&keepLatest{s: s}, s.list))
}

// reset empties the timeline for a new episode.
func (s *timeline) reset() {
	s.rows, s.ep = nil, ""
	s.gen++
	s.list.UnselectAll()
	s.list.Refresh()
}

// open names the episode the rows are of, once its id is known.
func (s *timeline) open(ep string) { s.ep = ep }

// episode is the episode the rows are of ("" until its id is known).
func (s *timeline) episode() string { return s.ep }

// add appends a row and makes its thumbnail off the Fyne goroutine.
func (s *timeline) add(row stepRow, obs action.Observation) {
	s.rows = append(s.rows, row)
	i := len(s.rows) - 1
	s.list.Refresh()
	s.list.ScrollToBottom()
	shot, ep, gen, store := obs.Screenshot, s.ep, s.gen, s.t.ctx.Store
	go func() {
		var thumb image.Image
		if store != nil && ep != "" {
			thumb, _ = store.ThumbnailImage(s.t.lifetime, ep, row.idx)
		}
		if thumb == nil && len(shot) > 0 {
			if b, err := dataset.MakeThumbnail(shot); err == nil {
				thumb, _ = decodePNG(b)
			}
		}
		s.t.ctx.UI().Do(func() {
			if gen != s.gen || i >= len(s.rows) {
				return
			}
			s.rows[i].thumb = thumb
			s.list.RefreshItem(i)
		})
	}()
}

// load fills the timeline with episode ep's stored steps (removed ones
// shown as such), their thumbnails made off the Fyne goroutine; their
// notes go to the notes.
func (s *timeline) load(ep string) {
	s.rows, s.ep = nil, ep
	s.gen++
	store := s.t.ctx.Store
	if store != nil && ep != "" {
		steps, err := store.Steps(s.t.lifetime, ep)
		if err != nil {
			s.t.status.setError("The stored steps could not be read for the timeline: " + err.Error())
		}
		for _, st := range steps {
			row := stepRow{idx: st.Index, text: "start", url: st.URL, at: st.CreatedAt, err: ui.StartPageError(action.Code(st.Error)), removed: st.Removed}
			if st.Action != nil {
				a := *st.Action
				row.act, row.text = &a, a.String()
				row.err = ui.ObservationError(action.Code(st.Error))
			}
			if st.Note != "" { // the notes written before
				s.t.notes.remember(noteKey{ep, st.Index}, st.Note)
			}
			s.rows = append(s.rows, row)
		}
	}
	s.list.Refresh()
	s.list.ScrollToBottom()
	rows, gen := append([]stepRow(nil), s.rows...), s.gen
	go func() {
		thumbs := make([]image.Image, len(rows))
		for i, row := range rows {
			if store != nil {
				thumbs[i], _ = store.ThumbnailImage(s.t.lifetime, ep, row.idx)
			}
		}
		s.t.ctx.UI().Do(func() {
			if gen != s.gen {
				return
			}
			for i, th := range thumbs {
				if i < len(s.rows) && s.rows[i].idx == rows[i].idx {
					s.rows[i].thumb = th
				}
			}
			s.list.Refresh()
		})
	}()
}

// markRemoved shows step idx as undone.
func (s *timeline) markRemoved(idx int) {
	for i := range s.rows {
		if idx > 0 && s.rows[i].idx == idx {
			s.rows[i].removed = true
			s.list.RefreshItem(i)
		}
	}
}

// refreshStep redraws step idx of episode ep (its note changed).
func (s *timeline) refreshStep(ep string, idx int) {
	if ep != s.ep {
		return
	}
	for i, row := range s.rows {
		if row.idx == idx {
			s.list.RefreshItem(i)
		}
	}
}

// len is the number of rows, the start page included.
func (s *timeline) len() int { return len(s.rows) }

// kept counts the episode's action steps not undone.
func (s *timeline) kept() int {
	n := 0
	for _, row := range s.rows {
		if row.idx > 0 && !row.removed {
			n++
		}
	}
	return n
}

// latestKept is the latest row that is not removed.
func (s *timeline) latestKept() (stepRow, bool) {
	for i := len(s.rows) - 1; i >= 0; i-- {
		if !s.rows[i].removed {
			return s.rows[i], true
		}
	}
	return stepRow{}, false
}

// selectedRow is the row selected, if any.
func (s *timeline) selectedRow() (stepRow, bool) {
	if s.selected < 0 || s.selected >= len(s.rows) {
		return stepRow{}, false
	}
	return s.rows[s.selected], true
}

// row is the row of step idx, if listed.
func (s *timeline) row(idx int) (stepRow, bool) {
	for _, row := range s.rows {
		if row.idx == idx {
			return row, true
		}
	}
	return stepRow{}, false
}

// unselect returns the live view to the live page.
func (s *timeline) unselect() { s.list.UnselectAll() }

// syncHead says whether there are steps to look at.
func (s *timeline) syncHead() {
	if len(s.rows) > 0 {
		s.head.SetText(stepsHeadSteps)
	} else {
		s.head.SetText(stepsHeadEmpty)
	}
}

// syncBranch offers "Continue from step K" on a kept step of the selected
// row once the episode has ended.
func (s *timeline) syncBranch(ended bool) {
	row, ok := s.branchRow()
	if !ok {
		s.branchBtn.SetText("Continue from a step…")
		s.branchBtn.Disable()
		return
	}
	s.branchBtn.SetText(fmt.Sprintf("Continue from step %d…", row.idx))
	ui.SetEnabled(s.branchBtn, ended && !row.removed && !(row.act != nil && row.act.Op == action.Finish))
}

// branchRow is the row a branch would continue from: the one selected of
// a stored episode.
func (s *timeline) branchRow() (stepRow, bool) {
	if s.ep == "" {
		return stepRow{}, false
	}
	return s.selectedRow()
}

// preview shows a recorded step: the page before the action, with the
// action drawn on it (step 0: the start page).
func (s *timeline) preview(id int) {
	if id < 0 || id >= len(s.rows) {
		return
	}
	row := s.rows[id]
	ep := s.ep
	before := row.idx - 1
	if row.idx == 0 {
		before = 0
	}
	var pointer *image.Point
	for j := id - 1; j >= 0; j-- {
		if a := s.rows[j].act; a != nil && a.Op == action.Click && a.X != nil {
			pointer = &image.Point{X: *a.X, Y: *a.Y}
			break
		}
	}
	banner := fmt.Sprintf("Step %d: %s — the page before it. Click the picture to return to the live page.", row.idx, row.text)
	if row.idx == 0 {
		banner = "Step 0: the start page. Click the picture to return to the live page."
	}
	if n := s.t.notes.note(noteKey{ep, row.idx}); n != "" {
		// The timeline shows the start of a note; the status bar, whole.
		s.t.status.setStatus(fmt.Sprintf("Note on step %d: %s", row.idx, n))
	}
	view, store := s.t.live.view, s.t.ctx.Store
	if store == nil || ep == "" {
		view.ShowStill(nil, row.act, pointer, banner)
		return
	}
	go func() {
		png, err := store.Screenshot(s.t.lifetime, ep, before)
		var img image.Image
		if err == nil && len(png) > 0 {
			img, _ = decodePNG(png)
		}
		s.t.ctx.UI().Do(func() {
			if s.selected == id {
				view.ShowStill(img, row.act, pointer, banner)
			}
		})
	}()
	s.selected = id
}

// keepLatest lays out the step list with no minimum height (the divider,
// not its one-row minimum, decides its room) and, when the list gets
// shorter (the task list unfolds after an episode), scrolls so the chosen
// step, or else the latest, stays in view instead of being cut off below.
type keepLatest struct {
	s *timeline
	h float32
}

func (k *keepLatest) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if size.Height < k.h && k.s.list != nil {
		if k.s.selected >= 0 {
			k.s.list.ScrollTo(k.s.selected)
		} else {
			k.s.list.ScrollToBottom()
		}
	}
	k.h = size.Height
}

func (k *keepLatest) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return noMinHeight{}.MinSize(objs)
}
