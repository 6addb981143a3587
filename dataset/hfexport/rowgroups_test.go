package hfexport

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"waymark/dataset"
)

// rowGroupsUnderCap exports 5 episodes of 50 steps (three pictures taking
// turns) with the row-group picture cap set to capBytes, and returns the
// sizes of the steps file's row groups.
func rowGroupsUnderCap(t *testing.T, capBytes func(pngs [][]byte) int64) []int64 {
	t.Helper()
	f := newFixture(t, makePNGs(t, 3, false))
	f.task("t", dataset.Interaction)
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("e%d", i)
		f.episode(id, "t", "alice", dataset.StatusFinished, 50)
		f.review(id, "rita", dataset.OutcomeSuccess, false)
	}
	old := maxGroupImageBytes
	maxGroupImageBytes = capBytes(f.pngs)
	defer func() { maxGroupImageBytes = old }()
	o := opts(filepath.Join(t.TempDir(), "ds"))
	o.TestFraction = 0
	mustExport(t, f, o)
	return checkParquet(t, filepath.Join(o.Out, "steps", "train-00000-of-00001.parquet"), "screenshot").groupRows
}

// A group closes when its pictures reach the cap exactly (the three
// pictures of the first three rows add up to it), and the picture count
// starts again with each group: a cap just above 100 of the largest picture
// never closes a group before the 100-row limit does.
func TestRowGroupPictureCapEdges(t *testing.T) {
	exact := rowGroupsUnderCap(t, func(p [][]byte) int64 { return int64(len(p[0]) + len(p[1]) + len(p[2])) })
	if len(exact) == 0 || exact[0] != 3 {
		t.Errorf("cap = the first three pictures: row groups %v, want the first of 3 rows", exact)
	}
	above := rowGroupsUnderCap(t, func(p [][]byte) int64 { return int64(100*max(len(p[0]), len(p[1]), len(p[2])) + 1) })
	if !slices.Equal(above, []int64{100, 100, 50}) {
		t.Errorf("cap above 100 pictures: row groups %v, want 100,100,50", above)
	}
}
