package hfexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"waymark/dataset"
	"waymark/dataset/labels"
	"waymark/engine/action"
)

const defaultReportEvery = 50 * time.Millisecond

// reportEvery throttles progress reports (tests set it to 0).
var reportEvery = defaultReportEvery

// exporter is one run of Export over a temporary folder.
type exporter struct {
	ctx      context.Context
	store    *dataset.Store
	o        *Options
	root     string
	eps      []*episodeInfo
	progress func(Progress)

	prog       Progress
	lastReport time.Time
	bytes      int64
	files      []string
	stats      cardStats
	badImages  int // stored screenshots that are not PNGs (written as null)
	// labels gathers labels.jsonl (labels.go).
	labels *labels.Set
}

func (x *exporter) report(force bool) {
	if x.progress == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(x.lastReport) < reportEvery {
		return
	}
	x.lastReport = now
	x.prog.Bytes = x.bytes
	x.progress(x.prog)
}

func (x *exporter) run() (Result, error) {
	x.prog.TotalEpisodes = len(x.eps)
	for _, e := range x.eps {
		x.prog.TotalSteps += e.NumSteps // the kept steps: removed ones are not exported
	}
	x.stats.init()
	x.report(true)

	var splits []SplitCount
	for i := 0; i < len(x.eps); {
		split := x.eps[i].split
		j := i
		for j < len(x.eps) && x.eps[j].split == split {
			j++
		}
		sc, err := x.writeSplit(split, x.eps[i:j])
		if err != nil {
			return Result{}, err
		}
		splits = append(splits, sc)
		i = j
	}
	if err := x.ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := x.stats.loadReviewers(x.ctx, x.store, x.eps); err != nil {
		return Result{}, err
	}
	if err := x.writeLabels(); err != nil {
		return Result{}, err
	}
	x.stats.badImages = x.badImages
	card, err := cardText(x.o, splits, &x.stats)
	if err != nil {
		return Result{}, err
	}
	if err := x.writeFile("README.md", []byte(card)); err != nil {
		return Result{}, err
	}
	x.files = append(x.files, "README.md")
	sort.Strings(x.files)
	m := marker{Format: exportKind.Format, Version: 1, Files: x.files}
	mb, _ := json.MarshalIndent(m, "", "  ")
	if err := x.writeFile(MarkerFile, append(mb, '\n')); err != nil {
		return Result{}, err
	}
	x.report(true)
	res := Result{Splits: splits, Files: x.files, Bytes: x.bytes, BadImages: x.badImages, FailureStepsRemoved: x.stats.failureStepsRemoved}
	for _, s := range splits {
		res.Episodes += s.Episodes
		res.Steps += s.Steps
	}
	return res, nil
}

func (x *exporter) writeFile(name string, data []byte) error {
	f, err := os.Create(filepath.Join(x.root, name))
	if err != nil {
		return err
	}
	cw := &countingWriter{w: f, total: &x.bytes}
	if wrapFile != nil {
		cw.w = wrapFile(f)
	}
	_, err = cw.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (x *exporter) writeSplit(split string, eps []*episodeInfo) (SplitCount, error) {
	steps := newShardSet[stepRow](x, "steps", split, "screenshot", stepsFeatures)
	episodes := newShardSet[episodeRow](x, "episodes", split, "final_screenshot", episodesFeatures)
	defer steps.abort()
	defer episodes.abort()
	tasks := map[string]bool{}
	for _, e := range eps {
		if err := x.ctx.Err(); err != nil {
			return SplitCount{}, err
		}
		tasks[e.TaskID] = true
		if err := x.writeEpisode(e, steps, episodes); err != nil {
			return SplitCount{}, err
		}
		if err := x.writeHAR(e.ID); err != nil {
			return SplitCount{}, err
		}
		if err := x.addLabels(e); err != nil {
			return SplitCount{}, err
		}
		if err := steps.endEpisode(); err != nil {
			return SplitCount{}, err
		}
		if err := episodes.endEpisode(); err != nil {
			return SplitCount{}, err
		}
		x.prog.Episodes++
		x.report(false)
	}
	if steps.rows > 0 {
		if err := steps.finish(); err != nil {
			return SplitCount{}, err
		}
	}
	if err := episodes.finish(); err != nil {
		return SplitCount{}, err
	}
	return SplitCount{Name: split, Tasks: len(tasks), Episodes: episodes.rows, Steps: steps.rows}, nil
}

// episodeEdits reads an episode's audit log: the steps undone while
// recording (the page was brought back to the kept steps before the next
// action, so an undone step's screenshot was not what the next action saw),
// and the steps it was resumed at.
func (x *exporter) episodeEdits(id string) (undone map[int]bool, resumedAt []*int64, err error) {
	undone = map[int]bool{}
	resumedAt = []*int64{}
	for ed, err := range x.store.EpisodeEdits(x.ctx, id) {
		if err != nil {
			return nil, nil, fmt.Errorf("reading the edits of episode %s: %w", id, err)
		}
		switch ed.Kind {
		case dataset.EditUndo:
			undone[ed.Step] = true
		case dataset.EditResume:
			resumedAt = append(resumedAt, i64(int64(ed.Step)))
		}
	}
	return undone, resumedAt, nil
}

// writeEpisode writes the edited episode: its removed steps are left out,
// the kept actions are numbered 1, 2, … in step_index and keep their stored
// index in recorded_step. A step's observation is what was on the screen
// when its action was chosen: the stored step just before it, unless an
// undo removed that one (then the newest step before it that was not
// undone). The review's flags and failure step, keyed by stored index, are
// mapped to the exported numbering.
func (x *exporter) writeEpisode(e *episodeInfo, steps *shardSet[stepRow], episodes *shardSet[episodeRow]) error {
	category := classIndex(dataset.Categories, e.Category)
	undone, resumedAt, err := x.episodeEdits(e.ID)
	if err != nil {
		return err
	}
	g := x.grounding(e.ID)
	stepLabels, err := x.store.SettledStepLabels(x.ctx, e.ID)
	if err != nil {
		return err
	}
	var (
		haveSeen  bool // an observation to show with the next action
		seenIdx   int64
		seenShot  []byte
		seenURL   string
		seenBoxes []action.RedactBox // blacked out of seenShot
		haveLast  bool               // the last kept step: the episode's final screenshot
		lastIdx   int64
		lastShot  []byte
		summaries []*episodeStep
		written   int
		exported  = map[int]int64{} // stored index → step_index
		removed   = []*int64{}
		actors    []string // of the kept action steps, in order
		own       = dataset.ActorOf(e.Annotator)
		others    int // kept action steps by someone other than the annotator
	)
	for st, err := range x.store.EpisodeSteps(x.ctx, e.ID) {
		if err != nil {
			return fmt.Errorf("reading the steps of episode %s: %w", e.ID, err)
		}
		var (
			idx        = int64(st.Index)
			actionJSON = st.ActionJSON
			url        = st.URL
			stepErr    = string(st.Error)
			done       = st.Done
			shot       = st.Screenshot
			totalMS    = st.Timings.TotalMS
		)
		switch {
		case st.Removed && idx > 0:
			removed = append(removed, i64(idx))
		case idx > 0:
			written++
			n := int64(written)
			exported[st.Index] = n
			r := stepRow{
				EpisodeID:    str(e.ID),
				TaskID:       str(e.TaskID),
				StepIndex:    i64(n),
				RecordedStep: i64(idx),
				Goal:         str(e.Goal),
				Category:     category,
				ActionJSON:   str(actionJSON),
				NextURL:      str(url),
				Error:        str(stepErr),
				Done:         &done,
				DurationMS:   i64(totalMS),
				Note:         str(st.Note),
			}
			actor := st.Actor
			if actor == "" { // a step stored without one: the annotator's
				actor = own
			}
			r.Actor = str(actor)
			if e.BranchStep == nil || st.Index > *e.BranchStep { // a branch's replayed prefix is no takeover
				actors = append(actors, actor)
				if actor != own {
					others++
				}
			}
			if e.Outcome != "" { // the label's flags; null without a label
				r.ReviewFlags = []*string{}
				for _, fl := range e.StepFlags[st.Index] {
					r.ReviewFlags = append(r.ReviewFlags, str(fl))
				}
			}
			if l, ok := stepLabels[st.Index]; ok {
				r.StepLabel = str(l)
			}
			if t := st.CreatedAt; !t.IsZero() {
				r.Timestamp = &t
			}
			if haveSeen {
				r.URL = str(seenURL)
				if x.usable(seenShot) {
					r.Screenshot = &hfImage{Bytes: seenShot, Path: str(fmt.Sprintf("%s/step_%04d.png", e.ID, seenIdx))}
				}
			}
			sum := &episodeStep{StepIndex: i64(n), RecordedStep: i64(idx), URL: r.URL}
			var a action.Action
			if actionJSON != "" && json.Unmarshal([]byte(actionJSON), &a) == nil && a.Op != "" {
				r.Action = typedAction(a)
				r.BrowserGymAction = strOrNil(BrowserGymAction(a))
				sum.Op, sum.X, sum.Y, sum.Text, sum.DY = r.Action.Op, r.Action.X, r.Action.Y, r.Action.Text, r.Action.DY
				x.stats.ops[a.Op]++
			}
			g.fill(&r, st, a)
			if haveSeen && r.Screenshot != nil {
				r.Redaction = redactionJSON(seenBoxes)
				x.stats.redactBoxes += len(seenBoxes)
			}
			summaries = append(summaries, sum)
			if err := steps.write(r, len(seenShot)); err != nil {
				return err
			}
			x.prog.Steps++
			x.report(false)
			if err := x.ctx.Err(); err != nil {
				return err
			}
		}
		if !st.Removed {
			haveLast, lastIdx, lastShot = true, idx, shot
		}
		if !undone[st.Index] {
			haveSeen, seenIdx, seenShot, seenURL, seenBoxes = true, idx, shot, url, st.Redaction
			if err := g.see(st.Index); err != nil {
				return err
			}
		}
	}

	r := episodeRow{
		EpisodeID:     str(e.ID),
		TaskID:        str(e.TaskID),
		Goal:          str(e.Goal),
		Category:      category,
		StartURL:      str(e.StartURL),
		Annotator:     str(e.Annotator),
		ActionSet:     str(string(e.ActionSet)),
		NumReviews:    i64(int64(e.NumReviews)),
		FailureType:   strOrNil(e.FailureType),
		FinalAnswer:   str(e.FinalAnswer),
		FinalURL:      str(e.FinalURL),
		Status:        str(string(e.Status)),
		EndReason:     str(string(e.EndReason)),
		NumSteps:      i64(int64(written)),
		Steps:         summaries,
		NumEdits:      i64(int64(e.NumEdits)),
		RemovedSteps:  removed,
		ResumedAt:     resumedAt,
		ReferenceTime: str(e.ReferenceTime),
		Timezone:      str(e.Timezone),
		Locale:        str(e.Locale),
	}
	if err := x.stats.intents.add(x.ctx, x.store, e, &r); err != nil {
		return fmt.Errorf("episode %s: its origin: %w", e.ID, err)
	}
	interventions := dataset.CountInterventions(own, actors)
	r.NumInterventions = i64(int64(interventions))
	x.stats.addInterventions(interventions, others)
	x.stats.addPolicy(e.EngineJSON)
	if err := x.stats.addArchive(x.ctx, x.store, e.ID); err != nil {
		return fmt.Errorf("episode %s: its replay archive: %w", e.ID, err)
	}
	edited := len(removed) > 0
	r.Edited = &edited
	if r.Steps == nil {
		r.Steps = []*episodeStep{}
	}
	if e.ParentEpisodeID != "" {
		r.ParentEpisodeID = str(e.ParentEpisodeID)
	}
	if e.BranchStep != nil {
		r.BranchStep = i64(int64(*e.BranchStep))
	}
	if e.Outcome != "" {
		r.Outcome = classIndex(dataset.Outcomes, e.Outcome)
		r.ReviewReason = str(e.Reason)
	}
	if fs := e.FailureStep; fs != nil {
		// Step 0 (the start page) keeps its number; a failing step an
		// edit removed has none in the edited episode: null, and so is
		// the failure type, which describes that step (never a type
		// without its step).
		if *fs == 0 {
			r.FailureStep = i64(0)
		} else if n, ok := exported[*fs]; ok {
			r.FailureStep = i64(n)
		} else {
			r.FailureType = nil
			x.stats.failureStepsRemoved++
		}
	}
	if e.AutoReward != nil {
		v := *e.AutoReward
		r.AutoReward = &v
	}
	start := e.StartedAt
	if !start.IsZero() {
		r.StartedAt = &start
		if e.EndedAt != nil {
			if end := *e.EndedAt; !end.IsZero() {
				r.DurationMS = i64(end.Sub(start).Milliseconds())
			}
		}
	}
	if haveLast && x.usable(lastShot) {
		r.FinalScreenshot = &hfImage{Bytes: lastShot, Path: str(fmt.Sprintf("%s/step_%04d.png", e.ID, lastIdx))}
	}
	if err := episodes.write(r, len(lastShot)); err != nil {
		return err
	}
	x.stats.add(e, written, start, edited, len(resumedAt) > 0)
	return nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// usable reports whether a stored screenshot can go in an Image cell: a
// missing one (renderer timeout) or one that is not a PNG becomes null, so
// the viewer and datasets never choke on a cell; the store keeps the bytes.
func (x *exporter) usable(shot []byte) bool {
	if len(shot) == 0 {
		return false
	}
	if !bytes.HasPrefix(shot, pngSignature) {
		x.badImages++
		return false
	}
	return true
}

// marker is the content of MarkerFile.
type marker struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Files   []string `json:"files"`
}
