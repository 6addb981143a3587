package benchexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"waymark/dataset"
	"waymark/dataset/labels"
	"waymark/engine/action"
)

// exporter writes one export into root.
type exporter struct {
	ctx   context.Context
	store *dataset.Store
	o     *Options
	root  string
	res   Result
	// labels gathers labels.jsonl and the guidelines versions it names.
	labels *labels.Set
	w      formatWriter
}

// formatWriter writes one format's files.
type formatWriter interface {
	episode(e *episode) error
	finish() error
}

// episode is one exported episode: its metadata, task, kept steps (with
// screenshots and extras) and labels.
type episode struct {
	dataset.LabeledEpisode
	Task dataset.Task
	// Steps are the edited episode's kept steps in order (Index is the
	// stored index; a removed step leaves a gap).
	Steps  []dataset.Step
	Extras []*action.Extras // per kept step, nil where none were stored
	// Reviews are the reviewers' own current labels, primary first (see
	// labelsOf); Settled is the episode's label (nil without an outcome).
	Reviews []Label
	Settled *Label
	// Agent is the annotator as a folder name.
	Agent string
}

func (x *exporter) run(eps []dataset.LabeledEpisode, progress func(Progress)) error {
	var err error
	if x.labels, err = labels.NewSet(x.ctx, x.store); err != nil {
		return err
	}
	switch x.o.Format {
	case AgentRewardBench:
		x.w = newARB(x)
	case OnlineMind2Web:
		x.w = newOM2W(x)
	case WebArenaVerified:
		x.w = newWAV(x)
	}
	for i, l := range eps {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		e, err := x.load(l)
		if err != nil {
			return fmt.Errorf("episode %s: %w", l.ID, err)
		}
		if err := x.w.episode(e); err != nil {
			return fmt.Errorf("episode %s: %w", l.ID, err)
		}
		for _, lb := range e.Reviews {
			x.labels.Add(lb)
		}
		if e.Settled != nil {
			x.labels.Add(*e.Settled)
			if e.Settled.Outcome != "" {
				x.res.Settled++
			}
		}
		x.res.Labels += len(e.Reviews)
		x.res.Episodes++
		if progress != nil {
			progress(Progress{Episodes: i + 1, TotalEpisodes: len(eps), Bytes: x.res.Bytes})
		}
	}
	if err := x.w.finish(); err != nil {
		return err
	}
	if err := x.writeFile(labels.File, x.labels.Bytes()); err != nil {
		return err
	}
	for _, g := range x.labels.Guidelines() {
		if err := x.writeFile(g.Path, g.Text); err != nil {
			return err
		}
	}
	files := slices.Clone(x.res.Files)
	sort.Strings(files)
	m, _ := json.MarshalIndent(marker{Format: exportKind.Format, Benchmark: string(x.o.Format), Files: files}, "", "  ")
	return writeOwnerFile(filepath.Join(x.root, MarkerFile), m)
}

// load reads an episode's task, kept steps, extras and labels.
func (x *exporter) load(l dataset.LabeledEpisode) (*episode, error) {
	e := &episode{LabeledEpisode: l, Agent: folderName(l.Annotator)}
	var err error
	if e.Task, err = x.store.GetTask(x.ctx, l.TaskID); err != nil {
		return nil, err
	}
	for st, err := range x.store.EditedSteps(x.ctx, l.ID) {
		if err != nil {
			return nil, err
		}
		e.Steps = append(e.Steps, st)
		xs, err := x.store.StepExtras(x.ctx, l.ID, st.Index)
		if err != nil && x.ctx.Err() != nil {
			return nil, x.ctx.Err()
		}
		e.Extras = append(e.Extras, xs) // unreadable extras are written as none
	}
	if len(e.Steps) == 0 {
		return nil, fmt.Errorf("it has no stored step")
	}
	revs, err := x.store.CurrentReviews(x.ctx, l.ID)
	if err != nil {
		return nil, err
	}
	e.Reviews, e.Settled = x.labelsOf(e, revs)
	return e, nil
}

// writeFile writes root/rel (slash-separated), owner-only, and counts it.
func (x *exporter) writeFile(rel string, b []byte) error {
	p := filepath.Join(x.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	if err := writeOwnerFile(p, b); err != nil {
		return err
	}
	x.res.Files = append(x.res.Files, path.Clean(rel))
	x.res.Bytes += int64(len(b))
	return nil
}

// writeJSON writes v as indented JSON.
func (x *exporter) writeJSON(rel string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return x.writeFile(rel, b.Bytes())
}

func writeOwnerFile(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// folderName makes an annotator ("agent:gpt-4o", "alice") a folder name:
// characters other than letters, digits, '.', '_' and '-' become '_'.
func folderName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		return "_"
	}
	return out
}

// answerOf is the final answer, as agents and people leave it.
func answerOf(e *episode) string { return strings.TrimSpace(e.FinalAnswer) }

// actionOf returns step i's action (nil for the start page).
func actionOf(st dataset.Step) *action.Action { return st.Action }

// thoughtOf is what an agent said about an action (its metadata's
// "thought" or "reasoning"), else the annotator's note on the step, else "".
func thoughtOf(st dataset.Step) string {
	if st.Action != nil {
		for _, k := range []string{"thought", "reasoning", "think"} {
			if v, ok := st.Action.Metadata[k].(string); ok && strings.TrimSpace(v) != "" {
				return v
			}
		}
	}
	return st.Note
}
