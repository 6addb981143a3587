package browser

import (
	"encoding/json"
)

// domSnap is what grounding reads of a DOMSnapshot.captureSnapshot result:
// the nodes' names, attributes, field values and clickability, all as
// indexes into the shared string table. One decode serves both the masking
// of secret fields (groundsecret.go) and the clickable bids (extras.go).
type domSnap struct {
	Documents []struct {
		Nodes struct {
			NodeName    []int        `json:"nodeName"`
			Attributes  [][]int      `json:"attributes"`
			InputValue  *rareStrings `json:"inputValue"`
			TextValue   *rareStrings `json:"textValue"`
			IsClickable *struct {
				Index []int `json:"index"`
			} `json:"isClickable"`
		} `json:"nodes"`
	} `json:"documents"`
	Strings []string `json:"strings"`
}

// rareStrings is the snapshot's RareStringData: the string (an index into
// the table) of the nodes listed in Index.
type rareStrings struct {
	Index []int `json:"index"`
	Value []int `json:"value"`
}

// str is the snapshot's string i; "" when i is out of the table.
func (s *domSnap) str(i int) string {
	if i < 0 || i >= len(s.Strings) {
		return ""
	}
	return s.Strings[i]
}

// readDOMSnapshot decodes a raw snapshot once and returns it with the
// values of password and payment fields masked (maskSecrets) and the bids
// Chromium marks clickable, read from the masked strings (clickable). ok is
// false when the snapshot cannot be read (it is then left out).
func readDOMSnapshot(raw json.RawMessage) (masked json.RawMessage, click map[string]bool, ok bool) {
	var s domSnap
	if json.Unmarshal(raw, &s) != nil {
		return nil, nil, false
	}
	masked, ok = s.maskSecrets(raw)
	if !ok {
		return nil, nil, false
	}
	return masked, s.clickable(), true
}

// clickable lists the bids of the elements the snapshot marks clickable
// (nodes.isClickable: natively clickable or with a click listener), as
// BrowserGym's extra_element_properties take it.
func (s *domSnap) clickable() map[string]bool {
	bids := map[string]bool{}
	for _, d := range s.Documents {
		if d.Nodes.IsClickable == nil {
			continue
		}
		for _, i := range d.Nodes.IsClickable.Index {
			if i < 0 || i >= len(d.Nodes.Attributes) {
				continue
			}
			a := d.Nodes.Attributes[i]
			for k := 0; k+1 < len(a); k += 2 {
				if s.str(a[k]) == "bid" {
					bids[s.str(a[k+1])] = true
				}
			}
		}
	}
	return bids
}
