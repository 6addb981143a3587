// Package review is the Review tab: a queue of recorded episodes, a player
// that replays an episode step by step with each action drawn on its
// screenshot, and a form to label the outcome, with the reviewers' agreement
// and the review guidelines beside it. A reviewer may remove, restore or
// trim steps of an ended episode (the stored steps are never deleted; an
// Edits tab shows the audit log) and continue an episode from a step on
// the Record screen (a branch, listed under its parent in the queue).
// Everything is reachable from the keyboard:
//
//	←/→ step · Home/End first/last · Space before/after · B side by side
//	1–4 outcome · F the step shown is the first failing step · T failure type
//	M/U flag the step
//	C/W/X label the step correct, wrong or unnecessary (again: clear)
//	E/L/O side effect, looping, optimality · K the step is a key screenshot
//	Delete remove or restore the step (asks why)
//	R replay the episode (a task cut from an exploration: from its start state)
//	Ctrl+S save · N save and open the next unreviewed episode · Q queue/label
//
// All methods run on the Fyne goroutine; thumbnails load on a worker
// goroutine that hands them over through the window's bridge
// (ui.Context.UI) and stops when the screen closes.
package review

import (
	"context"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"

	"waymark/dataset"
	"waymark/ui"
)

// Tab is the Review tab. Make it with New.
type Tab struct {
	ctx   *ui.Context
	store *dataset.Store
	// life ends when the screen closes; the thumbnail worker watches it.
	life    context.Context
	endLife context.CancelFunc

	queue  queuePanel
	player player
	form   form

	side                        *container.AppTabs
	labelTab, queueTab, editTab *container.TabItem

	content fyne.CanvasObject
}

var (
	_ ui.Tab             = (*Tab)(nil)
	_ ui.KeyHandler      = (*Tab)(nil)
	_ ui.ShortcutHandler = (*Tab)(nil)
	_ ui.Shower          = (*Tab)(nil)
	_ ui.Closer          = (*Tab)(nil)
)

// New builds the Review tab over ctx.Store. The reviewer is ctx.User().
func New(ctx *ui.Context) *Tab {
	t := &Tab{ctx: ctx, store: ctx.Store}
	t.life, t.endLife = context.WithCancel(context.Background())
	t.player.init(t)
	t.form.init(t)
	t.queue.init(t)
	t.content = t.build()
	t.queue.reload()
	t.form.guides.show()
	t.registerShortcuts()
	return t
}

// registerShortcuts puts Ctrl+S on the window's canvas: a Ctrl combination
// reaches a canvas only when registered there. It acts only while this tab
// shows (AppTabs hides the content of the tabs not selected). A window that
// routes Shortcuts() to the shown tab itself simply replaces this handler.
func (t *Tab) registerShortcuts() {
	if t.ctx.Window == nil {
		return
	}
	for _, sc := range t.Shortcuts() {
		t.ctx.Window.Canvas().AddShortcut(sc, func(s fyne.Shortcut) {
			if t.content.Visible() {
				t.TypedShortcut(s)
			}
		})
	}
}

// Title implements ui.Tab.
func (t *Tab) Title() string { return "Review" }

// Content implements ui.Tab.
func (t *Tab) Content() fyne.CanvasObject { return t.content }

// Shown refreshes the queue, counts and agreement (new recordings may have
// landed while another tab showed).
func (t *Tab) Shown() { t.queue.reload() }

// Close stops the thumbnail worker; thumbnails it was making are not
// shown.
func (t *Tab) Close() { t.endLife() }

func (t *Tab) reviewer() string {
	if t.ctx.User == nil {
		return ""
	}
	return t.ctx.User()
}

// minWidth wraps obj so that it is at least w wide.
func minWidth(obj fyne.CanvasObject, w float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(w, 0))
	return container.NewStack(r, obj)
}

// sidePanelWidth is the width of the side panel (queue, label form,
// edits…), whatever its tabs ask.
const sidePanelWidth = 330

// build lays the tab out within ui.MaxTabWidth: the player (its screenshot
// shrinks to fit, up to 800×600) and the step list, and a side panel whose
// tabs hold the label form (with the guidelines) and the queue (with the
// agreement).
func (t *Tab) build() fyne.CanvasObject {
	t.labelTab = container.NewTabItem("Label", t.form.build())
	t.queueTab = container.NewTabItem("Queue", t.queue.build())
	t.editTab = container.NewTabItem("Edits", t.player.edits.panel())
	t.player.edits.tab = t.editTab
	t.side = container.NewAppTabs(t.queueTab, t.labelTab, t.editTab)
	t.side.OnSelected = func(*container.TabItem) { t.unfocus() }
	// 330 wide whatever its tabs ask: tabs that do not fit go to its "…"
	// menu, and the picture keeps the width for 800×600.
	right := ui.NewFixedWidth(sidePanelWidth, t.side)
	return container.NewBorder(nil, nil, nil, right, t.player.build())
}

// showSide shows the label form (label true) or the queue in the side panel.
func (t *Tab) showSide(label bool) {
	if label {
		t.side.Select(t.labelTab)
	} else {
		t.side.Select(t.queueTab)
	}
}

// TypedKey handles the review keys when no widget inside has taken them.
func (t *Tab) TypedKey(ev *fyne.KeyEvent) bool {
	switch ev.Name {
	case fyne.KeyLeft:
		t.player.step(-1)
	case fyne.KeyRight:
		t.player.step(+1)
	case fyne.KeyHome:
		t.player.show(0, false)
	case fyne.KeyEnd:
		t.player.show(len(t.player.steps)-1, false)
	case fyne.KeySpace:
		t.player.toggleAfter()
	case fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4:
		t.form.pickOutcome(int(ev.Name[0] - '1'))
	case fyne.KeyT:
		t.form.cycleFailureType()
	case fyne.KeyF:
		t.form.markFailingStep()
	case fyne.KeyM:
		t.form.stepFlags.toggle(dataset.FlagMistake)
	case fyne.KeyU:
		t.form.stepFlags.toggle(dataset.FlagUnnecessary)
	case fyne.KeyC, fyne.KeyW, fyne.KeyX:
		t.form.labels.toggle(stepLabelKeys[ev.Name])
	case fyne.KeyN:
		t.saveAndNext()
	case fyne.KeyB:
		t.player.toggleSideBySide()
	case fyne.KeyDelete:
		t.player.edits.askRemoveOrRestore()
	case fyne.KeyQ:
		t.showSide(t.side.Selected() != t.queueTab)
	case fyne.KeyR:
		t.player.replay.start()
	default:
		return t.form.judge.typedKey(ev.Name)
	}
	return true
}

// TypedShortcut handles Ctrl+S (save).
func (t *Tab) TypedShortcut(s fyne.Shortcut) bool {
	if isSave(s) {
		t.form.submit(nil)
		return true
	}
	return false
}

// isSave reports whether s is Ctrl+S (Cmd+S on macOS).
func isSave(s fyne.Shortcut) bool {
	cs, ok := s.(*desktop.CustomShortcut)
	return ok && cs.KeyName == fyne.KeyS && cs.Modifier == fyne.KeyModifierShortcutDefault
}

// Shortcuts lists the canvas shortcuts the tab wants (for windows that route
// shortcuts through Canvas().AddShortcut).
func (t *Tab) Shortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault}}
}

// saveAndNext saves the review and opens the next unreviewed episode.
func (t *Tab) saveAndNext() {
	if t.player.ep == nil || t.form.origin.exploration() {
		t.nextUnreviewed()
		return
	}
	t.form.submit(t.nextUnreviewed)
}

// nextUnreviewed opens the next episode I have not reviewed, in the queue's
// order and filters, after the one shown.
func (t *Tab) nextUnreviewed() {
	after := ""
	if t.player.ep != nil {
		after = t.player.ep.ID
	}
	var it dataset.QueueItem
	var ok bool
	var err error
	if t.queue.state == dataset.QueueConflict {
		it, ok, err = t.nextConflict(after)
	} else {
		it, ok, err = t.store.NextUnreviewed(t.life, t.queue.filter(), after)
	}
	if err != nil {
		t.form.setStatus("Cannot read the queue: "+err.Error(), true)
		return
	}
	if !ok {
		if t.queue.state == dataset.QueueConflict {
			t.form.setStatus("No conflict left: every disagreement matching the filters is settled.", false)
			return
		}
		t.form.setStatus("Nothing left to review in this queue: every episode matching the filters has your review or is settled.", false)
		return
	}
	t.openItem(it)
}

// nextConflict finds the next unsettled conflict after an episode, in the
// queue's order, wrapping around.
func (t *Tab) nextConflict(after string) (dataset.QueueItem, bool, error) {
	f := t.queue.filter()
	f.State = ""
	q, err := t.store.ReviewQueue(t.life, f)
	if err != nil {
		return dataset.QueueItem{}, false, err
	}
	start := 0
	for i, it := range q.Items {
		if it.EpisodeID == after {
			start = i + 1
		}
	}
	for k := range q.Items {
		it := q.Items[(start+k)%len(q.Items)]
		if it.EpisodeID != after && it.In(dataset.QueueConflict) {
			return it, true, nil
		}
	}
	return dataset.QueueItem{}, false, nil
}

// openItem opens an episode in the player and the form.
func (t *Tab) openItem(it dataset.QueueItem) {
	if err := t.player.open(it); err != nil {
		t.form.setStatus("Cannot open the episode: "+err.Error(), true)
		return
	}
	t.form.load(it)
	t.queue.markOpen(it.EpisodeID)
	t.showSide(true)
	if c := t.canvas(); c != nil {
		c.Unfocus()
	}
}

// window is the window the tab shows in (for dialogs): the context's, else
// the driver's window holding the tab's canvas; nil when there is none.
func (t *Tab) window() fyne.Window {
	if t.ctx.Window != nil {
		return t.ctx.Window
	}
	app := fyne.CurrentApp()
	if app == nil {
		return nil
	}
	c := app.Driver().CanvasForObject(t.content)
	for _, w := range app.Driver().AllWindows() {
		if c != nil && w.Canvas() == c {
			return w
		}
	}
	return nil
}

func (t *Tab) canvas() fyne.Canvas {
	if t.ctx.Window != nil {
		return t.ctx.Window.Canvas()
	}
	if app := fyne.CurrentApp(); app != nil {
		return app.Driver().CanvasForObject(t.content)
	}
	return nil
}

// unfocus gives the keys back to the tab after a widget was used with the
// mouse.
func (t *Tab) unfocus() {
	if c := t.canvas(); c != nil {
		c.Unfocus()
	}
}
