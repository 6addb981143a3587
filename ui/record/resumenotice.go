package record

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/ui"
)

// maxResumeListed is how many interrupted episodes the notice lists.
const maxResumeListed = 8

// OfferResume shows, once, the notice that lists this annotator's
// interrupted episodes with Resume and Leave as is. It does nothing while
// an episode runs, without a name or when there are none. The app calls
// it when the window is up and the annotator's name is known.
func (r *Tab) OfferResume() {
	if r.resumeOffered || r.ctx.Store == nil || r.ctx.Window == nil || r.life.state != stIdle || r.opts.Open == nil {
		return
	}
	name := strings.TrimSpace(r.opts.Settings().Annotator)
	if name == "" {
		return
	}
	r.resumeOffered = true
	eps, err := r.ctx.Store.ResumableEpisodes(r.lifetime, name, 0)
	if err != nil {
		r.status.setError("The interrupted episodes could not be listed: " + err.Error())
		return
	}
	if len(eps) > 0 {
		r.showResumeNotice(eps)
	}
}

// resumeLine is one episode in the notice: goal, steps and when it stopped.
func resumeLine(ep dataset.Episode, now time.Time) string {
	goal := []rune(strings.Join(strings.Fields(ep.Goal), " "))
	if len(goal) > 70 {
		goal = append(goal[:69], '…')
	}
	at := ep.StartedAt
	if ep.EndedAt != nil {
		at = *ep.EndedAt
	}
	return fmt.Sprintf("%s — %s, stopped %s", string(goal), ui.Plural(ep.NumSteps, "step"), whenWords(at, now))
}

// whenWords says when, the way people say it: "today 14:02", "yesterday
// 09:10", "Mon 2 Jan 15:04".
func whenWords(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	switch {
	case y1 == y2 && m1 == m2 && d1 == d2:
		return "today " + t.Format("15:04")
	case now.Sub(t) < 48*time.Hour && t.AddDate(0, 0, 1).Day() == d2:
		return "yesterday " + t.Format("15:04")
	case y1 == y2:
		return t.Format("Mon 2 Jan 15:04")
	}
	return t.Format("2 Jan 2006 15:04")
}

// showResumeNotice lists eps (newest first) with Resume (Enter) and Leave
// as is (Escape).
func (r *Tab) showResumeNotice(eps []dataset.Episode) {
	w := r.ctx.Window
	more := 0
	if len(eps) > maxResumeListed {
		more = len(eps) - maxResumeListed
		eps = eps[:maxResumeListed]
	}
	intro := widget.NewLabel(fmt.Sprintf("%s of yours stopped before the end (the window was closed, or Waymark or the browser stopped). "+
		"Resume replays the stored steps in a fresh browser, checks each against the stored one, then goes on recording the same episode.",
		map[bool]string{true: "This episode", false: "These episodes"}[len(eps) == 1]))
	intro.Wrapping = fyne.TextWrapWord
	now := time.Now()
	labels := make([]string, len(eps))
	seen := map[string]int{}
	for i, ep := range eps {
		l := resumeLine(ep, now)
		if n := seen[l]; n > 0 {
			l = fmt.Sprintf("%s (%d)", l, n+1)
		}
		seen[resumeLine(ep, now)]++
		labels[i] = l
	}
	chosen := 0
	var list fyne.CanvasObject
	if len(eps) == 1 {
		l := widget.NewLabelWithStyle(labels[0], fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		l.Wrapping = fyne.TextWrapWord
		list = l
	} else {
		radio := widget.NewRadioGroup(labels, func(s string) {
			for i, l := range labels {
				if l == s {
					chosen = i
				}
			}
		})
		radio.Required = true
		radio.SetSelected(labels[0])
		list = radio
	}
	parts := []fyne.CanvasObject{intro, list}
	if more > 0 {
		parts = append(parts, widget.NewLabel(fmt.Sprintf("…and %s more, older (see Review).", ui.Plural(more, "episode"))))
	}
	var d *dialog.CustomDialog
	resume := func() {
		d.Hide()
		r.resumeDialog = nil
		r.Resume(eps[chosen].ID)
	}
	leave := ui.NewDialogButton("Leave as is", nil, func() { d.Hide(); r.resumeDialog = nil })
	res := ui.NewDialogButton("Resume", theme.MediaPlayIcon(), resume)
	res.Importance = widget.HighImportance
	d = dialog.NewCustomWithoutButtons("Resume an interrupted episode?", container.NewVBox(parts...), w)
	d.SetButtons([]fyne.CanvasObject{leave, res})
	d.SetOnClosed(func() { r.resumeDialog = nil })
	d.Resize(fyne.NewSize(620, 0))
	r.resumeDialog = d
	d.Show()
	ui.WithKeys(w, d, resume, leave, res)
}
