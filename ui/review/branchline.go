package review

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"waymark/dataset"
)

// branchLine is the header line under the goal about branches: for a
// branch, which episode and step it continues (with a button that opens
// the parent); for an episode that was continued, where. It is hidden for
// an episode with neither. The header keeps a row for it, so the picture
// does not move from one episode to the next.
type branchLine struct {
	p         *player
	label     *widget.Label
	parentBtn *widget.Button
	box       *fyne.Container
	parent    *dataset.Episode // the open branch's parent, when readable
}

func (b *branchLine) init(p *player) {
	b.p = p
	// One line; a window too narrow for it ends it with an ellipsis.
	b.label = widget.NewLabel("")
	b.label.Truncation = fyne.TextTruncateEllipsis
	b.parentBtn = widget.NewButton("Open the parent", func() { p.t.unfocus(); b.openParent() })
	b.box = container.NewBorder(nil, nil, nil, b.parentBtn, b.label)
	b.box.Hide()
}

// load shows, for a branch, which episode and step it continues.
func (b *branchLine) load() {
	ep := b.p.ep
	if ep == nil {
		b.box.Hide()
		return
	}
	if ep.ParentEpisodeID == "" {
		b.showBranches(ep.ID)
		return
	}
	b.parentBtn.Show()
	k := 0
	if ep.BranchStep != nil {
		k = *ep.BranchStep
	}
	parent, err := b.p.t.store.GetEpisode(b.p.t.life, ep.ParentEpisodeID)
	if err != nil {
		b.label.SetText(fmt.Sprintf("↳ Branch of episode %s from its step %d (cannot read it: %v)", ep.ParentEpisodeID, k, err))
		b.parentBtn.Disable()
	} else {
		b.parent = &parent
		b.label.SetText(fmt.Sprintf("↳ Branch of %s's episode of %s, continued from its step %d",
			parent.Annotator, parent.StartedAt.Local().Format("2006-01-02 15:04"), k))
		b.parentBtn.Enable()
	}
	b.box.Show()
}

// showBranches says, for an episode that is not a branch, where it was
// continued (its branches), or hides the line.
func (b *branchLine) showBranches(id string) {
	kids, err := b.p.t.store.ListEpisodes(b.p.t.life, dataset.EpisodeFilter{ParentID: id, OldestFirst: true})
	if err != nil || len(kids) == 0 {
		b.box.Hide()
		return
	}
	var at []string
	for _, k := range kids {
		if k.BranchStep != nil {
			at = append(at, fmt.Sprint(*k.BranchStep))
		}
	}
	s := "Continued in 1 branch"
	if len(kids) != 1 {
		s = fmt.Sprintf("Continued in %d branches", len(kids)) // not ui.Plural: "branches"
	}
	if len(at) > 0 {
		s += " (from step " + strings.Join(at, ", ") + ")"
	}
	b.label.SetText(s + ", listed under this episode in the queue")
	b.parentBtn.Hide()
	b.box.Show()
}

// openParent opens the open branch's parent episode.
func (b *branchLine) openParent() {
	p := b.p
	if p.ep == nil || b.parent == nil {
		return
	}
	q, err := p.t.store.ReviewQueue(p.t.life, dataset.QueueFilter{Reviewer: p.t.reviewer(), TaskID: b.parent.TaskID})
	if err != nil {
		p.edits.fail("Cannot open the parent episode", err)
		return
	}
	for _, it := range q.Items {
		if it.EpisodeID == b.parent.ID {
			p.t.openItem(it)
			return
		}
	}
	p.edits.fail("Cannot open the parent episode", fmt.Errorf("the parent episode is %s, so it is not in the review queue", b.parent.Status))
}
