package action

import "encoding/json"

// Target is the element an action was aimed at, read before the action: the
// element under the pointer for a pointer action, the focused element for
// type and key. It grounds a coordinate action in the page, so the same step
// can be written as an element action (click('a51')).
type Target struct {
	// Bid is the element's BrowserGym id (its "bid" attribute), "" when the
	// element has none (e.g. the pointer was over nothing marked).
	Bid  string `json:"bid"`
	Tag  string `json:"tag"`  // lower-case tag name, e.g. "button"
	Role string `json:"role"` // ARIA role (explicit or implicit), or ""
	Name string `json:"name"` // accessible name, or ""
	// BBox is x, y, width, height in CSS pixels of the 800×600 viewport.
	BBox [4]float64 `json:"bbox"`
	// Selector is a CSS selector that finds the element again in the same
	// page state (frames joined by " >>> ").
	Selector string `json:"selector"`
	// InputType is an <input>'s type ("" for other elements), for the
	// actions that depend on it; it is not stored.
	InputType string `json:"-"`
}

// ElementProps are BrowserGym's extra properties of one marked element.
type ElementProps struct {
	Visibility float64 `json:"visibility"` // share of the element inside the viewport, 0–1
	// BBox is x, y, width, height in viewport CSS pixels; nil when the
	// element has no box (not rendered).
	BBox       *[4]float64 `json:"bbox"`
	Clickable  bool        `json:"clickable"`
	SetOfMarks bool        `json:"set_of_marks"`
}

// Extras are an observation's element-grounded parts, named as BrowserGym's
// observation keys. The engine fills them when its settings ask for them;
// they never go into the OpenEnv observation.
type Extras struct {
	// AXTree is the accessibility tree of every frame (CDP
	// Accessibility.getFullAXTree nodes, each with its "browsergym_id").
	AXTree json.RawMessage `json:"axtree_object,omitempty"`
	// DOM is a DOMSnapshot.captureSnapshot result (opt-in: large).
	DOM json.RawMessage `json:"dom_object,omitempty"`
	// AXTreeTxt is the tree flattened as BrowserGym's flatten_axtree_to_str.
	AXTreeTxt       string                  `json:"axtree_txt"`
	ElementProps    map[string]ElementProps `json:"extra_element_properties"`
	FocusedBid      string                  `json:"focused_element_bid"` // document.activeElement's bid, as BrowserGym's: the body's when nothing has the focus
	OpenPagesURLs   []string                `json:"open_pages_urls"`
	OpenPagesTitles []string                `json:"open_pages_titles"`
	ActivePageIndex int                     `json:"active_page_index"`
	LastAction      string                  `json:"last_action"`
	LastActionError string                  `json:"last_action_error"`
	ElapsedTimeSecs float64                 `json:"elapsed_time"`
}
