package browser

import (
	"context"
	"encoding/json"
	"regexp"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axNode is one accessibility node as CDP's Accessibility.getFullAXTree
// sends it, plus BrowserGym's "browsergym_id". Values stay raw JSON so the
// tree is kept as Chromium wrote it (ints stay ints, for the flattener).
type axNode struct {
	NodeID           string          `json:"nodeId"`
	Ignored          bool            `json:"ignored"`
	IgnoredReasons   json.RawMessage `json:"ignoredReasons,omitempty"`
	Role             *axValue        `json:"role,omitempty"`
	ChromeRole       json.RawMessage `json:"chromeRole,omitempty"`
	Name             *axValue        `json:"name,omitempty"`
	Description      *axValue        `json:"description,omitempty"`
	Value            *axValue        `json:"value,omitempty"`
	Properties       []axProperty    `json:"properties,omitempty"`
	ParentID         string          `json:"parentId,omitempty"`
	ChildIDs         []string        `json:"childIds"`
	BackendDOMNodeID int64           `json:"backendDOMNodeId,omitempty"`
	FrameID          string          `json:"frameId,omitempty"`
	BrowsergymID     *string         `json:"browsergym_id,omitempty"`
}

// axValue is a CDP AXValue.
type axValue struct {
	Type         string          `json:"type"`
	Value        json.RawMessage `json:"value,omitempty"`
	RelatedNodes json.RawMessage `json:"relatedNodes,omitempty"`
	Sources      json.RawMessage `json:"sources,omitempty"`
}

// axProperty is a CDP AXProperty.
type axProperty struct {
	Name  string   `json:"name"`
	Value *axValue `json:"value"`
}

// axTree is the merged tree of every frame, BrowserGym's axtree_object.
type axTree struct {
	Nodes []*axNode `json:"nodes"`
}

// str is the value as a string ("" when it is not one).
func (v *axValue) str() string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) != nil {
		return ""
	}
	return s
}

// getFullAXTree is Accessibility.getFullAXTree decoded into axNode.
var getFullAXTree = cdp.Command[accessibility.GetFullAXTreeParams, axTree]{Method: accessibility.CommandGetFullAXTree}

// bidPrefix matches the bid marks.js puts before aria-roledescription and
// aria-description while the tree is read.
var bidPrefix = regexp.MustCompile(`^browsergym_id_(\S*)\s?`)

// readAXTree reads every frame's tree, as BrowserGym's
// extract_merged_axtree: frames in its order (a stack over
// Page.getFrameTree, main frame first), each node's bid taken from its
// roledescription (else description) and the prefix removed, and each
// Iframe node given its frame's root node as a child. A frame whose tree
// cannot be read (e.g. one running in another process) is left out.
func (e *Engine) readAXTree(ctx context.Context, t *tab) (*axTree, error) {
	// The frame tree and the main frame's AXTree are read at the same time;
	// the child frames' trees (if any) after.
	var tree *page.FrameTree
	var treeErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		treeErr = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
			res, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
			tree = res.FrameTree
			return err
		})
	})
	var main []*axNode
	mainErr := t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
		if !e.ep.g.axOn[t] {
			// With the domain enabled Chromium keeps the tree between
			// reads instead of building it anew for each.
			if _, err := chromedp.Call(c, accessibility.Enable, cdp.Empty{}); err != nil {
				return err
			}
			if e.ep.g.axOn == nil {
				e.ep.g.axOn = map[*tab]bool{}
			}
			e.ep.g.axOn[t] = true
		}
		res, err := chromedp.Call(c, getFullAXTree, accessibility.GetFullAXTreeParams{})
		main = res.Nodes
		return err
	})
	wg.Wait()
	if mainErr != nil {
		return nil, mainErr
	}
	var frames []*page.FrameTree
	if treeErr != nil || tree == nil {
		e.logf("browser: the frame tree was not read (child frames left out of the AXTree): %v", treeErr)
	} else {
		stack := []*page.FrameTree{tree}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f == nil || f.Frame == nil {
				continue
			}
			stack = append(stack, f.ChildFrames...)
			frames = append(frames, f)
		}
	}
	if len(frames) == 0 {
		frames = []*page.FrameTree{{Frame: &cdp.Frame{}}}
	}
	trees := make([][]*axNode, len(frames))
	owners := make([]int64, len(frames)) // backend node id of each frame's iframe element
	errs := make([]error, len(frames))
	trees[0] = main
	for i, f := range frames[1:] {
		i++
		wg.Go(func() {
			errs[i] = t.do(ctx, e.set.OpTimeout, func(c context.Context) error {
				res, err := chromedp.Call(c, getFullAXTree, accessibility.GetFullAXTreeParams{FrameID: f.Frame.ID})
				trees[i] = res.Nodes
				if err != nil {
					return err
				}
				if own, err := chromedp.Call(c, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.Frame.ID}); err == nil {
					owners[i] = int64(own.BackendNodeID)
				}
				return nil
			})
		})
	}
	wg.Wait()
	rootOf := map[int64]string{} // iframe element → its frame's root AX node
	merged := &axTree{}
	for i, nodes := range trees {
		if errs[i] != nil {
			e.logf("browser: the accessibility tree of frame %s was not read: %v", frames[i].Frame.URL, errs[i])
			continue
		}
		if i > 0 && owners[i] != 0 && len(nodes) > 0 {
			rootOf[owners[i]] = nodes[0].NodeID
		}
		for _, n := range nodes {
			takeBid(n)
			if n.ChildIDs == nil {
				n.ChildIDs = []string{} // BrowserGym's readers expect the list
			}
		}
		dropInheritedBids(nodes)
		merged.Nodes = append(merged.Nodes, dropInlineTextBoxes(nodes)...)
	}
	for _, n := range merged.Nodes {
		if n.Role != nil && n.Role.str() == "Iframe" {
			if root, ok := rootOf[n.BackendDOMNodeID]; ok {
				n.ChildIDs = append(n.ChildIDs, root)
			}
		}
	}
	return merged, nil
}

// dropInlineTextBoxes removes InlineTextBox nodes (a StaticText's
// line pieces) and their ids from the other nodes' children. Recent
// Chromium sends them in getFullAXTree; the Chromium BrowserGym drives does
// not, so its trees and flattened text have none. They repeat their
// StaticText's text and make up a large part of the tree.
func dropInlineTextBoxes(nodes []*axNode) []*axNode {
	gone := map[string]bool{}
	out := nodes[:0]
	for _, n := range nodes {
		if n.Role != nil && n.Role.str() == "InlineTextBox" {
			gone[n.NodeID] = true
			continue
		}
		out = append(out, n)
	}
	if len(gone) == 0 {
		return out
	}
	for _, n := range out {
		kept := n.ChildIDs[:0]
		for _, c := range n.ChildIDs {
			if !gone[c] {
				kept = append(kept, c)
			}
		}
		n.ChildIDs = kept
	}
	return out
}

// dropInheritedBids takes the bid off a node whose nearest ancestor with a
// bid has the same one: the parts Chromium draws inside an element (the
// month, day and year fields and the picker button of a date input) are
// nodes of their own and inherit the element's aria-description, so they
// would carry its bid; only the element does.
func dropInheritedBids(nodes []*axNode) {
	byID := make(map[string]*axNode, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	for _, n := range nodes {
		if n.BrowsergymID == nil {
			continue
		}
		for p, hops := byID[n.ParentID], 0; p != nil && hops < len(nodes); p, hops = byID[p.ParentID], hops+1 {
			if p.BrowsergymID != nil {
				if *p.BrowsergymID == *n.BrowsergymID {
					n.BrowsergymID = nil
				}
				break
			}
		}
	}
}

// takeBid moves the bid from the node's roledescription property (else its
// description) to BrowsergymID, keeping what the page had after the prefix
// and dropping the value when nothing is left.
func takeBid(n *axNode) {
	for i, p := range n.Properties {
		if p.Name != "roledescription" {
			continue
		}
		s := p.Value.str()
		m := bidPrefix.FindStringSubmatch(s)
		if m == nil {
			break
		}
		bid := m[1]
		n.BrowsergymID = &bid
		if rest := s[len(m[0]):]; rest != "" {
			p.Value.Value, _ = json.Marshal(rest)
		} else {
			n.Properties = append(n.Properties[:i:i], n.Properties[i+1:]...)
		}
		break
	}
	if n.Description != nil {
		s := n.Description.str()
		if m := bidPrefix.FindStringSubmatch(s); m != nil {
			if n.BrowsergymID == nil {
				bid := m[1]
				n.BrowsergymID = &bid
			}
			if rest := s[len(m[0]):]; rest != "" {
				n.Description.Value, _ = json.Marshal(rest)
			} else {
				n.Description = nil
			}
		}
	}
}

// roleNames maps bids to role and name from a tree (for targets).
func (tr *axTree) roleNames() map[string][2]string {
	m := map[string][2]string{}
	for _, n := range tr.Nodes {
		if n.BrowsergymID == nil || n.Ignored {
			continue
		}
		if _, ok := m[*n.BrowsergymID]; ok {
			continue
		}
		m[*n.BrowsergymID] = [2]string{n.Role.str(), n.Name.str()}
	}
	return m
}
