package hfexport

import (
	"testing"

	"waymark/engine/action"
)

// The part of the card after the filter sentence, with literal figures:
// the damaged screenshots sentence, the action table (extended operations
// only when used), the contents tables, the test share, the review
// paragraph and the licence.
func TestRenderCardTail(t *testing.T) {
	splits := []SplitCount{{Name: "train", Tasks: 3, Episodes: 4, Steps: 9}, {Name: "test", Tasks: 1, Episodes: 1, Steps: 2}}
	plain := renderTestCard(t, Options{License: "mit", TestFraction: 0.15}, splits, nil)
	cardWants(t, "plain", plain, []string{
		"| `click` | x, y | left click at a viewport pixel | `mouse_click(x, y)` | 0 |\n",
		"| `finish` | text | end the episode, with the answer if the task asks for one | `send_msg_to_user(\"text\")` | 0 |\n\n",
		"| information | 0 | 0 |\n| navigation | 0 | 0 |\n| interaction | 0 | 0 |\n\n",
		"| success | 0 |\n| failure | 0 |\n| not_executable | 0 |\n| invalid_task | 0 |\n\n| split",
		"| train | 3 | 4 | 9 |\n| test | 1 | 1 | 2 |\n\nSplits are made per task by a hash of the task id (about 15% of the tasks in `test`)",
		"1 annotator recorded the episodes (1 person, 0 agents); 0 reviewers labelled them. 0 of 5 episodes have at least one review." +
			" No episode was reviewed more than once, so agreement between reviewers cannot be measured." +
			" Annotator names are kept as recorded in the `annotator` column.\n\n",
		"## Licence\n\nThe dataset is published under `mit`. Screenshots show",
	}, []string{"not a PNG", "`goto`", "`dblclick`", "`move`", "`drag`", "(none: null)", "settled by", "whose reviewers disagree", "`other`"})

	busy := renderTestCard(t, Options{License: "other", TestFraction: 0.5}, splits, func(s *cardStats) {
		s.badImages = 1
		s.ops[action.Click], s.ops[action.Goto], s.ops[action.Drag] = 5, 1, 2
		s.episodesByCat["navigation"], s.stepsByCat["navigation"] = 2, 7
		s.outcomes["failure"], s.outcomes[""] = 1, 3
		s.annotators["agent:bot"] = 1
		s.reviewers, s.reviewed = 2, 4
		s.multiReviewed, s.agreed, s.kappaOK, s.kappa = 3, 2, true, 0.4567
		s.settled, s.unresolved = 1, 1
	})
	cardWants(t, "busy", busy, []string{
		"1 screenshot stored by the recorder was not a PNG and is left empty (null).\n\n## Action space",
		"| `click` | x, y | left click at a viewport pixel | `mouse_click(x, y)` | 5 |\n",
		"| `goto` | url | open a URL (extended set) | `goto(\"url\")` | 1 |\n" +
			"| `drag` | x, y, x2, y2 | drag from x,y to x2,y2 (extended set) | `mouse_drag_and_drop(x, y, x2, y2)` | 2 |\n\n",
		"| information | 0 | 0 |\n| navigation | 2 | 7 |\n",
		"| failure | 1 |\n| not_executable | 0 |\n| invalid_task | 0 |\n| (none: null) | 3 |\n\n",
		"(about 50% of the tasks in `test`)",
		"2 annotators recorded the episodes (1 person, 1 agent); 2 reviewers labelled them. 4 of 5 episodes have at least one review." +
			" 3 episodes were reviewed by two or more people; their reviews agreed on the outcome for 2 of them (66.7%)." +
			" Fleiss' kappa over those reviews is 0.46. 1 disagreement was settled by a final label." +
			" 1 episode whose reviewers disagree has a null outcome. Annotator names",
		"## Licence\n\nThe licence is `other`: the publisher did not choose a standard licence; ask them before reuse. Screenshots show",
	}, []string{"`dblclick`", "`move`", "published under"})

	more := renderTestCard(t, Options{License: "mit", TestFraction: 0.1}, splits, func(s *cardStats) {
		s.badImages = 2
		s.multiReviewed, s.agreed = 2, 2
		s.settled, s.unresolved = 2, 3
	})
	cardWants(t, "more", more, []string{
		"2 screenshots stored by the recorder were not a PNG and are left empty (null).\n\n",
		" 2 episodes were reviewed by two or more people; their reviews agreed on the outcome for 2 of them (100.0%)." +
			" Fleiss' kappa is undefined here (every review gave the same outcome). 2 disagreements were settled by a final label." +
			" 3 episodes whose reviewers disagree have a null outcome. Annotator names",
		"(about 10% of the tasks in `test`)",
	}, []string{"Fleiss' kappa over"})
}
