package review

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
	"waymark/dataset/replay"
	"waymark/engine"
)

// ReplayOptions let the Review player replay the open episode ("Replay").
type ReplayOptions struct {
	// Open starts a fresh engine for rec (the settings the Record screen
	// uses, with rec.Settings applied: the episode's action set and step
	// limit). The panel closes it when the replay ends.
	Open func(ctx context.Context, rec *replay.Recording) (engine.Engine, error)
	// PracticeHosts are the practice sites' host names: a replay of any
	// other start URL carries a warning that the site keeps server state.
	PracticeHosts []string
}

// SetReplay lets the player replay episodes. Without it, Replay says that
// this window cannot start a browser. Call it on the Fyne goroutine.
func (t *Tab) SetReplay(o ReplayOptions) { t.player.replay.opts = o }

// replayPanel is the player's Replay: it runs the open episode's stored
// actions again in a fresh browser on a background goroutine, shows the
// progress, then each step's verdict (verdict, score, why) in the side
// panel's Replay tab, with the episode's past replays. A replay never
// changes the episode; its result is stored beside it. Cancel stops it;
// closing the screen stops it without storing or showing anything.
type replayPanel struct {
	p    *player
	opts ReplayOptions

	btn                 *widget.Button // the player's "Replay"
	startBtn, cancelBtn *widget.Button
	goOn                *widget.Check
	offline             *widget.Check // serve the replay from the episode's recorded traffic
	tab                 *container.TabItem
	title, status       *widget.Label
	warning, detail     *widget.Label
	bar                 *widget.ProgressBar
	verdicts, runsList  *widget.List
	content             fyne.CanvasObject

	// epID is the episode the panel shows, goal its task's goal; archID
	// the episode whose recorded traffic serves it offline (a cut's
	// exploration); cut says it is a task cut from an exploration, which
	// replays from its start state (cutreplay.go).
	epID, goal string
	archID     string
	cut        bool
	runs       []dataset.ReplayRun
	// shown is the index in runs of the run whose verdicts are listed; -1
	// lists live, the running replay's verdicts so far.
	shown int
	live  dataset.ReplayRun
	total int // steps the running replay will compare (for the bar)
	last  int // the last step it replays (its stored index)

	running bool
	cancel  context.CancelFunc
	gen     int // which replay the background goroutine's reports belong to
	// wg counts replay goroutines still running (tests wait on it).
	wg sync.WaitGroup
}

// attach builds the panel, adds its tab to the side panel and returns the
// player's Replay button.
func (r *replayPanel) attach(p *player) fyne.CanvasObject {
	r.p = p
	r.shown = -1
	r.btn = widget.NewButtonWithIcon("Replay", theme.MediaReplayIcon(), func() { r.start(); p.t.unfocus() })
	r.startBtn = widget.NewButtonWithIcon("Replay", theme.MediaReplayIcon(), func() { r.start(); p.t.unfocus() })
	r.startBtn.Importance = widget.HighImportance
	r.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { r.stop(); p.t.unfocus() })
	r.cancelBtn.Disable()
	r.goOn = widget.NewCheck("Go on after a divergence", nil)
	r.offline = widget.NewCheck("Offline (the recorded traffic)", nil)
	r.title = widget.NewLabelWithStyle("Replay", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.title.Wrapping = fyne.TextWrapWord
	intro := widget.NewLabel("Runs the episode's stored actions again in a fresh browser and compares each step with the stored one: address, title, error, end and screenshot. The episode itself is never changed; each replay is kept below.")
	intro.Wrapping = fyne.TextWrapWord
	intro.SizeName = theme.SizeNameCaptionText
	r.status = widget.NewLabel("Open an episode, then press Replay.")
	r.status.Wrapping = fyne.TextWrapWord
	r.warning = widget.NewLabel("")
	r.warning.Wrapping = fyne.TextWrapWord
	r.warning.Importance = widget.WarningImportance
	r.warning.Hide()
	r.detail = widget.NewLabel("")
	r.detail.Wrapping = fyne.TextWrapWord
	r.bar = widget.NewProgressBar()
	r.bar.Hide()
	r.verdicts = &widget.List{
		Length:     func() int { return len(r.shownRun().Steps) },
		CreateItem: twoLineRow,
		UpdateItem: r.updateVerdictRow,
		OnSelected: r.selectVerdict,
	}
	r.verdicts.ExtendBaseWidget(r.verdicts)
	r.runsList = &widget.List{
		Length:     func() int { return len(r.runs) },
		CreateItem: twoLineRow,
		UpdateItem: r.updateRunRow,
		OnSelected: func(id widget.ListItemID) {
			if id < len(r.runs) && r.shown != id && !r.running {
				r.shown = id
				r.showRun()
			}
			p.t.unfocus()
		},
	}
	r.runsList.ExtendBaseWidget(r.runsList)

	top := container.NewVBox(r.title, intro, container.NewHBox(r.startBtn, r.cancelBtn), r.goOn, r.offline, r.bar, r.status, r.warning, widget.NewSeparator())
	steps := container.NewBorder(widget.NewLabelWithStyle("Verdicts", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), r.detail, nil, nil, r.verdicts)
	past := container.NewBorder(widget.NewLabelWithStyle("Past replays", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, r.runsList)
	split := container.NewVSplit(steps, past)
	split.Offset = 0.65
	r.content = container.NewBorder(top, nil, nil, nil, split)
	r.tab = container.NewTabItem("Replay", r.content)
	if side := p.t.side; side != nil {
		side.Append(r.tab)
		prev := side.OnSelected
		side.OnSelected = func(it *container.TabItem) {
			if prev != nil {
				prev(it)
			}
			if it == r.tab {
				r.follow()
			}
		}
	}
	return r.btn
}

// showTab brings the Replay tab to the front.
func (r *replayPanel) showTab() {
	if r.p.t.side != nil && r.tab != nil {
		r.p.t.side.Select(r.tab)
	}
}

// follow shows the open episode's past replays, unless a replay runs.
func (r *replayPanel) follow() {
	ep := r.p.ep
	if r.running || ep == nil || ep.ID == r.epID {
		return
	}
	r.epID, r.goal = ep.ID, r.p.task.Goal
	r.follows(ep)
	r.live = dataset.ReplayRun{}
	r.loadRuns()
	r.shown = -1
	if len(r.runs) > 0 {
		r.shown = 0
	}
	if r.cut {
		r.setStatus("Press Replay to replay this cut from its start state (the exploration's steps before it), then its steps.", false)
	} else {
		r.setStatus("Press Replay to run this episode again.", false)
	}
	r.followArchive(r.archID)
	r.showRun()
}

// followArchive offers the offline replay when episode id has its own
// recorded traffic (and checks it: offline is what such an episode needs to
// replay as recorded).
func (r *replayPanel) followArchive(id string) {
	ok, err := r.p.t.store.HasArchive(r.p.t.life, id)
	if err != nil || !ok {
		r.offline.SetChecked(false)
		r.offline.Disable()
		r.offline.SetText("Offline: no recorded traffic")
		return
	}
	r.offline.Enable()
	r.offline.SetText("Offline (the recorded traffic)")
	r.offline.SetChecked(true)
}

// start replays the open episode in the background.
func (r *replayPanel) start() {
	r.showTab()
	ep := r.p.ep
	switch {
	case r.running:
		r.setStatus("A replay is running: wait for it, or cancel it first.", false)
		return
	case ep == nil:
		r.setStatus("Open an episode first: Replay runs the open episode again.", true)
		return
	case r.opts.Open == nil:
		r.setStatus("This window cannot start a browser for a replay; use waymark replay EPISODE on the command line.", true)
		return
	}
	r.gen++
	gen, id := r.gen, ep.ID
	if r.epID != id {
		r.follows(ep)
		r.followArchive(r.archID)
	}
	r.epID, r.goal = id, r.p.task.Goal
	r.loadRuns()
	r.live = dataset.ReplayRun{EpisodeID: id, StartedAt: time.Now(), Steps: []dataset.ReplayStep{}}
	r.shown = -1
	r.total, r.last = len(r.p.steps), len(r.p.steps)-1
	ctx, cancel := context.WithCancel(r.p.t.life)
	r.cancel = cancel
	r.running = true
	r.startBtn.Disable()
	r.btn.Disable()
	r.cancelBtn.Enable()
	r.goOn.Disable()
	r.bar.SetValue(0)
	r.bar.Show()
	r.warning.Hide()
	r.setStatus("Starting a fresh browser…", false)
	r.showRun()
	r.offline.Disable()
	r.wg.Add(1)
	if r.cut {
		go r.runCut(ctx, gen, id, r.offline.Checked)
		return
	}
	go r.run(ctx, gen, id, r.goOn.Checked, r.offline.Checked)
}

// stop cancels the running replay; the steps replayed so far are stored.
func (r *replayPanel) stop() {
	if !r.running || r.cancel == nil {
		return
	}
	r.cancel()
	r.cancelBtn.Disable()
	r.setStatus("Cancelling…", false)
}

// run is the background replay. Its reports reach the panel through the
// window's bridge, and only while the screen is open and this replay is the
// panel's latest.
func (r *replayPanel) run(ctx context.Context, gen int, id string, goOn, offline bool) {
	defer r.wg.Done()
	life, store := r.p.t.life, r.p.t.store
	do := func(f func()) {
		r.p.t.ctx.UI().Do(func() {
			if life.Err() == nil && gen == r.gen {
				f()
			}
		})
	}
	fail := func(msg string) { do(func() { r.finish(nil, errors.New(msg)) }) }
	rec, err := replay.Load(ctx, store, id)
	if err != nil {
		if ctx.Err() != nil {
			fail("Cancelled before the replay started; nothing was stored.")
		} else {
			fail("Cannot replay this episode: " + err.Error())
		}
		return
	}
	total, last := rec.Kept()+1, rec.LastKept()
	do(func() { r.total, r.last = total, last })
	eng, err := r.opts.Open(ctx, rec)
	if err != nil {
		if ctx.Err() != nil {
			fail("Cancelled before the replay started; nothing was stored.")
		} else {
			fail("Cannot start a browser for the replay: " + err.Error())
		}
		return
	}
	opts := replay.Options{Continue: goOn, PracticeHosts: r.opts.PracticeHosts,
		Progress: func(s replay.StepResult) {
			v := storedVerdict(s)
			do(func() { r.progress(v) })
		}}
	from := rec.StartURL
	if offline {
		if opts.Archive, err = store.EpisodeArchive(ctx, id); err != nil {
			eng.Close()
			fail("Cannot replay this episode offline: " + err.Error())
			return
		}
		from += " offline, from its recorded traffic"
	}
	do(func() { r.setStatus(fmt.Sprintf("Replaying %s…", from), false) })
	rep, runErr := replay.Run(ctx, eng, rec, opts)
	info := eng.Info()
	eng.Close()
	if life.Err() != nil {
		return // the screen closed: nothing is stored or shown
	}
	if runErr != nil && ctx.Err() != nil && len(rep.Steps) == 0 {
		fail("Cancelled before the replay started; nothing was stored.")
		return
	}
	run := rep.StoredRun(info, runErr)
	// The screen's life, not the run's: a cancelled run keeps the steps it
	// compared (Close ended life above).
	saved, err := store.SaveReplayRun(life, run)
	if err != nil {
		saved = run // shown, though not kept
		err = fmt.Errorf("the replay ran, but its result could not be stored: %w", err)
	}
	do(func() { r.finish(&saved, err) })
}

func storedVerdict(s replay.StepResult) dataset.ReplayStep {
	return dataset.ReplayStep{Step: s.Step, Action: s.Action, Verdict: s.Verdict, Score: s.Score, Why: s.Why}
}

// progress shows one more step's verdict of the running replay.
func (r *replayPanel) progress(v dataset.ReplayStep) {
	r.live.Steps = append(r.live.Steps, v)
	if r.total > 0 {
		r.bar.SetValue(min(1, float64(len(r.live.Steps))/float64(r.total)))
	}
	r.setStatus(fmt.Sprintf("Replaying: step %d of %d…", v.Step, r.last), false)
	if r.shown < 0 {
		r.verdicts.Refresh()
		r.verdicts.ScrollToBottom()
		if r.p != nil && r.p.stepList != nil {
			r.p.stepList.Refresh()
		}
	}
}

// finish ends the running replay: run is what was stored (nil when the
// replay could not start), err why something went wrong.
func (r *replayPanel) finish(run *dataset.ReplayRun, err error) {
	r.running = false
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.startBtn.Enable()
	r.btn.Enable()
	r.cancelBtn.Disable()
	r.goOn.Enable()
	r.followArchive(r.archID)
	r.bar.Hide()
	r.loadRuns()
	r.shown = -1
	if run != nil && run.ID != "" {
		for i := range r.runs {
			if r.runs[i].ID == run.ID {
				r.shown = i
			}
		}
	}
	if run != nil && r.shown < 0 {
		r.live = *run // not stored: still show what it found
	}
	r.showRun()
	msg, bad := "", err != nil
	if run != nil {
		msg = runSummary(*run)
		bad = bad || !run.OK()
	}
	if err != nil {
		msg = strings.TrimSpace(msg + " " + ui1(err.Error()))
	}
	r.setStatus(msg, bad)
}

func (r *replayPanel) setStatus(msg string, bad bool) {
	r.status.Importance = widget.MediumImportance
	if bad {
		r.status.Importance = widget.DangerImportance
	}
	r.status.SetText(msg)
}
