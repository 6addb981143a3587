package hfexport

import (
	"context"
	"fmt"
	"strings"

	"waymark/dataset"
	"waymark/engine/action"
)

// The element-grounded columns of the steps config: the observation's
// accessibility tree as text (axtree_txt), the element the action was aimed
// at (target) and the action written against that element's bid
// (browsergym_element_action).

// stepTarget is action.Target as a Parquet struct (declared in the order of
// targetFeature).
type stepTarget struct {
	Bid      *string    `parquet:"bid"`
	Tag      *string    `parquet:"tag"`
	Role     *string    `parquet:"role"`
	Name     *string    `parquet:"name"`
	BBox     []*float64 `parquet:"bbox,optional,list"` // x, y, width, height
	Selector *string    `parquet:"selector"`
}

var targetFeature = structOf("target",
	value("bid", "string"),
	value("tag", "string"),
	value("role", "string"),
	value("name", "string"),
	listOfValue("bbox", "float64"),
	value("selector", "string"),
)

func targetRow(t *action.Target) *stepTarget {
	if t == nil {
		return nil
	}
	r := &stepTarget{Bid: str(t.Bid), Tag: str(t.Tag), Role: str(t.Role), Name: str(t.Name), Selector: str(t.Selector)}
	for _, v := range t.BBox {
		v := v
		r.BBox = append(r.BBox, &v)
	}
	return r
}

// groundingStats count the grounded columns for the card.
type groundingStats struct {
	steps, targets, elements, axtrees int
	// badExtras are stored extras that could not be read (written as a
	// null axtree_txt; the store keeps the bytes).
	badExtras int
}

// episodeGrounding follows one episode's observations while it is written.
type episodeGrounding struct {
	x    *exporter
	ep   string
	seen *string // axtree_txt of the observation the next action is taken on
}

func (x *exporter) grounding(episodeID string) *episodeGrounding {
	return &episodeGrounding{x: x, ep: episodeID}
}

// see makes stored step idx the observation the next action is taken on.
func (g *episodeGrounding) see(idx int) error {
	g.seen = nil
	xs, err := g.x.store.StepExtras(context.Background(), g.ep, idx)
	switch {
	case err != nil && g.x.ctx.Err() != nil:
		return g.x.ctx.Err()
	case err != nil:
		g.x.stats.grounding.badExtras++
	case xs != nil:
		g.seen = str(xs.AXTreeTxt)
	}
	return nil
}

// fill sets the grounded columns of a step row whose action is a (Op ""
// when it could not be read).
func (g *episodeGrounding) fill(r *stepRow, st dataset.Step, a action.Action) {
	s := &g.x.stats.grounding
	s.steps++
	r.AXTreeTxt = g.seen
	if g.seen != nil {
		s.axtrees++
	}
	r.Target = targetRow(st.Target)
	if st.Target != nil {
		s.targets++
	}
	if a.Op != "" {
		r.BrowserGymElementAction = strOrNil(action.BrowserGymElement(a, st.Target))
	}
	if r.BrowserGymElementAction != nil {
		s.elements++
	}
}

// writeGroundingCard documents the grounded columns and the two BrowserGym
// forms of each action.
func writeGroundingCard(b *strings.Builder, s *groundingStats) {
	b.WriteString("## Element grounding and BrowserGym actions\n\n")
	b.WriteString("Each action is written twice in BrowserGym's action language (`HighLevelActionSet`), as Python " +
		"calls its parser reads. `browsergym_action` is the coordinate form, from the `coord`, `nav` and `chat` " +
		"subsets: `mouse_click(312, 188)`, `mouse_dblclick`, `mouse_move`, `mouse_drag_and_drop`, " +
		"`keyboard_type(\"text\")`, `keyboard_press(\"Enter\")`, `go_back()`, `goto(\"url\")`, " +
		"`send_msg_to_user(\"answer\")`, plus `scroll(0, dy)` (BrowserGym files it under `bid` although it takes " +
		"no element) and `noop(3000)` for a wait (`noop` is in every action set). " +
		"`browsergym_element_action` is the element form, from the `bid`, `nav` and `chat` subsets: " +
		"`click('a51')`, `dblclick('a51')`, `hover('a51')` for a pointer move, `fill('a12', 'red shoes')` for " +
		"typed text, `press('a12', 'Enter')` for a key, `scroll(0, 300)`, `go_back()`, `goto('url')`, " +
		"`noop(3000)` and `send_msg_to_user('42')`. It is null when the action has no element to aim at: the " +
		"pointer was over no marked element, no element had the keyboard focus, no target was recorded, or " +
		"the action is a drag (only the element where a drag starts is recorded). `fill` sets a field's value " +
		"while the person's typing added to it: the two agree when the field was empty, as it usually is.\n\n")
	b.WriteString("`target` is the element the action was aimed at, read from the page just before the action: " +
		"the element under the pointer for a click, double click, move or drag, the focused element for typed " +
		"text and keys. Its fields are `bid`, `tag` (lower-case tag name), `role` (ARIA role), `name` " +
		"(accessible name), `bbox` (`[x, y, width, height]` in pixels of the 800×600 viewport, the screenshot's " +
		"pixels) and `selector` (a CSS selector that finds the element again in the same page state; frames are " +
		"joined by ` >>> `). It is null when no target was recorded (older recordings, an OpenEnv server, or " +
		"observation extras turned off).\n\n")
	b.WriteString("Element ids (`bid`) are given as BrowserGym's page marking gives them (`frame_mark_elements.js`): " +
		"after each step settles, every element of the page and of each of its frames carries a `bid` " +
		"attribute. An element keeps its bid for as long as its document lives; new elements take the next " +
		"number of a per-frame counter; a frame's element gets letters (`a`, `b`, …, `aA`, …) and the elements " +
		"inside the frame carry that prefix (`a12` is element 12 of frame `a`). So the bid in " +
		"`browsergym_element_action` and `target` names an element of the step's own observation: the " +
		"`screenshot`, `url` and `axtree_txt` of the same row.\n\n")
	b.WriteString("`axtree_txt` is that observation's accessibility tree flattened as BrowserGym's " +
		"`flatten_axtree_to_str` writes it (one line per node, `[bid] role 'name'`, indented by depth); null " +
		"when observation extras were off during recording.")
	if s.steps > 0 {
		fmt.Fprintf(b, " In this export, of %s: %d %s a `target`, %d a `browsergym_element_action` and %d an `axtree_txt`.",
			plural(s.steps, "step", "steps"), s.targets, map[bool]string{true: "has", false: "have"}[s.targets == 1],
			s.elements, s.axtrees)
	}
	if s.badExtras > 0 {
		fmt.Fprintf(b, " Observation extras of %s could not be read (damaged in the store): %s a null `axtree_txt`.",
			plural(s.badExtras, "step", "steps"),
			map[bool]string{true: "the action taken on it has", false: "the actions taken on them have"}[s.badExtras == 1])
	}
	b.WriteString("\n\n")
}
