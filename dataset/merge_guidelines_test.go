package dataset

import (
	"context"
	"strings"
	"testing"
)

// The review guidelines travel with a merge where this database has none
// of its own, and are kept where it has: a team lead merging a colleague
// who edited theirs is told the two differ, and nothing else changes.
func TestMergeReviewGuidelines(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lead := mgStorePath(t, dir, "lead.db")
	bob := mgStorePath(t, dir, "bob.db")
	amy := mgStorePath(t, dir, "amy.db")
	same := mgStorePath(t, dir, "same.db")
	const bobs = "# Bob's rules\n\nA step that only scrolls is unnecessary.\n"
	const amys = "# Amy's rules\n\nMark a wrong click wrong.\n"
	if err := bob.SetGuidelines(ctx, bobs); err != nil {
		t.Fatal(err)
	}
	if err := amy.SetGuidelines(ctx, amys); err != nil {
		t.Fatal(err)
	}
	if err := same.SetGuidelines(ctx, bobs); err != nil {
		t.Fatal(err)
	}
	bobPath, amyPath, samePath := closeForMerge(t, bob), closeForMerge(t, amy), closeForMerge(t, same)

	// The lead has not written guidelines: Bob's are taken, and said.
	rep := mgMerge2(t, lead, bobPath)
	if g, err := lead.Guidelines(ctx); err != nil || g != bobs {
		t.Fatalf("after merging bob.db the guidelines are %q (%v), want Bob's", g, err)
	}
	if !rep.GuidelinesTaken || len(rep.Issues) != 0 {
		t.Errorf("merging bob.db: GuidelinesTaken %v, issues %v; want taken, no issue", rep.GuidelinesTaken, rep.Issues)
	}
	if s := rep.Summary(); !strings.Contains(s, "  review guidelines: taken from "+bobPath+" (this database had none of its own)\n") {
		t.Errorf("summary does not say the guidelines were taken:\n%s", s)
	}
	// The same text again: nothing to say.
	rep = mgMerge2(t, lead, samePath)
	if rep.GuidelinesTaken || len(rep.Issues) != 0 || strings.Contains(rep.Summary(), "guidelines") {
		t.Errorf("merging the same guidelines: taken %v, issues %v, summary:\n%s", rep.GuidelinesTaken, rep.Issues, rep.Summary())
	}
	// Amy's differ: the lead's (now Bob's) stay, and the report says so.
	rep = mgMerge2(t, lead, amyPath)
	if g, _ := lead.Guidelines(ctx); g != bobs {
		t.Fatalf("merging amy.db replaced the guidelines with %q", g)
	}
	if rep.GuidelinesTaken || len(rep.Issues) != 1 {
		t.Fatalf("merging amy.db: taken %v, issues %v; want one issue", rep.GuidelinesTaken, rep.Issues)
	}
	want := MergeIssue{Kind: "guidelines", ID: "review guidelines",
		Detail:     "the other file's review guidelines differ from this database's (3 lines there, 3 here)",
		Resolution: "kept this database's; the other file's are not copied"}
	if rep.Issues[0] != want {
		t.Errorf("issue:\n%+v\nwant:\n%+v", rep.Issues[0], want)
	}
	// A colleague who never wrote guidelines changes nothing.
	plain := mgStorePath(t, dir, "plain.db")
	rep = mgMerge2(t, lead, closeForMerge(t, plain))
	if g, _ := lead.Guidelines(ctx); g != bobs || rep.GuidelinesTaken || len(rep.Issues) != 0 {
		t.Errorf("merging a file without guidelines: guidelines %q, taken %v, issues %v", g, rep.GuidelinesTaken, rep.Issues)
	}
}
