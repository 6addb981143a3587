package hfexport

import (
	"encoding/json"

	"waymark/engine/action"
)

// The values of the rows' cells (the rows are in features.go): optional
// scalars, the typed action, class indexes and redaction boxes.

func str(s string) *string { return &s }
func i64(v int64) *int64   { return &v }
func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// typedAction fills only the fields the operation uses.
func typedAction(a action.Action) *stepAction {
	sa := &stepAction{Op: str(string(a.Op))}
	pt := func(p *int) *int64 {
		if p == nil {
			return nil
		}
		return i64(int64(*p))
	}
	switch a.Op {
	case action.Click, action.DoubleClick, action.Move, action.Select, action.MouseDown, action.MouseUp:
		sa.X, sa.Y = pt(a.X), pt(a.Y)
	case action.SetValue:
		sa.X, sa.Y, sa.Text = pt(a.X), pt(a.Y), str(a.Text)
	case action.KeyDown, action.KeyUp, action.InsertText:
		sa.Text = str(a.Text)
	case action.Drag:
		sa.X, sa.Y, sa.X2, sa.Y2 = pt(a.X), pt(a.Y), pt(a.X2), pt(a.Y2)
	case action.Type, action.Key, action.Finish:
		sa.Text = str(a.Text)
	case action.Scroll:
		sa.DY = i64(int64(a.DY))
	case action.Goto:
		sa.URL = str(a.URL)
	}
	return sa
}

func classIndex[S ~string](names []S, v S) *int64 {
	for i, n := range names {
		if n == v {
			return i64(int64(i))
		}
	}
	return nil
}

// redactionJSON is a screenshot's redaction boxes as the steps config's
// redaction column holds them: a JSON list of {x, y, w, h, why}, "[]"
// when none.
func redactionJSON(bs []action.RedactBox) *string {
	if bs == nil {
		bs = []action.RedactBox{}
	}
	b, _ := json.Marshal(bs)
	return str(string(b))
}
