package benchexport

import (
	"waymark/dataset"
	"waymark/dataset/labels"
)

// Label is one line of labels.jsonl (package labels builds them, and the
// Hugging Face export writes the same lines).
type Label = labels.Label

// labelsOf turns an episode's current reviews into labels: the reviewers'
// own, primary first, and the settled one (labels.Set.Of).
func (x *exporter) labelsOf(e *episode, revs []dataset.Review) ([]Label, *Label) {
	return x.labels.Of(x.ctx, e.LabeledEpisode, revs)
}
