package record

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// refreshDepth shows content and panics when its Refresh runs inside
// itself a few levels deep: a refresh that would recurse without end.
type refreshDepth struct {
	widget.BaseWidget
	content fyne.CanvasObject
	depth   int
}

func newRefreshDepth(content fyne.CanvasObject) *refreshDepth {
	r := &refreshDepth{content: content}
	r.ExtendBaseWidget(r)
	return r
}

func (r *refreshDepth) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.content)
}

func (r *refreshDepth) Refresh() {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > 4 {
		panic(fmt.Sprintf("the tab's content refreshed inside its own refresh, %d deep", r.depth))
	}
	r.BaseWidget.Refresh()
}

// The live view's centring asks where it is on the window, which walks the
// window's objects and makes any missing renderer. Making the tabs'
// renderer refreshes each tab's content, which lays the centring out again:
// it must not ask again from inside its own question. The app froze at
// start when a mouse moved over its window before the first frame (Fyne
// made the tabs' renderer then; the stack grew until it crashed).
func TestPixelCenterLayoutWhileTabsRendererIsMade(t *testing.T) {
	test.NewTempApp(t)
	pic := canvas.NewRectangle(nil)
	pic.SetMinSize(fyne.NewSize(80, 60))
	box := newPixelCenter(pic)
	tabs := container.NewAppTabs(container.NewTabItem("Record", newRefreshDepth(box)))
	noRecursion := func(step string, f func()) {
		t.Helper()
		defer func() {
			if err := recover(); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
		}()
		f()
	}
	var w fyne.Window
	noRecursion("showing the tabs", func() { w = test.NewTempWindow(t, tabs) })
	noRecursion("resizing the window", func() { w.Resize(fyne.NewSize(300, 200)) })
	t.Run("renderer", func(t *testing.T) { test.TempWidgetRenderer(t, tabs) }) // its end drops the tabs' renderer
	noRecursion("laying out again without the tabs' renderer", box.Refresh)
	// Centred on whole pixels once the renderer is back.
	if p := pic.Position(); p.X != float32(int(p.X)) || p.Y != float32(int(p.Y)) || p.X < 100 {
		t.Errorf("the picture sits at %v, not centred on a whole pixel", p)
	}
}
