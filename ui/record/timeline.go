package record

import (
	"fmt"
	"image"
	"strings"
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

// stepList is the timeline's widgets and rows.
type stepList struct {
	rows      []stepRow
	timeline  *widget.List
	stepsHead *widget.Label
	selected  int // the row shown in the live view, or -1
}

// Timeline headings: before the first episode, and once it has steps.
const (
	stepsHeadEmpty = "Steps · they appear here as you record"
	stepsHeadSteps = "Steps · select one to look at it"
)

// buildTimeline makes the timeline with its heading and the keys legend.
func (r *Tab) buildTimeline() fyne.CanvasObject {
	r.timeline = &widget.List{
		Length: func() int { return len(r.rows) },
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
			return container.NewBorder(nil, nil, img, nil, container.New(&ui.TightVBox{}, act, url, meta))
		},
		UpdateItem: func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(r.rows) {
				return
			}
			row := r.rows[id]
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
			meta += r.noteMarker(row.idx) // note.go
			texts[2].(*widget.Label).SetText(meta)
		},
		OnSelected:   func(id widget.ListItemID) { r.preview(id); r.syncContinue() },
		OnUnselected: func(widget.ListItemID) { r.selected = -1; r.view.ShowLive(); r.syncContinue() },
	}
	r.stepsHead = widget.NewLabelWithStyle(stepsHeadEmpty, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.stepsHead.Truncation = fyne.TextTruncateEllipsis
	keys := widget.NewLabel("Keys (Ctrl+Shift+…): S start · N next task · R restart\nB back · W wait · F finish · D discard · Z undo · M note")
	keys.SizeName = theme.SizeNameCaptionText
	// The timeline may shrink to nothing: the divider, not its one-row
	// minimum, decides how much room the queue gets.
	return container.NewBorder(r.stepsHead, container.NewVBox(r.buildBranchButton(), widget.NewSeparator(), keys), nil, nil, container.New(&keepLatest{r: r}, r.timeline))
}

// addRow appends a timeline row and makes its thumbnail off the Fyne
// goroutine.
func (r *Tab) addRow(row stepRow, obs action.Observation) {
	r.rows = append(r.rows, row)
	i := len(r.rows) - 1
	r.timeline.Refresh()
	r.timeline.ScrollToBottom()
	shot := obs.Screenshot
	ep := r.episodeID
	run := r.runner
	frameless := r.frameless
	go func() {
		var thumb image.Image
		if r.ctx.Store != nil && ep != "" {
			thumb, _ = r.ctx.Store.ThumbnailImage(ep, row.idx)
		}
		if thumb == nil && len(shot) > 0 {
			if b, err := dataset.MakeThumbnail(shot); err == nil {
				thumb, _ = decodePNG(b)
			}
		}
		var full *image.RGBA
		if frameless && len(shot) > 0 {
			if img, err := decodePNG(shot); err == nil {
				full = ToRGBA(img)
			}
		}
		r.ctx.UI().Do(func() {
			if run != r.runner || i >= len(r.rows) {
				return
			}
			r.rows[i].thumb = thumb
			r.timeline.RefreshItem(i)
			if full != nil {
				r.view.SetFrame(full)
			}
		})
	}()
}

// preview shows a recorded step: the page before the action, with the
// action drawn on it (step 0: the start page).
func (r *Tab) preview(id int) {
	if id < 0 || id >= len(r.rows) {
		return
	}
	row := r.rows[id]
	ep := r.episodeID
	before := row.idx - 1
	if row.idx == 0 {
		before = 0
	}
	var pointer *image.Point
	for j := id - 1; j >= 0; j-- {
		if a := r.rows[j].act; a != nil && a.Op == action.Click && a.X != nil {
			pointer = &image.Point{X: *a.X, Y: *a.Y}
			break
		}
	}
	banner := fmt.Sprintf("Step %d: %s — the page before it. Click the picture to return to the live page.", row.idx, row.text)
	if row.idx == 0 {
		banner = "Step 0: the start page. Click the picture to return to the live page."
	}
	if n := r.notes[noteKey{ep, row.idx}]; n != "" {
		// The timeline shows the start of a note; the status bar, whole.
		r.status.setStatus(fmt.Sprintf("Note on step %d: %s", row.idx, n))
	}
	if r.ctx.Store == nil || ep == "" {
		r.view.ShowStill(nil, row.act, pointer, banner)
		return
	}
	go func() {
		png, err := r.ctx.Store.Screenshot(ep, before)
		var img image.Image
		if err == nil && len(png) > 0 {
			img, _ = decodePNG(png)
		}
		r.ctx.UI().Do(func() {
			if sel := r.timelineSelected(); sel == id {
				r.view.ShowStill(img, row.act, pointer, banner)
			}
		})
	}()
	r.selected = id
}

func (r *Tab) timelineSelected() int { return r.selected }

// queueChanged shows the step running now and those queued behind it.
func (r *Tab) queueChanged(running *action.Action, q []action.Action) {
	r.running, r.queued = running, q
	r.showPending()
}

// showPending shows what is on its way to the page under the live view:
// the step running, the queue, the scroll and the text being typed.
func (r *Tab) showPending() {
	var parts []string
	if r.running != nil {
		parts = append(parts, "▶ "+r.running.String())
	}
	if n := len(r.queued); n > 0 {
		s := make([]string, 0, 3)
		for i, a := range r.queued {
			if i == 3 {
				s = append(s, "…")
				break
			}
			s = append(s, a.String())
		}
		parts = append(parts, fmt.Sprintf("queued %d: %s", n, strings.Join(s, ", ")))
	}
	if r.scrollDY != 0 {
		parts = append(parts, fmt.Sprintf("scroll %+d…", r.scrollDY))
	}
	if r.typing != "" {
		t := []rune(r.typing)
		if len(t) > 40 {
			t = append([]rune("…"), t[len(t)-40:]...)
		}
		parts = append(parts, "typing “"+string(t)+"▌”")
	}
	r.view.SetPending(strings.Join(parts, "   "))
}

// keepLatest lays out the step list with no minimum height (the divider,
// not its one-row minimum, decides its room) and, when the list gets
// shorter (the task list unfolds after an episode), scrolls so the chosen
// step, or else the latest, stays in view instead of being cut off below.
type keepLatest struct {
	r *Tab
	h float32
}

func (k *keepLatest) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if size.Height < k.h && k.r.timeline != nil {
		if k.r.selected >= 0 {
			k.r.timeline.ScrollTo(k.r.selected)
		} else {
			k.r.timeline.ScrollToBottom()
		}
	}
	k.h = size.Height
}

func (k *keepLatest) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return noMinHeight{}.MinSize(objs)
}
