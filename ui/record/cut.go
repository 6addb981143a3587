package record

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine/action"
	"waymark/ui"
)

// Explore first, name the tasks after: Explore… starts an episode on a
// start page without a goal (an exploration); once it ended, "Cut a
// task…" under its timeline names a span of its steps as a task of its
// own (dataset.Store.CutSpan), and each cut is replayed from its start
// state in a fresh browser (replay.CheckCut, offline when the exploration
// kept its traffic). The cuts of the exploration are listed under the
// timeline with what was checked: replayable or not and where, and each
// key point, a failed one said as failed.

// ShortcutCut opens the cut dialog once an exploration has ended, as the
// Cut a task… button does.
var ShortcutCut = &desktop.CustomShortcut{KeyName: fyne.KeyX, Modifier: fyne.KeyModifierControl | fyne.KeyModifierShift}

// askByKey opens the cut dialog when the button could (ShortcutCut).
func (c *cutPanel) askByKey() {
	if c.btn.Visible() && !c.btn.Disabled() && c.form == nil {
		c.ask()
	}
}

// cutPanel is the cut button and the list of cuts under the timeline.
type cutPanel struct {
	t    *Tab
	btn  *widget.Button
	list *widget.Label
	// ep is the episode the panel is about, expl whether it is an
	// exploration, cuts the lines shown.
	ep       string
	expl     bool
	checking map[string]bool // cuts being replayed now
	// form is the open cut dialog, or nil.
	form *ui.CutDialog
	// logged is the episode whose enabled cut button was logged (debug).
	logged string
}

func (c *cutPanel) init(t *Tab) { c.t, c.checking = t, map[string]bool{} }

func (c *cutPanel) build() fyne.CanvasObject {
	c.btn = &widget.Button{Text: "Cut a task…", Icon: theme.ContentCutIcon(), OnTapped: c.ask}
	c.btn.Disable()
	c.btn.Hide()
	c.list = widget.NewLabel("")
	c.list.Wrapping = fyne.TextWrapWord
	c.list.SizeName = theme.SizeNameCaptionText
	c.list.Hide()
	return cutBox(c.btn, c.list)
}

// cutBox stacks the panel's parts (no room taken while hidden).
func cutBox(objs ...fyne.CanvasObject) fyne.CanvasObject {
	return &fyne.Container{Layout: layout.NewVBoxLayout(), Objects: objs}
}

// sync shows the panel for an exploration in the timeline: the button
// enabled once it ended.
func (c *cutPanel) sync(ended bool) {
	ep := c.t.steps.episode()
	if ep != c.ep {
		c.ep, c.expl = ep, false
		if st := c.t.ctx.Store; st != nil && ep != "" {
			if e, err := st.GetEpisode(c.t.lifetime, ep); err == nil {
				c.expl = e.Intent == dataset.IntentExploration
			}
		}
		c.refresh()
	}
	if !c.expl {
		c.btn.Hide()
		c.list.Hide()
		return
	}
	c.btn.Show()
	on := ended && len(c.spanSteps()) > 0
	ui.SetEnabled(c.btn, on)
	if on && c.logged != ep {
		c.logged = ep
		c.debugAt("cut button", c.btn)
	}
}

// debugAt logs where obj is on the screen (with --debug), for tests that
// drive the real window.
func (c *cutPanel) debugAt(name string, obj fyne.CanvasObject) {
	c.t.debugAt(name, obj, " episode "+c.ep)
}

// debugAt logs where obj is on the screen, then more (with --debug), for
// tests that drive the real window.
func (r *Tab) debugAt(name string, obj fyne.CanvasObject, more string) {
	d, app := r.opts.Debugf, fyne.CurrentApp()
	if d == nil || app == nil {
		return
	}
	pos, size := app.Driver().AbsolutePositionForObject(obj), obj.Size()
	d("%s at %g,%g size %gx%g%s", name, pos.X, pos.Y, size.Width, size.Height, more)
}

// spanSteps are the exploration's steps a span may hold: kept actions,
// not the one that ended it.
func (c *cutPanel) spanSteps() []stepRow {
	var out []stepRow
	for _, row := range c.t.steps.rows {
		if row.idx > 0 && !row.removed && row.act != nil && row.act.Op != action.Finish {
			out = append(out, row)
		}
	}
	return out
}

// refresh lists the exploration's cuts with what was checked.
func (c *cutPanel) refresh() {
	st := c.t.ctx.Store
	if st == nil || c.ep == "" || !c.expl {
		c.list.SetText("")
		c.list.Hide()
		return
	}
	cuts, err := st.Cuts(c.t.lifetime, c.ep)
	if err != nil {
		c.list.SetText("The tasks cut from this exploration cannot be read: " + err.Error())
		c.list.Show()
		return
	}
	if len(cuts) == 0 {
		c.list.SetText("An exploration: select a step, then Cut a task… to name what a span of steps did.")
		c.list.Show()
		return
	}
	lines := []string{fmt.Sprintf("%s cut from this exploration:", ui.Plural(len(cuts), "task"))}
	for _, e := range cuts {
		h, err := st.HindsightCheckOf(c.t.lifetime, e.ID)
		state := ""
		switch {
		case err != nil:
			state = "its check cannot be read: " + err.Error()
		case c.checking[e.ID]:
			state = "replaying it from its start state…"
		default:
			state = h.Summary()
		}
		lines = append(lines, fmt.Sprintf("• steps %d–%d · %s: %s — %s", e.SpanFrom, e.SpanTo, e.Category, e.Goal, state))
	}
	c.list.SetText(strings.Join(lines, "\n"))
	c.list.Show()
}

// ask opens the cut dialog: the span (from the step selected in the
// timeline, to the last one), the instruction, the category, the key
// points and the answer.
func (c *cutPanel) ask() {
	w := c.t.ctx.Window
	rows := c.spanSteps()
	if w == nil || len(rows) == 0 {
		return
	}
	steps := make([]ui.CutStep, len(rows))
	for i, row := range rows {
		steps[i] = ui.CutStep{Index: row.idx, Text: row.text}
	}
	first := 0
	if row, ok := c.t.steps.selectedRow(); ok {
		first = row.idx
	}
	var f *ui.CutDialog
	f = ui.ShowCutDialog(w, c.ep, c.t.opts.Settings().Annotator, steps, first, func(spec *dataset.CutSpec) {
		if c.form == f {
			c.form = nil
		}
		if spec != nil {
			c.cut(*spec)
		}
	})
	c.form = f
	if d := c.t.opts.Debugf; d != nil {
		d("cut dialog open: steps %d–%d", f.Step(f.From.Selected), f.Step(f.To.Selected))
	}
}

// cut stores the cut and starts its check.
func (c *cutPanel) cut(spec dataset.CutSpec) {
	st := c.t.ctx.Store
	if st == nil {
		return
	}
	e, err := st.CutSpan(c.t.lifetime, spec)
	if e.ID == "" {
		c.t.status.setError("The task was not cut: " + err.Error())
		if w := c.t.ctx.Window; w != nil {
			ui.ShowError(fmt.Errorf("the task was not cut: %w", err), w)
		}
		return
	}
	if err != nil {
		c.t.status.setError(err.Error())
	} else {
		c.t.status.setStatus(fmt.Sprintf("Steps %d–%d cut as “%s”: replaying it from its start state to check it…", e.SpanFrom, e.SpanTo, e.Goal))
	}
	c.t.panel.refresh()
	c.check(e.ID)
}

// check replays cut id from its start state in a fresh browser (off the
// Fyne goroutine) and shows the result.
func (c *cutPanel) check(id string) {
	st, open := c.t.ctx.Store, c.t.opts.Open
	if st == nil || open == nil {
		return
	}
	c.checking[id] = true
	c.refresh()
	s, life := c.t.opts.Settings(), c.t.lifetime
	go func() {
		h, err := checkCut(life, st, open, s, id)
		c.t.ctx.UI().Do(func() {
			delete(c.checking, id)
			c.refresh()
			if d := c.t.opts.Debugf; d != nil {
				d("cut %s checked: %s (err %v)", id, h.Summary(), err)
			}
			switch {
			case err != nil:
				c.t.status.setError("The cut could not be checked: " + err.Error())
			case h.Replayable():
				c.t.status.setStatus("Cut checked: " + h.Summary())
			default:
				c.t.status.setError("Cut checked: " + h.Summary())
			}
		})
	}()
}

// checkCut opens an engine as Record does, with the exploration's action
// set, display and step limit, and replays the cut in it (offline when
// the exploration kept its traffic), under ctx (the screen's lifetime).
func checkCut(ctx context.Context, st *dataset.Store, open func(context.Context, dataset.Task, ui.Settings) (*Opened, error), s ui.Settings, id string) (*dataset.HindsightCheck, error) {
	cut, err := st.GetEpisode(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := replay.Load(ctx, st, cut.ExplorationID)
	if err != nil {
		return nil, err
	}
	t, err := st.GetTask(ctx, cut.TaskID)
	if err != nil {
		return nil, err
	}
	s.Settings = replay.CutSettings(rec, s.Settings)
	o, err := open(ctx, t, s)
	if err != nil {
		return nil, err
	}
	eng := o.Engine
	defer eng.Close()
	if r, ok := dataset.RecorderOf(eng); ok {
		eng = r.Inner() // the check records nothing
	}
	var opts replay.CutCheckOptions
	if ok, err := st.HasArchive(ctx, rec.Episode.ID); err == nil && ok {
		if opts.Archive, err = st.EpisodeArchive(ctx, rec.Episode.ID); err != nil {
			return nil, err
		}
	}
	return replay.CheckCut(ctx, st, eng, id, opts)
}

// CutTask cuts steps from–to of the exploration shown in the timeline as
// a task and checks it, as the cut dialog does (for tests and scripts).
func (r *Tab) CutTask(spec dataset.CutSpec) {
	if spec.ExplorationID == "" {
		spec.ExplorationID = r.steps.episode()
	}
	if spec.Editor == "" {
		spec.Editor = r.opts.Settings().Annotator
	}
	r.cuts.cut(spec)
}

// CutsText is the list of the exploration's cuts as shown.
func (r *Tab) CutsText() string { return r.cuts.list.Text }

// showExplore asks for a start page and starts an exploration of it.
func (p *taskPanel) showExplore() {
	w := p.t.ctx.Window
	if p.t.ctx.Store == nil || w == nil {
		return
	}
	u := ui.NewDialogEntry()
	u.SetPlaceHolder("https://…")
	if p.task != nil {
		u.SetText(p.task.StartURL)
	}
	u.Validator = func(s string) error {
		if action.CheckURL(strings.TrimSpace(s)) != nil {
			return errors.New("the start page is an http:// or https:// address with a host, e.g. http://shop.waymark.test/")
		}
		return nil
	}
	ui.ShowForm(w, "Explore", "Start exploring", "Cancel", []*widget.FormItem{
		{Text: "Start page", Widget: u, HintText: "No goal: act freely, then cut tasks out of the steps when it has ended"},
	}, func(ok bool) {
		if ok {
			p.t.Explore(u.Text)
		}
	}, 520)
}

// Explore starts an exploration of startURL: an episode without a goal.
func (r *Tab) Explore(startURL string) {
	if r.life.busy() {
		r.status.setError("An episode is running: finish, discard or restart it first.")
		return
	}
	t, err := r.ctx.Store.ExploreTask(r.lifetime, strings.TrimSpace(startURL))
	if err != nil {
		r.status.setError("Cannot explore: " + err.Error())
		return
	}
	r.panel.pick(t)
	r.life.start(t)
}
